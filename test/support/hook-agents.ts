import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { numbersAgent } from './numbers-agent.ts';
import { pauseAgents } from './pause-agents.ts';

/**
 * The agents module of the React hook's tests (test/client/react-hook.test.ts), served by
 * `switchboard dev` in a process of its own: those tests run in a DOM environment, where the
 * sandbox's own code cannot run.
 */

const app = createSwitchboard();
app.registerHostAgent(demoAgent({ chunkDelayMs: 5 }));
app.registerHostAgent(numbersAgent);
for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);

export default app;
