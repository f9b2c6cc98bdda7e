import { isStepCount, ToolLoopAgent, tool } from 'ai';
import * as z from 'zod';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { call, say, scriptedModel } from './ai-sdk-model.ts';
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
// An agent that fails its turns: at once, or, for a message that starts with "partly: ", after
// streaming the rest of it; for "call first", it calls the host's select_issue and fails on its
// result. It answers "fine" alone.
app.registerHostAgent({
  info: { id: 'failing' },
  async invoke({ message }, { emit }) {
    if (message === 'fine') return { content: 'Fine.' };
    if (message === 'call first') {
      emit({ type: 'text', text: 'Selecting it. ' });
      emit({ type: 'tool_use', id: 'call_fail', name: 'select_issue', args: { number: 7 } });
      return {};
    }
    if (message.startsWith('partly: ')) emit({ type: 'text', text: message.slice('partly: '.length) });
    throw new Error(`failing: ${message}`);
  },
  async resolveAction() {
    throw new Error('failing: the host call’s result');
  },
});
// An AI SDK agent of one step a turn: a message that asks it to count stops at max_turns, and continues.
const counting = scriptedModel({
  'count with the hook': [
    call([{ id: 'hook_1', name: 'step', input: { n: 1 } }], 'Counting. '),
    say('Counted.'),
  ],
});
app.registerSDKAgent({
  info: { id: 'stepper' },
  agent: new ToolLoopAgent({
    model: counting.model,
    tools: {
      step: tool({
        description: 'Count one step',
        inputSchema: z.object({ n: z.number() }),
        execute: async ({ n }) => `step ${n} done`,
      }),
    },
    stopWhen: isStepCount(1),
  }),
});

export default app;
