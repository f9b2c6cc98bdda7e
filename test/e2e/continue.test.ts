import { isStepCount, ToolLoopAgent, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createClient, type SwitchboardEvent } from '../../client/index.ts';
import { createSwitchboard, type ModelAgentDefinition } from '../../lib/index.ts';
import { getBlob, getRun } from '../../lib/store/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { call, HANG, say, scriptedModel } from '../support/ai-sdk-model.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * Continue: a turn whose loop stopped at `max_turns` is carried on by `POST /api/sessions/{id}/continue`
 * (and `assistant_continue`, and the client's `session.continueTurn()`): the same loop goes on with the
 * model's own next call, no new user message. Against the scripted model (Chat Completions and
 * Responses, two model calls a turn) and an AI SDK agent (two steps a turn), each asked to count to
 * three with a tool: the turn stops after two steps, the continue makes the two calls left.
 */

const STEP_PARAMETERS = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
};
const SCRIPT = {
  rules: [
    {
      match: 'count to three',
      on: 'user' as const,
      reply: { text: 'Counting. ', toolCalls: [{ name: 'step', arguments: { n: 1 } }] },
    },
    {
      match: 'step 1 done',
      on: 'tool' as const,
      reply: { toolCalls: [{ name: 'step', arguments: { n: 2 } }] },
    },
    {
      match: 'step 2 done',
      on: 'tool' as const,
      reply: { toolCalls: [{ name: 'step', arguments: { n: 3 } }] },
    },
    { match: 'step 3 done', on: 'tool' as const, reply: { text: 'Counted to three.' } },
    {
      match: 'look then count',
      on: 'user' as const,
      reply: { toolCalls: [{ name: 'look_at_screen' }, { name: 'step', arguments: { n: 1 } }] },
    },
  ],
  default: { text: 'Nothing to say.' },
};

/** The AI SDK's mock model: each session's script by its first message. */
const sdkSteps = (key: string) => [
  call([{ id: `${key}_1`, name: 'step', input: { n: 1 } }], 'Counting. '),
  call([{ id: `${key}_2`, name: 'step', input: { n: 2 } }]),
  call([{ id: `${key}_3`, name: 'step', input: { n: 3 } }]),
  say('Counted to three.'),
];
const sdk = scriptedModel({
  'sdk http count': sdkSteps('http'),
  'sdk ws count': sdkSteps('ws'),
  'sdk later count': sdkSteps('later'),
  'sdk stop count': [...sdkSteps('stop').slice(0, 2), HANG],
});

/** A 1×1 PNG, as a page's screenshot. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SCREENSHOT = { kind: 'image', purpose: 'screenshot', data_uri: `data:image/png;base64,${PNG}` };
/** More than a run item keeps inline (64 KB): the resume state goes to the bucket. */
const BIG = 'x'.repeat(70_000);

const TOKENS: Record<string, { user: string }> = { alice: { user: 'alice' }, bob: { user: 'bob' } };
let model: ScriptedModel;
let sandbox: Sandbox;
let socket: TestSocket;
const sid = sessionIds('continue');

beforeAll(async () => {
  model = await startScriptedModel({ script: SCRIPT });
  const app = createSwitchboard({ pricing: { 'scripted-small': { input: 1_000_000, output: 1_000_000 } } });
  const step = {
    name: 'step',
    parameters: STEP_PARAMETERS,
    execute: async (args: unknown) => `step ${(args as { n: number }).n} done`,
  };
  for (const kind of ['chat', 'responses'] as const) {
    const base: ModelAgentDefinition = {
      info: { id: kind },
      baseURL: model.baseURL,
      apiKey: 'sk-scripted',
      model: 'scripted-small',
      maxTurns: 2,
      tools: [step],
    };
    // The same agent with a budget the first turn spends (each model call costs cents at this price).
    const capped = { ...base, info: { id: `${kind}-capped` }, budget: { sessionUsd: 0.000_001 } };
    if (kind === 'chat') {
      app.registerChatCompletionsAgent(base);
      app.registerChatCompletionsAgent(capped);
    } else {
      app.registerResponsesAgent(base);
      app.registerResponsesAgent(capped);
    }
  }
  // One model call a turn, and a tool whose result is large.
  app.registerChatCompletionsAgent({
    info: { id: 'big' },
    baseURL: model.baseURL,
    apiKey: 'sk-scripted',
    model: 'scripted-small',
    maxTurns: 1,
    tools: [{ ...step, execute: async (args: unknown) => `${BIG} ${await step.execute(args)}` }],
  });
  app.registerSDKAgent({
    info: { id: 'sdk' },
    agent: new ToolLoopAgent({
      model: sdk.model,
      tools: {
        step: tool({
          description: 'Count one step',
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }) => `step ${n} done`,
        }),
      },
      stopWhen: isStepCount(2),
    }),
  });
  // A host agent whose own loop stopped: nothing hands it back, so it cannot be continued.
  app.registerHostAgent({
    info: { id: 'host' },
    invoke: async (_input, { emit }) => {
      emit({ type: 'text', text: 'I ran out of steps.' });
      return { status: 'incomplete', stopReason: 'max_turns' };
    },
  });
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
  socket = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
}, 60_000);
afterAll(async () => {
  await socket?.close();
  await sandbox?.close();
  await model?.close();
});

const as = (token: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

type Event = { type: string; run_id?: unknown; data: Record<string, unknown> };

/** The events of one run, once it has ended, read over HTTP. */
async function runEvents(sessionId: string, runId: unknown): Promise<Event[]> {
  const read = async () =>
    ((await as('alice', 'GET', `/api/sessions/${sessionId}/events`)).json.events as Event[]).filter(
      (e) => e.run_id === runId,
    );
  await expect
    .poll(
      async () =>
        (await read()).some(
          (e) => e.type.startsWith('session.status_') && e.type !== 'session.status_running',
        ),
      queued(`the end of run ${String(runId)}`),
    )
    .toBe(true);
  return read();
}
const idleOf = (events: Event[]) => events.find((e) => e.type === 'session.status_idle')?.data;
const finalOf = (events: Event[]) =>
  events.find((e) => e.type === 'final_response')?.data as { content: string } | undefined;

/** A message over HTTP, and its run's events once it has ended. */
async function sendHttp(sessionId: string, agentId: string, content: string) {
  const sent = await as('alice', 'POST', '/api/chat', { session_id: sessionId, agent_id: agentId, content });
  expect(sent.status, sent.text).toBe(202);
  return { runId: sent.json.run_id, events: await runEvents(sessionId, sent.json.run_id) };
}

/** The conversation one request to the scripted model held: its user messages, and its last item. */
function conversationOf(body: unknown): { users: number; last: Record<string, unknown> } {
  const b = body as { messages?: Record<string, unknown>[]; input?: Record<string, unknown>[] };
  const items = b.messages ?? b.input ?? [];
  return { users: items.filter((m) => m.role === 'user').length, last: items.at(-1) ?? {} };
}
/** Whether that last item is the result of the tool call that answered `step 2`. */
const endsWithStep2 = (last: Record<string, unknown>) =>
  (last.role === 'tool' || last.type === 'function_call_output') &&
  JSON.stringify(last.content ?? last.output).includes('step 2 done');

describe.each(['chat', 'responses'] as const)('the %s loop, stopped at max_turns', (kind) => {
  it('is carried on over HTTP: the calls left, no new user message, one run for a repeated request id', async () => {
    const id = sid(`http-${kind}`);
    const before = model.requests.length;
    const stopped = await sendHttp(id, kind, 'Please count to three.');
    expect(idleOf(stopped.events)).toMatchObject({ status: 'incomplete', stop_reason: 'max_turns' });
    expect(model.requests.length - before).toBe(2);

    const from = model.requests.length;
    const continued = await as('alice', 'POST', `/api/sessions/${id}/continue`, { id: `again-${kind}` });
    expect(continued.status, continued.text).toBe(202);
    expect(continued.json).toMatchObject({ status: 'queued', duplicate: false });
    const events = await runEvents(id, continued.json.run_id);
    expect(events.find((e) => e.type === 'session.status_running')?.data).toMatchObject({
      kind: 'continue',
      continues: stopped.runId,
    });
    expect(idleOf(events)).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
    expect(finalOf(events)?.content).toBe('Counted to three.');
    // The two calls left: the first goes on from the stopped turn's tool result, with no new user message.
    const requests = model.requests.slice(from);
    expect(requests).toHaveLength(2);
    const first = conversationOf(requests[0]?.body);
    expect(first.users).toBe(1);
    expect(endsWithStep2(first.last), JSON.stringify(first.last)).toBe(true);
    expect(conversationOf(requests[1]?.body).users).toBe(1);
    expect(events.some((e) => e.type === 'user.message')).toBe(false);

    // The same request id again: the same run, and no model call.
    const repeated = await as('alice', 'POST', `/api/sessions/${id}/continue`, { id: `again-${kind}` });
    expect(repeated.status).toBe(202);
    expect(repeated.json).toMatchObject({ run_id: continued.json.run_id, duplicate: true });
    // The turn completed now: nothing left to continue.
    const done = await as('alice', 'POST', `/api/sessions/${id}/continue`, {});
    expect(done).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_continue' } } });
    expect(model.requests.length - from).toBe(2);
    // The conversation: the question, the stopped answer, the continued one.
    const messages = await as('alice', 'GET', `/api/sessions/${id}/messages`);
    expect((messages.json.messages as { role: string }[]).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'assistant',
    ]);
  });

  it('is carried on over the WebSocket', async () => {
    const id = sid(`ws-${kind}`);
    const sent = await socket.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: kind,
      content: 'Please count to three.',
    });
    expect(sent.type, JSON.stringify(sent)).toBe('assistant:accepted');
    const stopped = await socket.waitFor(turnEnded(sent.run_id, id), 'the stopped turn');
    expect(stopped.data).toMatchObject({ status: 'incomplete', stop_reason: 'max_turns' });
    const from = model.requests.length;
    const accepted = await socket.request({ action: 'assistant_continue', session_id: id });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    const end = await socket.waitFor(turnEnded(accepted.run_id, id), 'the continued turn');
    expect(end.data).toMatchObject({ status: 'completed' });
    const answer = socket
      .events(id)
      .find((f: Frame) => f.type === 'final_response' && f.run_id === accepted.run_id);
    expect(answer?.data).toMatchObject({ content: 'Counted to three.' });
    expect(model.requests.length - from).toBe(2);
    expect(conversationOf(model.requests[from]?.body).users).toBe(1);
  });

  it('is not carried on after a later message, nor while the budget is spent', async () => {
    const id = sid(`later-${kind}`);
    await sendHttp(id, kind, 'Please count to three.');
    const later = await sendHttp(id, kind, 'hello');
    expect(idleOf(later.events)).toMatchObject({ status: 'completed' });
    const refused = await as('alice', 'POST', `/api/sessions/${id}/continue`);
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_continue' } } });

    const capped = sid(`capped-${kind}`);
    // The budget stops the loop before its next model call: a stop continue takes, once it has room.
    const spent = await sendHttp(capped, `${kind}-capped`, 'Please count to three.');
    expect(idleOf(spent.events)).toMatchObject({ status: 'incomplete', stop_reason: 'budget_reached' });
    const from = model.requests.length;
    const broke = await as('alice', 'POST', `/api/sessions/${capped}/continue`);
    expect(broke).toMatchObject({ status: 402, json: { error: { code: 'budget_exceeded' } } });
    expect(model.requests.length).toBe(from);
  });
});

describe('an AI SDK agent stopped by its stopWhen', () => {
  const lastPrompt = () => sdk.prompts.at(-1)?.prompt as { role: string }[];

  it('stops incomplete at max_turns, and is carried on over HTTP and the WebSocket from its own messages', async () => {
    const id = sid('sdk-http');
    const stopped = await sendHttp(id, 'sdk', 'sdk http count');
    expect(idleOf(stopped.events)).toMatchObject({ status: 'incomplete', stop_reason: 'max_turns' });
    const from = sdk.prompts.length;
    const continued = await as('alice', 'POST', `/api/sessions/${id}/continue`, { id: 'sdk-once' });
    expect(continued.status, continued.text).toBe(202);
    const events = await runEvents(id, continued.json.run_id);
    expect(idleOf(events)).toMatchObject({ status: 'completed' });
    expect(finalOf(events)?.content).toBe('Counted to three.');
    expect(sdk.prompts.length - from).toBe(2);
    const first = sdk.prompts[from]?.prompt as { role: string }[];
    expect(first.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(first.at(-1)?.role).toBe('tool');
    expect(lastPrompt().filter((m) => m.role === 'user')).toHaveLength(1);

    const ws = sid('sdk-ws');
    const sent = await socket.request({
      action: 'assistant_message',
      session_id: ws,
      agent_id: 'sdk',
      content: 'sdk ws count',
    });
    await socket.waitFor(turnEnded(sent.run_id, ws), 'the stopped turn');
    const accepted = await socket.request({
      action: 'assistant_continue',
      session_id: ws,
      id: 'sdk-ws-once',
    });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    const end = await socket.waitFor(turnEnded(accepted.run_id, ws), 'the continued turn');
    expect(end.data).toMatchObject({ status: 'completed' });
  });

  it('is the session’s running turn while it runs: a message waits behind it, a cancel stops it', async () => {
    const id = sid('sdk-stop');
    await sendHttp(id, 'sdk', 'sdk stop count');
    const continued = await as('alice', 'POST', `/api/sessions/${id}/continue`);
    expect(continued.status, continued.text).toBe(202);
    await expect
      .poll(
        async () =>
          (await as('alice', 'GET', `/api/sessions/${id}/events`)).text.includes('Once upon a time'),
        queued('the continued turn to stream'),
      )
      .toBe(true);
    const busy = await as('alice', 'POST', '/api/chat', { session_id: id, content: 'hi', on_busy: 'reject' });
    expect(busy).toMatchObject({ status: 409, json: { error: { code: 'session_busy' } } });
    const cancelled = await as('alice', 'POST', `/api/sessions/${id}/cancel`);
    expect(cancelled).toMatchObject({ status: 202, json: { run_ids: [continued.json.run_id] } });
    expect(idleOf(await runEvents(id, continued.json.run_id))).toMatchObject({ status: 'cancelled' });
  });

  it('is not carried on after a later message', async () => {
    const id = sid('sdk-later');
    await sendHttp(id, 'sdk', 'sdk later count');
    await sendHttp(id, 'sdk', 'sdk later count, again');
    const refused = await as('alice', 'POST', `/api/sessions/${id}/continue`);
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_continue' } } });
  });
});

describe('the resume state', () => {
  it('is claim-checked to the bucket when large, holds no screenshot, and goes with the session', async () => {
    const id = sid('big');
    const sent = await as('alice', 'POST', '/api/chat', {
      session_id: id,
      agent_id: 'big',
      content: 'Please look then count.',
      attachments: [SCREENSHOT],
    });
    expect(sent.status, sent.text).toBe(202);
    const stopped = await runEvents(id, sent.json.run_id);
    expect(idleOf(stopped)).toMatchObject({ status: 'incomplete', stop_reason: 'max_turns' });
    const run = await getRun(sandbox.runtime, refOf(id, 'alice'), String(sent.json.run_id));
    expect(run?.resume ?? undefined).toBeUndefined();
    expect(run?.resumeKey).toMatch(/^actions\//);
    const kept = JSON.stringify(await getBlob(sandbox.runtime, run?.resumeKey ?? ''));
    expect(kept).toContain('step 1 done');
    expect(kept).not.toContain(PNG);

    const from = model.requests.length;
    const continued = await as('alice', 'POST', `/api/sessions/${id}/continue`);
    expect(continued.status, continued.text).toBe(202);
    expect(idleOf(await runEvents(id, continued.json.run_id))).toMatchObject({ status: 'completed' });
    const body = JSON.stringify(model.requests[from]?.body);
    expect(body).toContain('step 1 done');
    expect(body).not.toContain(PNG);

    expect((await as('alice', 'DELETE', `/api/sessions/${id}`)).status).toBe(202);
    await expect
      .poll(
        () =>
          getBlob(sandbox.runtime, run?.resumeKey ?? '').then(
            () => 'there',
            () => 'gone',
          ),
        queued('the deleted session’s objects to go'),
      )
      .toBe('gone');
  });
});

describe('what cannot be continued', () => {
  it('a host agent’s stopped turn: nothing hands its loop back', async () => {
    const id = sid('host');
    const stopped = await sendHttp(id, 'host', 'go on');
    expect(idleOf(stopped.events)).toMatchObject({ status: 'incomplete', stop_reason: 'max_turns' });
    const refused = await as('alice', 'POST', `/api/sessions/${id}/continue`);
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_continue' } } });
  });

  it('another user’s session: 404, as a missing one', async () => {
    const id = sid('owned');
    await sendHttp(id, 'chat', 'Please count to three.');
    const other = await as('bob', 'POST', `/api/sessions/${id}/continue`);
    expect(other).toMatchObject({ status: 404, json: { error: { code: 'session_not_found' } } });
    const bad = await as('alice', 'POST', `/api/sessions/${id}/continue`, { id: 'x', extra: true });
    expect(bad).toMatchObject({ status: 422, json: { error: { code: 'validation_error' } } });
  });
});

describe('the client', () => {
  it('carries the stopped turn on with session.continueTurn()', async () => {
    const id = sid('client');
    await sendHttp(id, 'chat', 'Please count to three.');
    // The log read over HTTP: the sandbox's test tokens (`tokens`) are read from a query or a bearer header.
    const client = createClient({ url: sandbox.url, token: 'alice', transport: 'http' });
    try {
      const session = client.session(id, { afterSeq: 0 });
      const accepted = await session.continueTurn();
      expect(accepted).toMatchObject({ status: 'queued' });
      const end = await session.next(
        (e: SwitchboardEvent) => e.type === 'session.status_idle' && e.run_id === accepted.run_id,
        { timeoutMs: 15_000 },
      );
      expect(end.data).toMatchObject({ status: 'completed' });
    } finally {
      client.close();
    }
  });
});
