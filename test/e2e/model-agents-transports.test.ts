import { randomUUID } from 'node:crypto';
import { EventType, HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { runAgUi } from '../support/agui.ts';
import { ISSUES_CONTEXT, MODEL_KEY, MODEL_SCRIPT, modelAgent, refunds } from '../support/model-agents.ts';
import { api, type LoggedEvent, runEvents, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * A Chat Completions agent on the scripted model over the transports model-agents.test.ts does not
 * drive (HTTP and AG-UI), an approval that lapses, and a host that reattaches mid-stream. The
 * functions' clock is the machine's plus `ahead`, which the lapse test moves past the request's
 * expiry before it runs the sweep itself.
 */
let model: ScriptedModel;
let sandbox: Sandbox;
let ahead = 0;
const sid = sessionIds('model-io');

beforeAll(async () => {
  model = await startScriptedModel({ script: MODEL_SCRIPT, apiKey: MODEL_KEY });
  const app = createSwitchboard();
  app.registerChatCompletionsAgent(modelAgent('chat', model.baseURL, { hitl: { timeoutMinutes: 5 } }));
  sandbox = await testSandbox({
    app,
    clock: () => Date.now() + ahead,
    // The test runs the sweep itself: its timer must not lapse a request first.
    sweepPeriodMs: 3_600_000,
  });
});
afterAll(async () => {
  await sandbox?.close();
  await model?.close();
});

type Event = LoggedEvent;
const runEventsOf = (sessionId: string, runId: unknown) => runEvents(sandbox.url, sessionId, runId);

/** Posts a message (or a continuation) over HTTP and returns its run's events once it has ended. */
async function post(sessionId: string, body: Record<string, unknown>) {
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    session_id: sessionId,
    agent_id: 'chat',
    ...body,
  });
  expect(res.status, res.text).toBe(202);
  return runEventsOf(sessionId, res.json.run_id);
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.type === 'agent.message.delta')
    .map((e) => e.data.text)
    .join('');
/** The Chat Completions request the model got at `index`. */
const bodyAt = (index: number) =>
  (model.requests[index]?.body ?? { messages: [] }) as { messages: { role: string; content: string }[] };
const final = (events: Event[]) => events.find((e) => e.type === 'final_response')?.data ?? {};

describe('a model agent over HTTP', () => {
  it('streams the model’s text and prices its usage', async () => {
    const events = await post(sid('text'), { content: 'hello model' });
    expect(texts(events)).toBe('Hello there!');
    expect(final(events)).toMatchObject({ content: 'Hello there!', usage: { costUsd: 0.002 } });
  });

  it.each([
    ['succeeded', { tool_result: { closed: 2 } }, 'Done: issue 2 is closed.'],
    [
      'failed',
      { tool_result: { reason: 'locked' }, tool_outcome: 'failed' },
      'Your page could not close it.',
    ],
  ])('hands a host action’s result (%s) back to the model in the continuation', async (_, result, reply) => {
    const id = sid('host');
    const first = await post(id, { content: 'please close issue 2', host_context: ISSUES_CONTEXT });
    expect(first.at(-1)?.type).toBe('session.status_requires_action');
    const pending = final(first).pending_tool_call as { call_id: string; tool_name: string };
    expect(pending.tool_name).toBe('close_issue');
    const from = model.requests.length;
    const next = await post(id, { content: '', tool_call_id: pending.call_id, ...result });
    expect(texts(next)).toBe(reply);
    const messages = bodyAt(from).messages;
    expect(messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(
      messages.at(-1)?.content.startsWith(_ === 'failed' ? '{"error":{"reason":"locked"}}' : '{"closed":2}'),
    ).toBe(true);
  });
});

describe('a model agent over AG-UI', () => {
  const CLOSE_ISSUE = ISSUES_CONTEXT.actions[0]!;

  it('streams the model’s text as events the real client verifies', async () => {
    const { agent, events } = await runAgUi(`${sandbox.aguiUrl}/chat`, sid('agui-text'), 'hello model');
    expect(events[0]?.type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there!' });
  });

  it('offers a frontend tool to the model: its call ends the run, and the tool’s result goes back to the model', async () => {
    const agent = new HttpAgent({
      url: `${sandbox.aguiUrl}/chat`,
      threadId: sid('agui-tool'),
      initialMessages: [],
    });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'please close issue 2' });
    const finished: unknown[] = [];
    const tools = [CLOSE_ISSUE];
    await agent.runAgent(
      { tools },
      {
        onRunFinishedEvent: (p) =>
          void finished.push(p.outcome === 'success' ? p.pendingToolCallIds : p.outcome),
      },
    );
    const caller = agent.messages.find((m) => m.role === 'assistant');
    const call = caller?.role === 'assistant' ? caller.toolCalls?.[0] : undefined;
    expect(call?.function).toMatchObject({ name: 'close_issue', arguments: '{"number":2}' });
    expect(finished).toEqual([[call?.id]]);
    const from = model.requests.length;
    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call?.id ?? '', content: '{"closed":2}' });
    await agent.runAgent({ tools });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Done: issue 2 is closed.' });
    const messages = bodyAt(from).messages;
    expect(messages.at(-1)?.content).toMatch(/^\{"closed":2\}/);
  });
});

describe('a model agent’s endpoint error over AG-UI', () => {
  it('ends the stream with RUN_ERROR model_error, its message redacted: the key is nowhere in the stream', async () => {
    const res = await fetch(`${sandbox.aguiUrl}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: sid('agui-leak'),
        runId: randomUUID(),
        messages: [{ id: 'u1', role: 'user', content: 'leak the key' }],
      }),
    });
    const stream = await res.text();
    const events = stream
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; code?: string; message?: string });
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      code: 'model_error',
      message:
        'The model endpoint answered 401 (invalid_request_error, invalid_api_key): Incorrect API key provided: [redacted] (sent as [redacted]).',
    });
    for (const part of [MODEL_KEY, MODEL_KEY.slice(0, 8), MODEL_KEY.slice(-8)])
      expect(stream).not.toContain(part);
  });
});

describe('a model agent’s approval that lapses', () => {
  it('is denied by the sweep once it has expired: the tool does not run, and the model is told', async () => {
    const id = sid('lapse');
    const first = await post(id, { content: 'refund order 1042' });
    expect(first.at(-1)?.type).toBe('session.status_requires_action');
    const before = refunds.length;
    const from = model.requests.length;
    // Past the agent's five minutes: the sweep finds the request due and denies it.
    ahead = 6 * 60_000;
    try {
      await sandbox.sweep();
      const lapse = async () =>
        ((await api(sandbox.url, 'GET', `/api/sessions/${id}/events`)).json.events as Event[]).find(
          (e) => e.type === 'action.resolved',
        );
      await expect.poll(lapse, queued('the lapse')).toBeDefined();
      expect((await lapse())?.data).toMatchObject({
        type: 'tool_approval',
        actor: 'system:timeout',
        channel: 'timeout',
        expired: true,
        resolution: { decision: 'deny' },
      });
      await runEventsOf(id, (await lapse())?.run_id);
    } finally {
      ahead = 0;
    }
    expect(refunds.length).toBe(before);
    const messages = bodyAt(from).messages;
    expect(JSON.parse(messages.at(-1)?.content ?? '{}')).toMatchObject({
      error: expect.stringContaining('denied'),
    });
    const answered = await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`);
    expect(JSON.stringify(answered.json)).toContain('All right: no refund.');
  });
});

describe('a host that reattaches to a model agent’s turn mid-stream', () => {
  it('gets what was streamed before it joined, then the rest, each event once', async () => {
    const id = sid('reattach');
    const first = await TestSocket.open(sandbox.wsUrl);
    const later = await TestSocket.open(sandbox.wsUrl);
    try {
      const accepted = await first.request({
        action: 'assistant_message',
        session_id: id,
        agent_id: 'chat',
        content: 'a long story',
      });
      await first.waitFor((f) => f.session_id === id && f.type === 'agent.message.delta', 'the first delta');
      // The model holds its answer open: the host joins while the turn streams.
      await expect.poll(() => model.requests.at(-1)?.paused, queued('the paused answer')).toBe(true);
      const joined = await later.request({ action: 'assistant_join_session', session_id: id, after_seq: 0 });
      expect(joined.type).toBe('assistant:joined');
      model.release();
      await later.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn, on the joined socket');
      await first.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn');
      const seqs = (socket: TestSocket) => socket.events(id).map((f: Frame) => f.seq as number);
      const got = seqs(later);
      expect(new Set(got).size, 'no event twice').toBe(got.length);
      expect(got).toEqual([...got].sort((a, b) => a - b));
      expect(got).toEqual(seqs(first).filter((seq) => seq >= (got[0] ?? 0)));
      const text = later
        .events(id)
        .filter((f) => f.type === 'agent.message.delta')
        .map((f) => (f.data as { text: string }).text)
        .join('');
      expect(text).toBe('Once upon a time');
    } finally {
      await first.close();
      await later.close();
    }
  });
});
