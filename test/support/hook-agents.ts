import { demoAgent } from '../../demo/demo-agent.ts';
import type { HostAgentDefinition } from '../../lib/agents/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { pauseAgents } from './pause-agents.ts';

/**
 * The agents module of the React hook's tests (test/client/react-hook.test.ts), served by
 * `switchboard dev` in a process of its own: those tests run in a DOM environment, where the
 * sandbox's own code cannot run.
 */

/** Streams `count` numbers, a pause after each, so that a test can stop it or break its socket mid-stream. */
const paced: HostAgentDefinition = {
  info: { id: 'paced' },
  async invoke({ message }, { emit, signal }) {
    const count = Number(message) || 20;
    for (let i = 1; i <= count && !signal.aborted; i += 1) {
      emit({ type: 'text', text: `${i} ` });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    return signal.aborted ? { status: 'cancelled', stopReason: 'cancelled' } : {};
  },
};

const app = createSwitchboard();
app.registerHostAgent(demoAgent({ chunkDelayMs: 5 }));
app.registerHostAgent(paced);
for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);

export default app;
