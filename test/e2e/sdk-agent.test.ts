import { type BaseEvent, EventType } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { runAgUi } from '../support/agui.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { sdkAgents } from '../support/sdk-agents.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

const { app, prompts, refunds, slow } = sdkAgents();
let sandbox: Sandbox;
let socket: TestSocket;
const sid = sessionIds('sdk');

beforeAll(async () => {
  sandbox = await testSandbox({ app });
  socket = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await socket?.close();
  await sandbox?.close();
});

type Event = { type: string; run_id?: unknown; data: Record<string, unknown> };
type Via = 'http' | 'ws';

const ends = (e: Event) => e.type === 'session.status_idle' || e.type === 'session.status_requires_action';

/** The session's events of one run, once it has ended, as the transport delivers them. */
async function eventsOf(via: Via, sessionId: string, runId: unknown): Promise<Event[]> {
  if (via === 'ws') {
    await socket.waitFor(turnEnded(runId), `the end of run ${String(runId)}`);
    return (socket.events(sessionId) as Frame[] as unknown as Event[]).filter((e) => e.run_id === runId);
  }
  const read = async () =>
    ((await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/events`)).json.events as Event[]).filter(
      (e) => e.run_id === runId,
    );
  await expect
    .poll(async () => (await read()).some(ends), queued(`the end of run ${String(runId)}`))
    .toBe(true);
  return read();
}

/** Sends a message (or a continuation) to `agentId` and returns its run's events once it has ended. */
async function send(via: Via, sessionId: string, body: Record<string, unknown>) {
  const runId = await start(via, sessionId, body);
  return eventsOf(via, sessionId, runId);
}

async function start(via: Via, sessionId: string, body: Record<string, unknown>): Promise<unknown> {
  if (via === 'ws') {
    const accepted = await socket.request({ action: 'assistant_message', session_id: sessionId, ...body });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    return accepted.run_id;
  }
  const res = await api(sandbox.url, 'POST', '/api/chat', { session_id: sessionId, ...body });
  expect(res.status, res.text).toBe(202);
  return res.json.run_id;
}

/** Answers a request and returns the events of the run that hands it to the agent. */
async function answer(via: Via, sessionId: string, actionId: string, body: Record<string, unknown>) {
  if (via === 'ws') {
    const accepted = await socket.request({
      action: 'assistant_resolve_action',
      session_id: sessionId,
      action_id: actionId,
      ...body,
    });
    expect(accepted.run_id, JSON.stringify(accepted)).toBeDefined();
    return eventsOf(via, sessionId, accepted.run_id);
  }
  const res = await api(sandbox.url, 'POST', `/api/sessions/${sessionId}/actions/${actionId}`, body);
  expect(res.status, res.text).toBe(202);
  return eventsOf(via, sessionId, res.json.run_id);
}

const ofType = (events: Event[], type: string) => events.filter((e) => e.type === type).map((e) => e.data);
/** The one request a run asked (its `action.required`). */
const askedIn = (events: Event[]) =>
  ((ofType(events, 'action.required')[0]?.actions ?? []) as Record<string, unknown>[])[0] ?? {};
const finalOf = (events: Event[]) => ofType(events, 'final_response').at(-1);
const session = async (id: string) => (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json;

describe.each(['http', 'ws'] as const)('an AI SDK agent over %s', (via) => {
  it('streams the model’s text as deltas, and records the usage priced by the server', async () => {
    const id = sid(`hello-${via}`);
    const events = await send(via, id, { agent_id: 'sdk', content: `hello ${via}` });
    const deltas = ofType(events, 'agent.message.delta')
      .map((d) => d.text)
      .join('');
    expect(deltas).toBe('Hello from the AI SDK.');
    expect(finalOf(events)).toMatchObject({
      content: 'Hello from the AI SDK.',
      stop_reason: 'end_turn',
      // 8 × $1000 + 2 × $100 + 5 × $2000 per million tokens.
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, model: 'mock-model', costUsd: 0.0182 },
    });
    expect((await session(id)).spent_usd).toBe(0.0182);
  });

  it('shows a backend tool’s call and result, and the answer the model gave after it', async () => {
    const id = sid(`order-${via}`);
    const events = await send(via, id, { agent_id: 'sdk', content: `order ${via}` });
    expect(ofType(events, 'agent.tool_use')).toMatchObject([
      { id: `find_${via}`, name: 'find_order', args: { order: '1042' } },
    ]);
    expect(ofType(events, 'agent.tool_result')).toMatchObject([
      { id: `find_${via}`, name: 'find_order', ok: true, result: { order: '1042', total: 25 } },
    ]);
    expect(finalOf(events)).toMatchObject({ content: 'Order 1042 cost $25.', stop_reason: 'end_turn' });
  });

  it('asks a needsApproval call as a tool_approval with the tool’s schema; approved with edited args, the tool runs with them', async () => {
    const id = sid(`refund-${via}`);
    const asked = await send(via, id, { agent_id: 'sdk', content: `refund ${via}` });
    const request = askedIn(asked);
    expect(request).toMatchObject({
      type: 'tool_approval',
      toolName: 'refund',
      args: { order: '1042', amount: 25 },
      argsSchema: { properties: { amount: { maximum: 25 } } },
    });
    expect(asked.at(-1)?.type).toBe('session.status_requires_action');
    // The server checks edited arguments against the tool's own schema.
    const tooMuch = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${String(request.id)}`, {
      decision: 'approve',
      approved_args: { order: '1042', amount: 30 },
    });
    expect(tooMuch.status).toBe(422);
    const done = await answer(via, id, String(request.id), {
      decision: 'approve',
      approved_args: { order: '1042', amount: 20 },
    });
    expect(refunds).toContainEqual({ order: '1042', amount: 20 });
    expect(refunds).not.toContainEqual({ order: '1042', amount: 25 });
    expect(ofType(done, 'agent.tool_result')).toMatchObject([
      { id: `refund_${via}`, name: 'refund', ok: true, result: { refunded: 20 } },
    ]);
    expect(finalOf(done)).toMatchObject({ content: 'Done.', stop_reason: 'end_turn' });
    expect((await session(id)).status).toBe('idle');
  });

  it('hands a denial back to the model: the tool does not run and the model answers', async () => {
    const id = sid(`deny-${via}`);
    const asked = await send(via, id, { agent_id: 'sdk', content: `deny ${via}` });
    const request = askedIn(asked);
    const done = await answer(via, id, String(request.id), { decision: 'deny', comment: 'not today' });
    expect(refunds).not.toContainEqual({ order: '7', amount: 5 });
    expect(ofType(done, 'agent.tool_result')).toMatchObject([{ id: `deny_${via}`, ok: false }]);
    expect(finalOf(done)).toMatchObject({ content: 'As you wish: no refund.' });
    const denied = prompts.filter((p) => p.key === `deny ${via}`).at(-1);
    expect(JSON.stringify(denied?.prompt)).toContain('not today');
  });

  it('offers the host’s actions to a streamText agent: a call ends the turn with pending_tool_call, and the continuation’s result goes back to the model', async () => {
    const id = sid(`select-${via}`);
    const hostContext = {
      view: { name: 'issues' },
      actions: [
        {
          name: 'select_issue',
          description: 'Select an issue in the list.',
          parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
        },
      ],
    };
    const asked = await send(via, id, {
      agent_id: 'sdk-stream',
      content: `select ${via}`,
      host_context: hostContext,
    });
    expect(ofType(asked, 'tool_call')).toMatchObject([
      { category: 'host', call_id: `select_${via}`, name: 'select_issue', arguments: { number: 2 } },
    ]);
    expect(finalOf(asked)).toMatchObject({
      content: 'Selecting. ',
      pending_tool_call: { tool_name: 'select_issue', call_id: `select_${via}`, arguments: { number: 2 } },
    });
    const done = await send(via, id, {
      content: '',
      tool_call_id: `select_${via}`,
      tool_result: { selected: 2 },
      host_context: { ...hostContext, view: { name: 'issue 2' } },
    });
    expect(finalOf(done)).toMatchObject({ content: 'Issue 2 is selected.', stop_reason: 'end_turn' });
    const continued = JSON.stringify(prompts.filter((p) => p.key === `select ${via}`).at(-1)?.prompt);
    expect(continued).toContain('{"selected":2}');
    // The host contract: the tool result is followed by the current host context.
    expect(continued.indexOf('issue 2')).toBeGreaterThan(continued.indexOf('{"selected":2}'));
  });

  it('hands two host actions of one step over one at a time, the second queued, and gives the SDK both results at once', async () => {
    const id = sid(`both-${via}`);
    const hostContext = {
      view: { name: 'issues' },
      actions: [
        {
          name: 'select_issue',
          parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
        },
      ],
    };
    const key = `select both ${via}`;
    const asked = await send(via, id, { agent_id: 'sdk-stream', content: key, host_context: hostContext });
    expect(finalOf(asked)).toMatchObject({
      pending_tool_call: { call_id: `first_${via}`, arguments: { number: 3 }, queued: [`second_${via}`] },
    });
    const next = await send(via, id, {
      content: '',
      tool_call_id: `first_${via}`,
      tool_result: { selected: 3 },
    });
    expect(finalOf(next)).toMatchObject({
      pending_tool_call: { call_id: `second_${via}`, arguments: { number: 4 }, queued: [] },
    });
    // The SDK was not called between the two answers.
    expect(prompts.filter((p) => p.key === key)).toHaveLength(1);
    const done = await send(via, id, {
      content: '',
      tool_call_id: `second_${via}`,
      tool_result: { selected: 4 },
    });
    expect(finalOf(done)).toMatchObject({ content: 'Issues 3 and 4 are selected.', stop_reason: 'end_turn' });
    const calls = prompts.filter((p) => p.key === key);
    expect(calls).toHaveLength(2);
    const continued = JSON.stringify(calls.at(-1)?.prompt);
    expect(continued).toContain('{"selected":3}');
    expect(continued).toContain('{"selected":4}');
  });

  it('offers a stream agent look_at_screen with a screenshot, and answers the call with the image', async () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const id = sid(`look-${via}`);
    const key = `look ${via}`;
    const events = await send(via, id, {
      agent_id: 'sdk-stream',
      content: key,
      attachments: [{ kind: 'image', purpose: 'screenshot', data_uri: `data:image/png;base64,${png}` }],
    });
    expect(finalOf(events)).toMatchObject({ content: 'I see a screen.', stop_reason: 'end_turn' });
    const calls = prompts.filter((p) => p.key === key);
    expect(calls).toHaveLength(2);
    // The first call holds no image; the one after look_at_screen has it as the call's result.
    expect(JSON.stringify(calls[0]?.prompt)).not.toContain(png);
    expect(JSON.stringify(calls[1]?.prompt)).toContain(png);
  });

  it('takes a steering message at the SDK’s next step, in the same turn', async () => {
    const id = sid(`steer-${via}`);
    const key = `slowly ${via}`;
    const started = new Promise<void>((resolve) => {
      slow.started = resolve;
    });
    const runId = await start(via, id, { agent_id: 'sdk', content: key });
    await started;
    await start(via, id, { content: 'also mention cats', on_busy: 'steer' });
    slow.release();
    const events = await eventsOf(via, id, runId);
    expect(finalOf(events)).toMatchObject({ content: 'Cats noted.' });
    // Taken into this turn, not run as the next one.
    expect(ofType(events, 'user.message')).toContainEqual(
      expect.objectContaining({ content: 'also mention cats', steered_into: runId }),
    );
    const second = JSON.stringify(prompts.filter((p) => p.key === key).at(-1)?.prompt);
    expect(second.indexOf('also mention cats')).toBeGreaterThan(second.indexOf('{"ok":true}'));
  });

  it('fails the turn with the model’s error as its message, and takes the next message', async () => {
    const id = sid(`broken-${via}`);
    const events = await send(via, id, { agent_id: 'sdk', content: `broken ${via}` });
    expect(ofType(events, 'session.error')).toEqual([
      {
        code: 'agent_error',
        status: 500,
        message: 'The AI SDK agent failed: The model is overloaded.',
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', data: { status: 'error' } });
    const next = await send(via, id, { content: `hello ${via}` });
    expect(finalOf(next)).toMatchObject({ stop_reason: 'end_turn' });
  });

  it('cancels mid-stream: the model call’s abort signal fires and the turn ends cancelled', async () => {
    const id = sid(`story-${via}`);
    const runId = await start(via, id, { agent_id: 'sdk', content: `story ${via}` });
    await expect
      .poll(() => prompts.some((p) => p.key === `story ${via}`), queued('the model call'))
      .toBe(true);
    const cancelled = await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBeLessThan(300);
    const events = await eventsOf(via, id, runId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', data: { status: 'cancelled' } });
    expect(prompts.find((p) => p.key === `story ${via}`)?.aborted()).toBe(true);
  });
});

describe('an AI SDK agent over AG-UI', () => {
  it('streams a backend tool’s call and result and the model’s text, as events the real client verifies', async () => {
    const { events } = await runAgUi(`${sandbox.aguiUrl}/sdk`, sid('order-agui'), 'order agui');
    const types = events.map((e) => e.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types).toContain(EventType.TOOL_CALL_START);
    expect(types).toContain(EventType.TOOL_CALL_RESULT);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    const text = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as BaseEvent & { delta: string }).delta)
      .join('');
    expect(text).toBe('Order 1042 cost $25.');
  });
});
