import { isStepCount, streamText, ToolLoopAgent, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { invokeSDK, jsonSchemaOf, resolveSDK, stopReasonOf } from '../../lib/agents/sdk/ai-sdk-agent.ts';
import type { SDKAgentDefinition } from '../../lib/agents/sdk/types.ts';
import type {
  HistoryMessage,
  HostAgentInput,
  HostAgentIO,
  HostEvent,
  HostResult,
  ResolveActionInput,
} from '../../lib/contract/index.ts';
import { AgentFailedError } from '../../lib/errors/index.ts';
import { call, fail, HANG, say, scriptedModel } from '../support/ai-sdk-model.ts';

const user = (content: string, id = 'msg_user'): HistoryMessage => ({
  id,
  role: 'user',
  content,
  prompt: content,
  attachments: [],
  createdAt: '2026-01-01T00:00:00.000Z',
});

function turn(message: string, host: HostAgentInput['tools']['host'] = []): HostAgentInput {
  return {
    conversationId: 'conv',
    runId: 'run_1',
    message,
    prompt: message,
    hostContext: null,
    attachments: [],
    tools: { host, backend: [] },
    screenAvailable: false,
    history: [user(message)],
    files: [],
    metadata: {},
    context: { user: { id: 'u' }, data: {} },
  };
}

function fakeIO(controller = new AbortController()) {
  const events: HostEvent[] = [];
  const io: HostAgentIO = {
    emit: (e) => events.push(e),
    signal: controller.signal,
    files: { list: async () => [], read: async () => null, text: async () => null },
    lookAtScreen: async () => [],
    parts: async () => [],
    takeSteering: async () => [],
    rememberedTools: [],
    secret: async () => '',
    budgetLeft: async () => undefined,
  };
  return { io, events, controller };
}

function answered(
  result: HostResult,
  resolution: Record<string, unknown>,
  history: HistoryMessage[],
): ResolveActionInput {
  const action = result.pendingActions?.[0];
  if (!action) throw new Error('nothing asked');
  return {
    actionId: action.id,
    action,
    resolution,
    pendingActions: [],
    answeredBefore: [],
    actor: 'u',
    channel: 'api',
    expired: false,
    conversationId: 'conv',
    runId: 'run_2',
    metadata: {},
    context: { user: { id: 'u' }, data: {} },
    attachments: [],
    hostContext: null,
    history,
    tools: { host: [], backend: [] },
  };
}

const Refund = z.object({ order: z.string(), amount: z.number().max(100) });

function refundAgent(model: ReturnType<typeof scriptedModel>['model'], refunds: unknown[] = []) {
  return new ToolLoopAgent({
    model,
    tools: {
      find_order: tool({
        inputSchema: z.object({ order: z.string() }),
        execute: async ({ order }) => ({ order, total: 25 }),
      }),
      refund: tool({
        inputSchema: Refund,
        needsApproval: true,
        execute: async (args) => {
          refunds.push(args);
          return { refunded: args.amount };
        },
      }),
    },
  });
}

describe('the AI SDK adapter: fullStream parts to events', () => {
  it('streams text deltas as text events and reports each step’s usage with its model', async () => {
    const { model } = scriptedModel({ hello: [say('Hel', 'lo')] });
    const { io, events } = fakeIO();
    const result = await invokeSDK(
      { info: { id: 'a' }, agent: new ToolLoopAgent({ model }) },
      turn('hello'),
      io,
    );
    expect(events).toEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      {
        type: 'usage',
        usage: {
          inputTokens: 10,
          outputTokens: 5,
          totalTokens: 15,
          cachedInputTokens: 2,
          model: 'mock-model',
        },
      },
    ]);
    expect(result).toEqual({ stopReason: 'end_turn' });
  });

  it('maps a backend tool’s call and result to tool_use and tool_result, and continues the loop', async () => {
    const { model, prompts } = scriptedModel({
      order: [call([{ id: 'call_1', name: 'find_order', input: { order: '1042' } }]), say('It cost $25.')],
    });
    const { io, events } = fakeIO();
    await invokeSDK({ info: { id: 'a' }, agent: refundAgent(model) }, turn('order 1042'), io);
    expect(events.filter((e) => e.type !== 'usage')).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'find_order', args: { order: '1042' } },
      { type: 'tool_result', id: 'call_1', name: 'find_order', result: { order: '1042', total: 25 } },
      { type: 'text', text: 'It cost $25.' },
    ]);
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
    expect(prompts).toHaveLength(2);
  });

  it('turns a tool error into a failed tool_result', async () => {
    const { model } = scriptedModel({
      boom: [call([{ id: 'call_1', name: 'explode', input: { how: 'loud' } }]), say('It broke.')],
    });
    const agent = new ToolLoopAgent({
      model,
      tools: {
        explode: tool({
          inputSchema: z.object({ how: z.string() }),
          execute: async ({ how }): Promise<string> => {
            throw new Error(`kaboom, ${how}`);
          },
        }),
      },
    });
    const { io, events } = fakeIO();
    await invokeSDK({ info: { id: 'a' }, agent }, turn('boom'), io);
    expect(events).toContainEqual({
      type: 'tool_result',
      id: 'call_1',
      name: 'explode',
      error: 'kaboom, loud',
    });
  });
});

describe('the AI SDK adapter: approvals', () => {
  const script = () =>
    scriptedModel({
      refund: [
        call([{ id: 'call_r', name: 'refund', input: { order: '1042', amount: 25 } }]),
        say('Refunded.'),
      ],
    });

  it('asks a needsApproval call as a tool_approval with the tool’s schema, and runs it with the edited args once approved', async () => {
    const { model, prompts } = script();
    const refunds: unknown[] = [];
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent: refundAgent(model, refunds) };
    const first = fakeIO();
    const asked = await invokeSDK(definition, turn('refund 1042'), first.io);
    expect(first.events[0]).toEqual({
      type: 'tool_use',
      id: 'call_r',
      name: 'refund',
      args: { order: '1042', amount: 25 },
    });
    const action = asked.pendingActions?.[0];
    expect(action).toMatchObject({
      type: 'tool_approval',
      toolName: 'refund',
      args: { order: '1042', amount: 25 },
      toolCallId: 'call_r',
      argsSchema: { type: 'object', properties: { amount: { type: 'number', maximum: 100 } } },
    });
    expect(refunds).toEqual([]);

    const second = fakeIO();
    const history = [user('refund 1042')];
    const done = await resolveSDK(
      definition,
      answered(asked, { decision: 'approve', approvedArgs: { order: '1042', amount: 20 } }, history),
      second.io,
    );
    expect(refunds).toEqual([{ order: '1042', amount: 20 }]);
    expect(second.events.filter((e) => e.type !== 'usage')).toEqual([
      { type: 'tool_result', id: 'call_r', name: 'refund', result: { refunded: 20 } },
      { type: 'text', text: 'Refunded.' },
    ]);
    expect(done).toEqual({ stopReason: 'end_turn' });
    // The model read the conversation, its call (as approved) and the result.
    expect(JSON.stringify(prompts[1]?.prompt)).toContain('"input":{"order":"1042","amount":20}');
  });

  it('hands a denial to the model as a denied call, and the tool does not run', async () => {
    const { model, prompts } = script();
    const refunds: unknown[] = [];
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent: refundAgent(model, refunds) };
    const asked = await invokeSDK(definition, turn('refund 1042'), fakeIO().io);
    const second = fakeIO();
    await resolveSDK(
      definition,
      answered(asked, { decision: 'deny', comment: 'not this one' }, [user('refund 1042')]),
      second.io,
    );
    expect(refunds).toEqual([]);
    expect(second.events[0]).toEqual({
      type: 'tool_result',
      id: 'call_r',
      name: 'refund',
      error: 'The call was denied.',
    });
    expect(JSON.stringify(prompts[1]?.prompt)).toContain('execution-denied');
    expect(JSON.stringify(prompts[1]?.prompt)).toContain('not this one');
  });

  it('asks the approvals of one step together, waits while one is open, and continues once both are answered', async () => {
    const { model, prompts } = scriptedModel({
      two: [
        call([
          { id: 'call_a', name: 'refund', input: { order: '1', amount: 1 } },
          { id: 'call_b', name: 'refund', input: { order: '2', amount: 2 } },
        ]),
        say('Both handled.'),
      ],
    });
    const refunds: unknown[] = [];
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent: refundAgent(model, refunds) };
    const history = [user('two refunds')];
    const asked = await invokeSDK(definition, turn('two refunds'), fakeIO().io);
    expect(asked.pendingActions?.map((a) => (a as { toolCallId?: string }).toolCallId)).toEqual([
      'call_a',
      'call_b',
    ]);
    const [first, second] = asked.pendingActions ?? [];
    // The first answer, with the second still open: the turn waits on, asking nothing new.
    const waiting = await resolveSDK(
      definition,
      {
        ...answered({ pendingActions: [first!] }, { decision: 'approve' }, history),
        pendingActions: [second!],
      },
      fakeIO().io,
    );
    expect(waiting).toEqual({ pendingActions: [second] });
    expect(prompts).toHaveLength(1);
    // The second answer, the first handed over before it: the SDK gets both.
    const done = fakeIO();
    await resolveSDK(
      definition,
      {
        ...answered({ pendingActions: [second!] }, { decision: 'deny' }, history),
        answeredBefore: [
          {
            actionId: first!.id,
            action: first!,
            status: 'resolved',
            resolution: { decision: 'approve' },
            expired: false,
          },
        ],
      },
      done.io,
    );
    expect(refunds).toEqual([{ order: '1', amount: 1 }]);
    const results = done.events.flatMap((e) =>
      e.type === 'tool_result' ? [[e.id, e.error ?? e.result]] : [],
    );
    expect(results.sort()).toEqual([
      ['call_a', { refunded: 1 }],
      ['call_b', 'The call was denied.'],
    ]);
    expect(prompts).toHaveLength(2);
  });
});

describe('the AI SDK adapter: remembered tools', () => {
  it('answers the approvals of a remembered tool itself: the calls run without asking and say remembered', async () => {
    const { model, prompts } = scriptedModel({
      two: [
        call([
          { id: 'call_a', name: 'refund', input: { order: '1', amount: 1 } },
          { id: 'call_b', name: 'refund', input: { order: '2', amount: 2 } },
        ]),
        say('Both refunded.'),
      ],
    });
    const refunds: unknown[] = [];
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent: refundAgent(model, refunds) };
    const { io, events } = fakeIO();
    const done = await invokeSDK(definition, turn('two refunds'), { ...io, rememberedTools: ['refund'] });
    expect(done).toEqual({ stopReason: 'end_turn' });
    expect(refunds).toEqual([
      { order: '1', amount: 1 },
      { order: '2', amount: 2 },
    ]);
    expect(events.filter((e) => e.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'refund', args: { order: '1', amount: 1 }, remembered: true },
      { type: 'tool_use', id: 'call_b', name: 'refund', args: { order: '2', amount: 2 }, remembered: true },
    ]);
    expect(prompts).toHaveLength(2);
  });

  it('asks what else the step waits on, and hands the remembered answer over with its answer', async () => {
    const { model } = scriptedModel({
      mixed: [
        call([
          { id: 'call_r', name: 'refund', input: { order: '1', amount: 1 } },
          { id: 'call_page', name: 'read_page', input: {} },
        ]),
        say('Done.'),
      ],
    });
    const refunds: unknown[] = [];
    const agent = refundAgent(model, refunds);
    Object.assign(agent.tools, { read_page: tool({ inputSchema: z.object({}) }) });
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent };
    const asked = await invokeSDK(definition, turn('mixed'), { ...fakeIO().io, rememberedTools: ['refund'] });
    expect(asked.pendingActions).toEqual([
      expect.objectContaining({ type: 'client_tool', toolName: 'read_page' }),
    ]);
    expect(refunds).toEqual([]);
    const done = await resolveSDK(
      definition,
      answered(asked, { type: 'client_tool', output: { text: 'page' } }, [user('mixed')]),
      fakeIO().io,
    );
    expect(done).toEqual({ stopReason: 'end_turn' });
    expect(refunds).toEqual([{ order: '1', amount: 1 }]);
  });

  it('stops a run that keeps calling a remembered tool: incomplete, max_turns', async () => {
    const again = (n: number) =>
      call([{ id: `call_${n}`, name: 'refund', input: { order: `${n}`, amount: 1 } }]);
    const { model, prompts } = scriptedModel({ forever: Array.from({ length: 20 }, (_, n) => again(n)) });
    const refunds: unknown[] = [];
    const definition: SDKAgentDefinition = { info: { id: 'a' }, agent: refundAgent(model, refunds) };
    const done = await invokeSDK(definition, turn('forever'), {
      ...fakeIO().io,
      rememberedTools: ['refund'],
    });
    expect(done).toEqual({ status: 'incomplete', stopReason: 'max_turns' });
    expect(prompts).toHaveLength(11);
  });
});

describe('the AI SDK adapter: host actions, cancel, errors, stop reasons', () => {
  const SELECT = {
    name: 'select_issue',
    description: 'Select an issue',
    parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
    source: 'request' as const,
  };

  it('offers the turn’s host actions as tools without execute: a call ends the turn as a host_tool, and the result goes back', async () => {
    const { model, prompts } = scriptedModel({
      select: [
        call([{ id: 'call_s', name: 'select_issue', input: { number: 2 } }], 'Selecting. '),
        say('Selected.'),
      ],
    });
    const definition: SDKAgentDefinition = {
      info: { id: 'a' },
      stream: ({ messages, tools, abortSignal }) =>
        streamText({
          model,
          messages,
          tools: { ...tools },
          abortSignal,
          stopWhen: isStepCount(5),
        }),
    };
    const first = fakeIO();
    const asked = await invokeSDK(definition, turn('select 2', [SELECT]), first.io);
    expect(first.events.filter((e) => e.type !== 'usage')).toEqual([
      { type: 'text', text: 'Selecting. ' },
      { type: 'tool_use', id: 'call_s', name: 'select_issue', args: { number: 2 } },
    ]);
    expect(asked.pendingActions?.[0]).toMatchObject({
      id: 'call_s',
      type: 'host_tool',
      toolName: 'select_issue',
    });
    // The model was offered the action with its parameters.
    const offered = (model.doStreamCalls[0]?.tools ?? []).map((t) =>
      'inputSchema' in t ? [t.name, t.inputSchema] : [],
    );
    expect(offered).toEqual([['select_issue', SELECT.parameters]]);

    const second = fakeIO();
    await resolveSDK(
      definition,
      answered(asked, { type: 'host_tool', outcome: 'succeeded', result: { selected: 2 } }, [
        user('select 2'),
      ]),
      second.io,
    );
    expect(second.events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'Selected.' }]);
    const prompt = JSON.stringify(prompts[1]?.prompt);
    expect(prompt).toContain('"toolCallId":"call_s"');
    expect(prompt).toContain('{"selected":2}');
  });

  it('aborts the model call with the run: the turn is cancelled', async () => {
    const { model, prompts } = scriptedModel({ story: [HANG] });
    const { io, events, controller } = fakeIO();
    const running = invokeSDK(
      { info: { id: 'a' }, agent: new ToolLoopAgent({ model }) },
      turn('a story'),
      io,
    );
    await vi_waitFor(() => events.length > 0);
    controller.abort('user');
    expect(await running).toEqual({ status: 'cancelled' });
    expect(prompts[0]?.aborted()).toBe(true);
  });

  it('fails the turn with the model’s message on an error part', async () => {
    const { model } = scriptedModel({ broken: [fail('The model is overloaded.')] });
    const { io } = fakeIO();
    const running = invokeSDK({ info: { id: 'a' }, agent: new ToolLoopAgent({ model }) }, turn('broken'), io);
    await expect(running).rejects.toThrow(AgentFailedError);
    await expect(running).rejects.toThrow('The AI SDK agent failed: The model is overloaded.');
  });

  it('fails the turn with the status and message of an error the stream throws', async () => {
    const definition: SDKAgentDefinition = {
      info: { id: 'a' },
      stream: () => ({
        stream: (async function* () {
          yield { type: 'text-delta', id: 't', text: 'Hi' };
          throw Object.assign(new Error('Rate limit reached.'), { statusCode: 429 });
        })(),
      }),
    };
    const { io, events } = fakeIO();
    await expect(invokeSDK(definition, turn('x'), io)).rejects.toThrow(
      'The AI SDK agent failed (HTTP 429): Rate limit reached.',
    );
    expect(events).toEqual([{ type: 'text', text: 'Hi' }]);
  });

  it('removes what looks like a key from a provider’s error before it becomes the turn’s error', async () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const definition: SDKAgentDefinition = {
      info: { id: 'a' },
      stream: () => ({
        stream: (async function* () {
          yield* [];
          throw Object.assign(new Error(`Incorrect API key provided: ${key}.`), { statusCode: 401 });
        })(),
      }),
    };
    const { io } = fakeIO();
    const running = invokeSDK(definition, turn('x'), io);
    await expect(running).rejects.toThrow('The AI SDK agent failed (HTTP 401): Incorrect API key provided:');
    await expect(running).rejects.not.toThrow(key);
  });

  it('reads a loop stopped by its step limit as max_turns, a length stop as limit', async () => {
    const { model } = scriptedModel({
      loop: [call([{ id: 'c1', name: 'find_order', input: { order: '1' } }])],
    });
    const agent = new ToolLoopAgent({ model, tools: refundAgent(model).tools, stopWhen: isStepCount(1) });
    const result = await invokeSDK({ info: { id: 'a' }, agent }, turn('loop'), fakeIO().io);
    // Incomplete, like the model loop's max_turns stop, with the turn's SDK messages to continue from.
    expect(result).toMatchObject({ status: 'incomplete', stopReason: 'max_turns' });
    const kept = (result.resume as { aiSdk: { userMessageId: string; messages: { role: string }[] } }).aiSdk;
    expect(kept.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(stopReasonOf('length')).toBe('limit');
    expect(stopReasonOf('stop')).toBe('end_turn');
  });

  it('reads the JSON Schema of zod, jsonSchema() and lazy schemas, and gives none for what has none', async () => {
    expect(await jsonSchemaOf(Refund)).toMatchObject({ type: 'object', required: ['order', 'amount'] });
    const { jsonSchema } = await import('ai');
    const plain = { type: 'object' as const, properties: { a: { type: 'string' as const } } };
    expect(await jsonSchemaOf(jsonSchema(plain))).toEqual(plain);
    expect(await jsonSchemaOf(() => jsonSchema(plain))).toEqual(plain);
    expect(await jsonSchemaOf(undefined)).toBeUndefined();
    expect(await jsonSchemaOf({ not: 'a schema' })).toBeUndefined();
  });
});

/** Polls a condition the stream will meet (no timer is waited on for itself). */
async function vi_waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setImmediate(r));
  if (!condition()) throw new Error('the condition was never met');
}
