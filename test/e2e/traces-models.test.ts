import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { isStepCount, ToolLoopAgent, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createSwitchboard, type ModelAgentDefinition } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { call, say, scriptedModel } from '../support/ai-sdk-model.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * The spans of a model agent's turn, in the sandbox with an in-memory exporter: a `chat` client span
 * per model call with the GenAI attributes and token counts, an `execute_tool` span per tool call,
 * the turn as the agent's invocation, and no prompt, completion or key anywhere unless the agent
 * turns content capture on.
 */
const exporter = new InMemorySpanExporter();
const KEY = 'sk-traces-0123456789-never-exported';
/** Words of the prompt, the system prompt, the tool's result and the answer: none may be in a span uncaptured. */
const SECRET_PROMPT = 'weather for my aunt Philomena';
const SYSTEM = 'You are the forecaster of Zanzibar.';
const SECRETS = ['Philomena', 'Zanzibar', 'sunny', 'It is', KEY];

let model: ScriptedModel;
let sandbox: Sandbox;

const agent = (id: string, extra: Partial<ModelAgentDefinition> = {}): ModelAgentDefinition => ({
  info: { id },
  baseURL: model.baseURL,
  apiKey: KEY,
  model: 'scripted-small',
  system: SYSTEM,
  tools: [
    {
      name: 'weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      execute: (args) => ({ city: (args as { city: string }).city, sky: 'sunny' }),
    },
    {
      name: 'refund',
      parameters: { type: 'object', properties: { order: { type: 'integer' } } },
      needsApproval: true,
      execute: () => ({ refunded: true }),
    },
    {
      name: 'broken',
      parameters: { type: 'object', properties: {} },
      execute: () => {
        throw new Error('The gauge of Philomena broke.');
      },
    },
  ],
  maxRetries: 0,
  ...extra,
});

/** The AI SDK's mock model: a tool call, then an answer (per script, as it counts its calls by script). */
const sdkSteps = () => [
  call([{ id: 'sdk_call_1', name: 'forecast', input: { city: 'Paris' } }]),
  say('Sunny ', 'days.'),
];
const sdk = scriptedModel({ 'sdk weather': sdkSteps(), 'sdk captured weather': sdkSteps() });

beforeAll(async () => {
  model = await startScriptedModel({
    apiKey: KEY,
    script: {
      rules: [
        {
          match: 'weather',
          on: 'user',
          reply: {
            toolCalls: [{ id: 'call_w', name: 'weather', arguments: { city: 'Paris' } }],
            usage: { promptTokens: 120, completionTokens: 7 },
          },
        },
        {
          tool: 'weather',
          reply: { text: ['It is', ' sunny.'], usage: { promptTokens: 150, completionTokens: 4 } },
        },
        {
          match: 'gauge',
          on: 'user',
          reply: { toolCalls: [{ id: 'call_b', name: 'broken', arguments: {} }] },
        },
        { tool: 'broken', reply: { text: 'No luck.' } },
        {
          match: 'refund',
          on: 'user',
          reply: { toolCalls: [{ id: 'call_r', name: 'refund', arguments: { order: 7 } }] },
        },
        {
          match: 'leak',
          on: 'user',
          error: { status: 401, message: `Incorrect API key provided: ${KEY}.`, code: 'invalid_api_key' },
        },
      ],
    },
  });
  const app = createSwitchboard();
  app.registerChatCompletionsAgent(agent('chat'));
  app.registerResponsesAgent(agent('responses'));
  app.registerChatCompletionsAgent(agent('chat-captured', { telemetry: { captureContent: true } }));
  // One model call a turn: a turn that calls a tool stops at max_turns, and a continue carries it on.
  app.registerChatCompletionsAgent(agent('chat-short', { maxTurns: 1 }));
  for (const [id, telemetry] of [
    ['sdk', undefined],
    ['sdk-captured', { captureContent: true }],
  ] as const)
    app.registerSDKAgent({
      info: { id },
      ...(telemetry && { telemetry }),
      agent: new ToolLoopAgent({
        model: sdk.model,
        stopWhen: isStepCount(4),
        tools: {
          forecast: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => ({ city, sky: 'sunny' }),
          }),
        },
      }),
    });
  sandbox = await testSandbox({ app, traces: { processors: [new SimpleSpanProcessor({ exporter })] } });
});
afterAll(async () => {
  await sandbox?.close();
  await model?.close();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
let traces = 0;

/** Sends a message with a trace of its own; returns the trace's spans once the worker's turn has ended. */
async function turnSpans(sessionId: string, agentId: string, content: string, status = 200) {
  const traceId = `0af7651916cd43dd8448eb2110${String(++traces).padStart(6, '0')}`;
  const res = await api(
    sandbox.url,
    'POST',
    '/api/chat',
    { session_id: sessionId, agent_id: agentId, content, wait_ms: 15_000 },
    { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } },
  );
  expect(res.status, res.text).toBe(status);
  const spansOf = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  // The turn that ran the agent (a job delivered again while a slow first turn ran has a turn span
  // of its own, which finds the run taken and runs nothing).
  const ran = (s: ReadableSpan) => s.name === 'turn' && s.attributes['gen_ai.agent.id'] !== undefined;
  await expect.poll(() => spansOf().some(ran), queued('the turn span')).toBe(true);
  const spans = spansOf();
  const turn = spans.find(ran)!;
  return { spans, turn, under: (s: ReadableSpan) => parentOf(s) === turn.spanContext().spanId };
}

/** Every attribute, event and status text of the spans, as one string. */
const everything = (spans: ReadableSpan[]) =>
  JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      status: s.status,
      links: s.links.map((l) => l.attributes),
    })),
  );

describe('model spans', () => {
  for (const kind of ['chat', 'responses'] as const)
    it(`${kind}: a chat span per model call, an execute_tool span per tool, no content`, async () => {
      const { spans, turn, under } = await turnSpans(`traced-${kind}`, kind, `The ${SECRET_PROMPT}?`);
      expect(turn.attributes['gen_ai.agent.id']).toBe(kind);
      expect(turn.attributes['switchboard.agent.id']).toBe(kind);
      expect(turn.attributes['gen_ai.conversation.id']).toBe(`traced-${kind}`);
      const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(under(chat)).toBe(true);
        expect(chat.kind).toBe(2); // CLIENT
        expect(chat.name).toMatch(/^chat scripted-small/);
        expect(chat.attributes).toMatchObject({
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'scripted-small',
          'server.address': '127.0.0.1',
        });
        expect(chat.attributes['gen_ai.response.model']).toBeTypeOf('string');
      }
      const [first, second] = [...chats].sort(
        (a, b) => a.startTime[1] - b.startTime[1] + (a.startTime[0] - b.startTime[0]) * 1e9,
      );
      expect(first!.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      });
      expect(second!.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 150,
        'gen_ai.usage.output_tokens': 4,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      // The answer streamed text: the time to its first token.
      expect(second!.events.map((e) => e.name)).toContain('gen_ai.first_token');
      expect(second!.attributes['switchboard.gen_ai.time_to_first_token_ms']).toBeTypeOf('number');
      const tool = spans.find((s) => s.name === 'execute_tool weather')!;
      expect(tool).toBeDefined();
      expect(under(tool)).toBe(true);
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'weather',
        'gen_ai.tool.call.id': 'call_w',
        'switchboard.tool.outcome': 'succeeded',
      });
      // Names, counts and ids: no prompt, system prompt, tool result, answer or key.
      const all = everything(spans);
      for (const secret of SECRETS) expect(all).not.toContain(secret);
      expect(all).not.toContain('gen_ai.input.messages');
    });

  it('a tool that throws: its span failed, without its message', async () => {
    const { spans } = await turnSpans('traced-broken', 'chat', 'read the gauge');
    const tool = spans.find((s) => s.name === 'execute_tool broken')!;
    expect(tool.attributes['switchboard.tool.outcome']).toBe('failed');
    expect(tool.attributes['error.type']).toBe('Error');
    expect(tool.status.code).toBe(2); // ERROR
    expect(everything(spans)).not.toContain('Philomena');
  });

  it('a call that waits on an approval: its span says paused', async () => {
    const { spans } = await turnSpans('traced-refund', 'chat', 'refund order 7');
    const tool = spans.find((s) => s.name === 'execute_tool refund')!;
    expect(tool.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_r',
      'switchboard.tool.outcome': 'paused',
    });
    expect(tool.status.code).not.toBe(2);
  });

  it('a continue: its turn links the turn it carries on, stopped at max_turns', async () => {
    const stopped = await turnSpans('traced-continue', 'chat-short', 'The weather?');
    const runId = stopped.turn.attributes['switchboard.run.id'];
    // The turn span has ended: so has the turn, at max_turns.
    const events = (await api(sandbox.url, 'GET', '/api/sessions/traced-continue/events')).json.events as {
      type: string;
      run_id?: unknown;
      data: { stop_reason?: string };
    }[];
    const idle = events.find((e) => e.type === 'session.status_idle' && e.run_id === runId);
    expect(idle?.data.stop_reason).toBe('max_turns');
    const traceId = '5c4a1f6e9b2d4c7a8e3f0b1d2c3e4f5a';
    const res = await api(sandbox.url, 'POST', '/api/sessions/traced-continue/continue', undefined, {
      headers: { traceparent: `00-${traceId}-${traceId.slice(0, 16)}-01` },
    });
    expect(res.status, res.text).toBe(202);
    const ofRun = (s: ReadableSpan) => s.attributes['switchboard.run.id'] === res.json.run_id;
    const spansOf = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    await expect.poll(() => spansOf().some(ofRun), queued('the continue turn')).toBe(true);
    const continued = spansOf().find(ofRun)!;
    expect(continued.name).toBe('continue');
    // On the trace of the request that asked for it, and linked to the turn it carries on.
    const link = continued.links.find((l) => l.context.spanId === stopped.turn.spanContext().spanId);
    expect(link?.context.traceId).toBe(stopped.turn.spanContext().traceId);
    expect(link?.attributes).toEqual({ 'switchboard.link': 'stopped_turn' });
  });

  it('a failed model call: its span failed with error.type, the endpoint text redacted', async () => {
    const { spans } = await turnSpans('traced-leak', 'chat', 'leak it', 502);
    const chat = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat')!;
    expect(chat.status.code).toBe(2);
    expect(chat.attributes['error.type']).toBe('401');
    expect(chat.status.message).toContain('401');
    expect(everything(spans)).not.toContain(KEY);
    expect(everything(spans)).not.toContain(KEY.slice(0, 12));
  });

  it('content capture on: the prompt, the answer and the tool call on the spans', async () => {
    const { spans } = await turnSpans('traced-captured', 'chat-captured', `The ${SECRET_PROMPT}?`);
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    const input = chats.map((c) => String(c.attributes['gen_ai.input.messages']));
    expect(input.every((i) => i.includes('Philomena'))).toBe(true);
    expect(JSON.parse(input[0]!)).toEqual(
      expect.arrayContaining([{ role: 'user', parts: [{ type: 'text', content: `The ${SECRET_PROMPT}?` }] }]),
    );
    expect(chats.some((c) => String(c.attributes['gen_ai.system_instructions']).includes('Zanzibar'))).toBe(
      true,
    );
    expect(chats.some((c) => String(c.attributes['gen_ai.output.messages']).includes('It is sunny.'))).toBe(
      true,
    );
    const tool = spans.find((s) => s.name === 'execute_tool weather')!;
    expect(tool.attributes['gen_ai.tool.call.result']).toContain('sunny');
    expect(everything(spans)).not.toContain(KEY);
  });
});

describe('the telemetry setting', () => {
  it('is checked with the definition', () => {
    const app = createSwitchboard();
    expect(() =>
      app.registerChatCompletionsAgent(agent('bad', { telemetry: { captureContent: 'yes' as never } })),
    ).toThrow(/telemetry must be an object whose captureContent is true or false/);
  });
});

describe('AI SDK spans', () => {
  it('a chat span per step of the SDK and an execute_tool span per tool it runs', async () => {
    const { spans, turn, under } = await turnSpans('traced-sdk', 'sdk', 'sdk weather for Philomena');
    expect(turn.attributes['gen_ai.agent.id']).toBe('sdk');
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(under(chat)).toBe(true);
      expect(chat.name).toBe('chat mock-model');
      expect(chat.attributes).toMatchObject({
        'gen_ai.response.model': 'mock-model',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
      });
    }
    expect(chats.flatMap((c) => c.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([
      'stop',
      'tool_calls',
    ]);
    const tool = spans.find((s) => s.name === 'execute_tool forecast')!;
    expect(under(tool)).toBe(true);
    expect(tool.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'sdk_call_1',
      'switchboard.tool.outcome': 'succeeded',
    });
    const all = everything(spans);
    for (const secret of ['Philomena', 'sunny', 'Sunny']) expect(all).not.toContain(secret);
  });

  it('content capture on: the first step’s input, each step’s output, the tool’s result', async () => {
    const { spans } = await turnSpans(
      'traced-sdk-captured',
      'sdk-captured',
      'sdk captured weather for Philomena',
    );
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.some((c) => String(c.attributes['gen_ai.input.messages']).includes('Philomena'))).toBe(true);
    expect(chats.some((c) => String(c.attributes['gen_ai.output.messages']).includes('Sunny days.'))).toBe(
      true,
    );
    const tool = spans.find((s) => s.name === 'execute_tool forecast')!;
    expect(tool.attributes['gen_ai.tool.call.arguments']).toContain('Paris');
    expect(tool.attributes['gen_ai.tool.call.result']).toContain('sunny');
  });
});
