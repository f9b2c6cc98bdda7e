import { isStepCount, streamText, ToolLoopAgent, tool } from 'ai';
import * as z from 'zod';
import { createSwitchboard } from '../../lib/index.ts';
import { call, fail, HANG, say, scriptedModel } from './ai-sdk-model.ts';

/** The prices the test server charges the mock model: US dollars per million tokens. */
export const MOCK_PRICES = { 'mock-model': { input: 1000, output: 2000, cachedInput: 100 } };

/**
 * The agents module of the AI SDK tests: `sdk` is a `ToolLoopAgent` with a backend tool and a tool
 * that needs approval; `sdk-stream` a `streamText` function given the turn's host actions. Each runs
 * the SDK's own mock model on a script named by the conversation's first message, for each transport.
 */
export function sdkAgents() {
  const scripts: Parameters<typeof scriptedModel>[0] = {};
  for (const via of ['http', 'ws', 'agui']) {
    scripts[`hello ${via}`] = [say('Hello ', 'from the ', 'AI SDK.')];
    scripts[`order ${via}`] = [
      call([{ id: `find_${via}`, name: 'find_order', input: { order: '1042' } }]),
      say('Order 1042 cost $25.'),
    ];
    scripts[`refund ${via}`] = [
      call(
        [{ id: `refund_${via}`, name: 'refund', input: { order: '1042', amount: 25 } }],
        'I need your OK. ',
      ),
      say('Done.'),
    ];
    scripts[`deny ${via}`] = [
      call([{ id: `deny_${via}`, name: 'refund', input: { order: '7', amount: 5 } }]),
      say('As you wish: no refund.'),
    ];
    scripts[`select ${via}`] = [
      call([{ id: `select_${via}`, name: 'select_issue', input: { number: 2 } }], 'Selecting. '),
      say('Issue 2 is selected.'),
    ];
    scripts[`select both ${via}`] = [
      call(
        [
          { id: `first_${via}`, name: 'select_issue', input: { number: 3 } },
          { id: `second_${via}`, name: 'select_issue', input: { number: 4 } },
        ],
        'Selecting both. ',
      ),
      say('Issues 3 and 4 are selected.'),
    ];
    scripts[`look ${via}`] = [
      call([{ id: `look_${via}`, name: 'look_at_screen', input: {} }]),
      say('I see a screen.'),
    ];
    scripts[`slowly ${via}`] = [call([{ id: `slow_${via}`, name: 'slow', input: {} }]), say('Cats noted.')];
    scripts[`story ${via}`] = [HANG];
    scripts[`broken ${via}`] = [fail('The model is overloaded.')];
  }
  const { model, prompts } = scriptedModel(scripts);
  const refunds: unknown[] = [];
  const slow = { started: () => {}, release: () => {} };
  const tools = {
    find_order: tool({
      description: 'Look an order up',
      inputSchema: z.object({ order: z.string() }),
      execute: async ({ order }) => ({ order, total: 25 }),
    }),
    /** Holds its call open until the test lets it go (`slow.release()`), telling it once it started. */
    slow: tool({
      description: 'Take a while',
      inputSchema: z.object({}),
      execute: async () => {
        slow.started();
        await new Promise<void>((resolve) => {
          slow.release = resolve;
        });
        return { ok: true };
      },
    }),
    refund: tool({
      description: 'Refund an order',
      inputSchema: z.object({ order: z.string(), amount: z.number().positive().max(25) }),
      needsApproval: true,
      execute: async ({ order, amount }) => {
        refunds.push({ order, amount });
        return { refunded: amount };
      },
    }),
  };
  const app = createSwitchboard({ pricing: MOCK_PRICES });
  // Given as a loader, as a team keeps the SDK out of its functions' start-up code.
  app.registerSDKAgent({ info: { id: 'sdk' }, agent: async () => new ToolLoopAgent({ model, tools }) });
  app.registerSDKAgent({
    info: { id: 'sdk-stream' },
    stream: ({ messages, tools: hostActions, abortSignal, onStepStart, steering }) =>
      streamText({
        model,
        messages,
        tools: { ...tools, ...hostActions },
        abortSignal,
        onStepStart,
        ...steering,
        stopWhen: isStepCount(5),
      }),
    tools,
  });
  return { app, prompts, refunds, slow };
}
