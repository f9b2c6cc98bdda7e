import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { ISSUES_CONTEXT, MODEL_KEY, MODEL_SCRIPT, modelAgent, refunds } from '../support/model-agents.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/** Everything written to stdout, stderr and the console while the file runs: no key may be in it. */
const captured: string[] = [];
const restore: (() => void)[] = [];
function capture(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (write as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      captured.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 10 }))).join(' '));
      original.apply(console, args);
    };
    restore.push(() => {
      console[method] = original;
    });
  }
}

let model: ScriptedModel;
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('chat');

beforeAll(async () => {
  capture();
  model = await startScriptedModel({ script: MODEL_SCRIPT, apiKey: MODEL_KEY });
  const app = createSwitchboard();
  app.registerChatCompletionsAgent(modelAgent('chat', model.baseURL));
  app.registerChatCompletionsAgent(modelAgent('capped', model.baseURL, { budget: { sessionUsd: 0.5 } }));
  app.registerChatCompletionsAgent(modelAgent('short', model.baseURL, { maxTurns: 2 }));
  sandbox = await testSandbox({
    app,
    logLevel: 'INFO',
    settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await model?.close();
  for (const undo of restore) undo();
});

/** Sends a message over the WebSocket and waits for the end of its turn: the run's events. */
async function say(sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: sessionId,
    content,
    ...extra,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  const end = await host.waitFor(turnEnded(accepted.run_id, sessionId), 'the end of the turn');
  return { end, events: host.events(sessionId).filter((f) => f.run_id === accepted.run_id) };
}

const texts = (events: Frame[]) =>
  events
    .filter((e) => e.type === 'agent.message.delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');
const final = (events: Frame[]) =>
  events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
const bodiesSince = (from: number) =>
  model.requests.slice(from).map((r) => r.body as Record<string, unknown>);

describe('registerChatCompletionsAgent', () => {
  it('streams the model’s text deltas as text events, and prices the endpoint’s usage', async () => {
    const id = sid('text');
    const { end, events } = await say(id, 'hello model', { agent_id: 'chat' });
    expect(end.data).toMatchObject({ status: 'completed', stop_reason: 'end_turn' });
    expect(texts(events)).toBe('Hello there!');
    expect(final(events)).toMatchObject({
      content: 'Hello there!',
      usage: { inputTokens: 1000, outputTokens: 500, model: 'scripted-small', costUsd: 0.002 },
    });
    const body = model.requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'scripted-small',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You help people with their issues.' },
      { role: 'user', content: 'hello model' },
    ]);
  });

  it('runs a backend tool in the worker (zod parameters), reports it as tool_use and tool_result, and goes on', async () => {
    const id = sid('tool');
    const from = model.requests.length;
    const { events } = await say(id, 'what is the weather?', { agent_id: 'chat' });
    const use = events.find((e) => e.type === 'agent.tool_use');
    expect(use?.data).toMatchObject({ name: 'weather', args: { city: 'Paris' } });
    expect(events.find((e) => e.type === 'agent.tool_result')?.data).toMatchObject({
      result: { city: 'Paris', sky: 'sunny' },
    });
    expect(final(events)).toMatchObject({ content: 'It is sunny in Paris.' });
    const [, second] = bodiesSince(from);
    expect((second?.messages as unknown[]).slice(-2)).toEqual([
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
    ]);
  });

  it.each([
    ['succeeded', {}, 'Done: issue 2 is closed.'],
    ['failed', { tool_outcome: 'failed' }, 'Your page could not close it.'],
  ])(
    'offers the context’s actions as tools: a call pauses on the host, whose result (%s) goes back to the model',
    async (_, outcome, reply) => {
      const id = sid('host');
      const from = model.requests.length;
      const first = await say(id, 'please close issue 2', { agent_id: 'chat', host_context: ISSUES_CONTEXT });
      expect(first.end.type).toBe('session.status_requires_action');
      const pending = final(first.events).pending_tool_call as {
        call_id: string;
        tool_name: string;
        arguments: unknown;
      };
      expect(pending).toMatchObject({ tool_name: 'close_issue', arguments: { number: 2 } });
      const next = await say(id, '', {
        tool_call_id: pending.call_id,
        tool_result: _ === 'failed' ? { reason: 'the issue is locked' } : { closed: 2 },
        ...outcome,
        host_context: { ...ISSUES_CONTEXT, view: { name: 'issues', data: { filter: 'closed' } } },
      });
      expect(next.end.data).toMatchObject({ status: 'completed' });
      expect(texts(next.events)).toBe(reply);
      const bodies = bodiesSince(from);
      expect(bodies).toHaveLength(2);
      const offered = (bodies[0]?.tools as { function: { name: string } }[]).map((t) => t.function.name);
      expect(offered).toEqual(['close_issue', 'weather', 'refund']);
      const messages = bodies[1]?.messages as { role: string; content: unknown }[];
      // The first request, replayed unchanged, is the second's prefix: the provider's cache holds.
      expect(messages.slice(0, 2)).toEqual(bodies[0]?.messages);
      const tool = messages.at(-1) as { role: string; content: string };
      expect(tool.role).toBe('tool');
      expect(tool.content).toMatch(
        _ === 'failed' ? /^\{"error":\{"reason":"the issue is locked"\}\}/ : /^\{"closed":2\}/,
      );
      expect(tool.content).toContain('\n\n<host_context>\n');
      expect(tool.content).toContain('- filter: closed');
    },
  );

  it('asks approval for a tool that needs it; approved with edited arguments, the tool runs with them and the model goes on', async () => {
    const id = sid('approve');
    const first = await say(id, 'refund order 1042', { agent_id: 'chat' });
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
    await say(id, 'refund order 1042', { agent_id: 'chat' });
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
    const tool = (bodiesSince(from)[0]?.messages as { role: string; content: string }[]).at(-1);
    expect(tool).toMatchObject({ role: 'tool' });
    expect(JSON.parse(tool?.content ?? '')).toEqual({
      error: 'The user denied this call; it was not run.',
      comment: 'not this one',
    });
    expect(texts(host.events(id).filter((f) => f.run_id === res.json.run_id))).toBe('All right: no refund.');
  });

  it('makes a silent host decision with tool_choice required, offering only the actions and hold', async () => {
    const id = sid('silent');
    const from = model.requests.length;
    const { events } = await say(id, 'decide now', {
      agent_id: 'chat',
      output_mode: 'host_tools',
      host_context: ISSUES_CONTEXT,
    });
    expect(final(events)).toMatchObject({
      decision: 'pending',
      pending_tool_call: { tool_name: 'close_issue', arguments: { number: 3 } },
    });
    const [body] = bodiesSince(from);
    expect(body?.tool_choice).toBe('required');
    expect((body?.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'close_issue',
      'hold',
    ]);
    expect(events.filter((e) => e.type === 'agent.message.delta')).toEqual([]);
  });

  it('aborts the model’s HTTP request when the turn is cancelled mid-stream (the endpoint sees the disconnect)', async () => {
    const id = sid('cancel');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'chat',
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
    const { end } = await say(id, 'something expensive', { agent_id: 'capped' });
    expect(end.data).toMatchObject({ spent_usd: 1 });
    const next = await api(sandbox.url, 'POST', '/api/chat', { session_id: id, content: 'hello again' });
    expect(next.status).toBe(402);
  });

  it('lets the client retry a 429 itself, once, and the turn answers', async () => {
    const id = sid('retry');
    const from = model.requests.length;
    const { events } = await say(id, 'are you busy?', { agent_id: 'chat' });
    expect(texts(events)).toBe('Sorry for the wait.');
    expect(model.requests.slice(from).map((r) => r.status)).toEqual([429, 200]);
  });

  it('fails the turn with the endpoint’s status and message on a model error, and no log shows the key', async () => {
    const id = sid('error');
    const { end, events } = await say(id, 'explode please', { agent_id: 'chat' });
    expect(end.data).toMatchObject({ status: 'error', stop_reason: 'error' });
    expect(events.find((e) => e.type === 'session.error')?.data).toEqual({
      code: 'model_error',
      message: 'The model endpoint answered 400: The prompt is not allowed here.',
      status: 502,
    });
    expect(captured.join('')).toContain('The prompt is not allowed here.');
    expect(captured.join('')).not.toContain(MODEL_KEY);
    expect(JSON.stringify(host.frames)).not.toContain(MODEL_KEY);
  });

  it('stops after maxTurns model calls with stopReason max_turns', async () => {
    const id = sid('turns');
    const { end } = await say(id, 'loop forever', { agent_id: 'short' });
    expect(end.data).toMatchObject({ stop_reason: 'max_turns' });
  });
});
