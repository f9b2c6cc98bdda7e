import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Query } from '../../lib/aws/index.ts';
import { createSwitchboard, type ModelAgentDefinition } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { captureOutput } from '../support/capture.ts';
import { ISSUES_CONTEXT, MODEL_KEY, MODEL_SCRIPT, modelAgent, refunds } from '../support/model-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/** Everything written to stdout, stderr and the console while the file runs (no secret may be in it). */
let printed: ReturnType<typeof captureOutput>;

/** The secret that holds the scripted model's key, as the construct's `models.secrets` names one. */
const MODEL_KEY_SECRET = 'support/model-key';

let model: ScriptedModel;
let sandbox: Sandbox;
let host: TestSocket;

beforeAll(async () => {
  printed = captureOutput();
  model = await startScriptedModel({ script: MODEL_SCRIPT, apiKey: MODEL_KEY });
  const app = createSwitchboard();
  for (const kind of ['chat', 'responses'] as const) {
    const register = (d: ModelAgentDefinition) =>
      kind === 'chat' ? app.registerChatCompletionsAgent(d) : app.registerResponsesAgent(d);
    register(modelAgent(kind, model.baseURL));
    register(modelAgent(`${kind}-capped`, model.baseURL, { budget: { sessionUsd: 0.5 } }));
    register(modelAgent(`${kind}-short`, model.baseURL, { maxTurns: 2 }));
  }
  const fromSecret = (id: string, secret: string) => {
    const { apiKey: _, ...agent } = modelAgent(id, model.baseURL);
    return { ...agent, apiKeyFromSecret: secret };
  };
  app.registerChatCompletionsAgent(fromSecret('chat-secret', MODEL_KEY_SECRET));
  app.registerChatCompletionsAgent(fromSecret('chat-ungranted', 'support/not-granted'));
  sandbox = await testSandbox({
    app,
    modelSecrets: { [MODEL_KEY_SECRET]: JSON.stringify({ apiKey: MODEL_KEY }) },
    logLevel: 'INFO',
    settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await model?.close();
  printed?.restore();
});

/** Sends a message over the WebSocket and waits for the end of its turn: the run's events. */
const say = (sessionId: string, content: string, extra: Record<string, unknown> = {}) =>
  sendTurn(host, sessionId, content, extra);

const texts = (events: Frame[]) =>
  events
    .filter((e) => e.type === 'agent.message.delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');
const final = (events: Frame[]) =>
  events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
const bodiesSince = (from: number) =>
  model.requests.slice(from).map((r) => r.body as Record<string, unknown>);

type Body = Record<string, unknown>;
/** How each wire spells what the tests read of a request: the conversation, the tools, the last tool output. */
const WIRES = {
  chat: {
    path: '/v1/chat/completions',
    conversation: (b: Body) => b.messages as unknown[],
    toolNames: (b: Body) => (b.tools as { function: { name: string } }[]).map((t) => t.function.name),
    lastOutput: (b: Body) => {
      const last = (b.messages as { role: string; content: string }[]).at(-1);
      expect(last?.role).toBe('tool');
      return last?.content ?? '';
    },
    firstPrompt: [
      { role: 'system', content: 'You help people with their issues.' },
      { role: 'user', content: 'hello model' },
    ],
    toolTurn: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_weather',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_weather', content: '{"city":"Paris","sky":"sunny"}' },
    ],
    streamed: { stream: true, stream_options: { include_usage: true } },
  },
  responses: {
    path: '/v1/responses',
    conversation: (b: Body) => b.input as unknown[],
    toolNames: (b: Body) => (b.tools as { name: string }[]).map((t) => t.name),
    lastOutput: (b: Body) => {
      const last = (b.input as { type?: string; output: string }[]).at(-1);
      expect(last?.type).toBe('function_call_output');
      return last?.output ?? '';
    },
    firstPrompt: [{ role: 'user', content: [{ type: 'input_text', text: 'hello model' }] }],
    toolTurn: [
      { type: 'function_call', call_id: 'call_weather', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_weather', output: '{"city":"Paris","sky":"sunny"}' },
    ],
    streamed: { stream: true, store: false, instructions: 'You help people with their issues.' },
  },
};

describe.each([
  ['registerChatCompletionsAgent', 'chat'],
  ['registerResponsesAgent', 'responses'],
] as const)('%s', (_, kind) => {
  const wire = WIRES[kind];
  const sid = sessionIds(kind);
  it('streams the model’s text deltas as text events, and prices the endpoint’s usage', async () => {
    const id = sid('text');
    const { end, events } = await say(id, 'hello model', { agent_id: kind });
    expect(end.data).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
    expect(texts(events)).toBe('Hello there!');
    expect(final(events)).toMatchObject({
      content: 'Hello there!',
      usage: { inputTokens: 1000, outputTokens: 500, model: 'scripted-small', costUsd: 0.002 },
    });
    const request = model.requests.at(-1);
    expect(request?.path).toBe(wire.path);
    const body = request?.body as Body;
    expect(body).toMatchObject({ model: 'scripted-small', ...wire.streamed });
    expect(wire.conversation(body)).toEqual(wire.firstPrompt);
  });

  it('runs a backend tool in the worker (zod parameters), reports it as tool_use and tool_result, and goes on', async () => {
    const id = sid('tool');
    const from = model.requests.length;
    const { events } = await say(id, 'what is the weather?', { agent_id: kind });
    const use = events.find((e) => e.type === 'agent.tool_use');
    expect(use?.data).toMatchObject({ name: 'weather', args: { city: 'Paris' } });
    expect(events.find((e) => e.type === 'agent.tool_result')?.data).toMatchObject({
      result: { city: 'Paris', sky: 'sunny' },
    });
    expect(final(events)).toMatchObject({ content: 'It is sunny in Paris.' });
    const [, second] = bodiesSince(from);
    expect(wire.conversation(second as Body).slice(-2)).toEqual(wire.toolTurn);
  });

  it.each([
    ['succeeded', {}, 'Done: issue 2 is closed.'],
    ['failed', { tool_outcome: 'failed' }, 'Your page could not close it.'],
  ])(
    'offers the context’s actions as tools: a call pauses on the host, whose result (%s) goes back to the model',
    async (outcomeName, outcome, reply) => {
      const id = sid('host');
      const from = model.requests.length;
      const first = await say(id, 'please close issue 2', { agent_id: kind, host_context: ISSUES_CONTEXT });
      expect(first.end.type).toBe('session.status_requires_action');
      const pending = final(first.events).pending_tool_call as {
        call_id: string;
        tool_name: string;
        arguments: unknown;
      };
      expect(pending).toMatchObject({ tool_name: 'close_issue', arguments: { number: 2 } });
      const next = await say(id, '', {
        tool_call_id: pending.call_id,
        tool_result: outcomeName === 'failed' ? { reason: 'the issue is locked' } : { closed: 2 },
        ...outcome,
        host_context: { ...ISSUES_CONTEXT, view: { name: 'issues', data: { filter: 'closed' } } },
      });
      expect(next.end.data).toMatchObject({ status: 'completed' });
      expect(texts(next.events)).toBe(reply);
      const bodies = bodiesSince(from);
      expect(bodies).toHaveLength(2);
      expect(wire.toolNames(bodies[0] as Body)).toEqual(['close_issue', 'weather', 'refund', 'ask_user']);
      // The first request, replayed unchanged, is the second's prefix: the provider's cache holds.
      const before = wire.conversation(bodies[0] as Body);
      expect(wire.conversation(bodies[1] as Body).slice(0, before.length)).toEqual(before);
      const output = wire.lastOutput(bodies[1] as Body);
      expect(output).toMatch(
        outcomeName === 'failed' ? /^\{"error":\{"reason":"the issue is locked"\}\}/ : /^\{"closed":2\}/,
      );
      expect(output).toContain('\n\n<host_context>\n');
      expect(output).toContain('- filter: closed');
    },
  );

  it('asks approval for a tool that needs it; approved with edited arguments, the tool runs with them and the model goes on', async () => {
    const id = sid('approve');
    const first = await say(id, 'refund order 1042', { agent_id: kind });
    expect(first.end.type).toBe('session.status_requires_action');
    const session = (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json as {
      pending_actions: { id: string; type: string; request: Record<string, unknown> }[];
    };
    const [asked] = session.pending_actions;
    expect(asked).toMatchObject({
      type: 'tool_approval',
      request: { toolName: 'refund', title: 'Refund this order?', args: { order: 1042, amount: 25 } },
    });
    expect(asked?.request.argsSchema).toMatchObject({ properties: { amount: { maximum: 100 } } });
    // An edit outside the schema is refused by the server before the agent sees it.
    const refused = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
      approvedArgs: { order: 1042, amount: 500 },
    });
    expect(refused.status).toBe(422);
    const before = refunds.length;
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
      approvedArgs: { order: 1042, amount: 10 },
    });
    expect(res.status, res.text).toBe(202);
    const end = await host.waitFor(turnEnded(res.json.run_id, id), 'the end of the resolve run');
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(refunds.slice(before)).toEqual([{ order: 1042, amount: 10 }]);
    const events = host.events(id).filter((f) => f.run_id === res.json.run_id);
    expect(events.find((e) => e.type === 'agent.tool_result')?.data).toMatchObject({
      result: { refunded: 10 },
    });
    expect(texts(events)).toBe('The refund is done.');
  });

  it('tells the model a denied call was not run', async () => {
    const id = sid('deny');
    await say(id, 'refund order 1042', { agent_id: kind });
    const session = (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json as {
      pending_actions: { id: string }[];
    };
    const before = refunds.length;
    const from = model.requests.length;
    const res = await api(
      sandbox.url,
      'POST',
      `/api/sessions/${id}/actions/${session.pending_actions[0]?.id}`,
      {
        decision: 'deny',
        comment: 'not this one',
      },
    );
    expect(res.status, res.text).toBe(202);
    await host.waitFor(turnEnded(res.json.run_id, id), 'the end of the resolve run');
    expect(refunds.length).toBe(before);
    expect(JSON.parse(wire.lastOutput(bodiesSince(from)[0] as Body))).toEqual({
      error: 'The user denied this call; it was not run.',
      comment: 'not this one',
    });
    expect(texts(host.events(id).filter((f) => f.run_id === res.json.run_id))).toBe('All right: no refund.');
  });

  it('offers ask_user with questions: true; a call asks the person, and the answers go back to the model', async () => {
    const id = sid('question');
    const first = await say(id, 'help me choose a plan', { agent_id: kind });
    expect(first.end.type, JSON.stringify(first.events)).toBe('session.status_requires_action');
    const session = (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json as {
      pending_actions: { id: string; type: string; request: Record<string, unknown> }[];
    };
    const [asked] = session.pending_actions;
    expect(asked).toMatchObject({
      type: 'user_question',
      request: {
        questions: [{ question: 'Which plan?', options: [{ label: 'Starter' }, { label: 'Team' }] }],
      },
    });
    const from = model.requests.length;
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      answers: ['Team'],
    });
    expect(res.status, res.text).toBe(202);
    await host.waitFor(turnEnded(res.json.run_id, id), 'the end of the resolve run');
    expect(JSON.parse(wire.lastOutput(bodiesSince(from)[0] as Body))).toEqual({ answers: ['Team'] });
    expect(texts(host.events(id).filter((f) => f.run_id === res.json.run_id))).toBe('Team it is.');
  });

  it('makes a silent host decision with tool_choice required, offering only the actions and hold', async () => {
    const id = sid('silent');
    const from = model.requests.length;
    const { events } = await say(id, 'decide now', {
      agent_id: kind,
      output_mode: 'host_tools',
      host_context: ISSUES_CONTEXT,
    });
    expect(final(events)).toMatchObject({
      decision: 'pending',
      pending_tool_call: { tool_name: 'close_issue', arguments: { number: 3 } },
    });
    const [body] = bodiesSince(from);
    expect(body?.tool_choice).toBe('required');
    expect(wire.toolNames(body as Body)).toEqual(['close_issue', 'hold']);
    expect(events.filter((e) => e.type === 'agent.message.delta')).toEqual([]);
  });

  it('aborts the model’s HTTP request when the turn is cancelled mid-stream (the endpoint sees the disconnect)', async () => {
    const id = sid('cancel');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: kind,
      content: 'a long story',
    });
    await host.waitFor((f) => f.session_id === id && f.type === 'agent.message.delta', 'the first delta');
    const disconnects = model.disconnects.length;
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).status).toBe(202);
    const end = await host.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn');
    expect(end.data).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    await expect.poll(() => model.disconnects.length, queued('the disconnect')).toBe(disconnects + 1);
  });

  it('stops the session at its budget: the turn that crosses it completes, the next message is a 402', async () => {
    const id = sid('budget');
    const { end } = await say(id, 'something expensive', { agent_id: `${kind}-capped` });
    expect(end.data).toMatchObject({ spent_usd: 1 });
    const next = await api(sandbox.url, 'POST', '/api/chat', { session_id: id, content: 'hello again' });
    expect(next.status).toBe(402);
  });

  it('lets the client retry a 429 itself, once, and the turn answers', async () => {
    const id = sid('retry');
    // The 429 rule answers once: the script again, so that it answers this test's first attempt.
    model.setScript(MODEL_SCRIPT);
    const from = model.requests.length;
    const { events } = await say(id, 'are you busy?', { agent_id: kind });
    expect(texts(events)).toBe('Sorry for the wait.');
    expect(model.requests.slice(from).map((r) => r.status)).toEqual([429, 200]);
  });

  it('fails the turn with the endpoint’s status and message on a model error, and no log shows the key', async () => {
    const id = sid('error');
    const { end, events } = await say(id, 'explode please', { agent_id: kind });
    expect(end.data).toMatchObject({ status: 'error', stop_reason: 'error' });
    expect(events.find((e) => e.type === 'session.error')?.data).toEqual({
      code: 'model_error',
      message:
        'The model endpoint answered 400 (invalid_request_error, bad_prompt): The prompt is not allowed here.',
      status: 502,
    });
    expect(printed.text()).toContain('The prompt is not allowed here.');
    expect(printed.text()).not.toContain(MODEL_KEY);
    expect(JSON.stringify(host.frames)).not.toContain(MODEL_KEY);
  });

  it('redacts an endpoint’s error that echoes the key: no frame, stored item, answer or log line holds it', async () => {
    const id = sid('leak');
    const echoed = [MODEL_KEY, MODEL_KEY.slice(0, 8), MODEL_KEY.slice(-8)];
    const { end, events } = await say(id, 'leak the key', { agent_id: kind });
    expect(end.data).toMatchObject({ status: 'error', stop_reason: 'error' });
    const message =
      'The model endpoint answered 401 (invalid_request_error, invalid_api_key): Incorrect API key provided: [redacted] (sent as [redacted]).';
    expect(events.find((e) => e.type === 'session.error')?.data).toEqual({
      code: 'model_error',
      message,
      status: 502,
    });
    const session = await api(sandbox.url, 'GET', `/api/sessions/${id}`);
    expect(session.json.last_run).toMatchObject({ status: 'error', error: { code: 'model_error', message } });
    const log = await api(sandbox.url, 'GET', `/api/sessions/${id}/events`);
    const { Items = [] } = await sandbox.runtime.db.send(
      new Query({
        TableName: sandbox.runtime.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.session(refOf(id)).pk },
      }),
    );
    // The redacted error reached each place, and the key none of them.
    expect(printed.text()).toContain('Incorrect API key provided: [redacted]');
    expect(JSON.stringify(Items)).toContain('Incorrect API key provided: [redacted]');
    const places = {
      frames: JSON.stringify(host.frames),
      session: JSON.stringify(session.json),
      events: JSON.stringify(log.json),
      stored: JSON.stringify(Items),
      logs: printed.text(),
    };
    for (const [where, text] of Object.entries(places))
      for (const part of echoed) expect(text, `${where} holds ${part}`).not.toContain(part);
  });

  it('fails a reply past the bound on its text with model_error, and the session stays readable', async () => {
    const id = sid('endless');
    const { end, events } = await say(id, 'an endless story', { agent_id: kind });
    expect(end.data).toMatchObject({ status: 'error', stop_reason: 'error' });
    expect(events.find((e) => e.type === 'session.error')?.data).toEqual({
      code: 'model_error',
      message: "The model endpoint's reply is too large: its text passed 1 MiB.",
      status: 502,
    });
    for (const path of [
      `/api/sessions/${id}`,
      `/api/sessions/${id}/messages`,
      `/api/sessions/${id}/events`,
    ]) {
      const res = await api(sandbox.url, 'GET', path);
      expect(res.status, path).toBe(200);
    }
    // The session takes the next message.
    const next = await say(id, 'hello model', { agent_id: kind });
    expect(next.end.data).toMatchObject({ status: 'completed' });
  });

  it('sends the model the committed prompt for a fixed conversation: host context, attachments, a continuation', async () => {
    const id = sid('fixture');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
    await say(id, 'hello model', {
      agent_id: kind,
      host_context: ISSUES_CONTEXT,
      attachments: [
        { kind: 'text', text: 'The release notes.' },
        { data_uri: `data:image/png;base64,${png}` },
      ],
    });
    const first = await say(id, 'now close issue 2', { host_context: ISSUES_CONTEXT });
    const call = final(first.events).pending_tool_call as { call_id: string };
    const from = model.requests.length;
    await say(id, '', {
      tool_call_id: call.call_id,
      tool_result: { closed: 2 },
      host_context: { ...ISSUES_CONTEXT, view: { name: 'issues', data: { filter: 'closed' } } },
    });
    const [body] = bodiesSince(from);
    await expect(`${JSON.stringify(body, null, 2)}\n`).toMatchFileSnapshot(
      `../fixtures/models/${kind}-prompt.json`,
    );
  });

  it('stops after maxTurns model calls with stopReason max_turns', async () => {
    const id = sid('turns');
    const { end } = await say(id, 'loop forever', { agent_id: `${kind}-short` });
    expect(end.data).toMatchObject({ stop_reason: 'max_turns' });
  });
});

describe('apiKeyFromSecret', () => {
  const sid = sessionIds('secret');
  it('reads the key from the secret the worker is granted, and the model answers', async () => {
    const { end, events } = await say(sid('granted'), 'hello model', { agent_id: 'chat-secret' });
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(texts(events)).toBe('Hello there!');
  });

  it('is refused a secret the worker is not granted, and no other function may read a granted one', async () => {
    const { end, events } = await say(sid('ungranted'), 'hello model', { agent_id: 'chat-ungranted' });
    expect(end.data).toMatchObject({ status: 'error' });
    expect(JSON.stringify(events)).not.toContain(MODEL_KEY);
    // The sandbox's fronts judge each call by the stack's grants: only the worker reads model keys.
    await expect(sandbox.runtimes.http.secret(MODEL_KEY_SECRET)).rejects.toThrow(/not authorized/);
    await expect(sandbox.runtimes.worker.secret('support/not-granted')).rejects.toThrow(/not authorized/);
    expect(JSON.parse(await sandbox.runtimes.worker.secret(MODEL_KEY_SECRET))).toEqual({ apiKey: MODEL_KEY });
    expect(printed.text()).not.toContain(MODEL_KEY);
  });
});
