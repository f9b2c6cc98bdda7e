import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { getMessage, getRun, listRuns } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { busyAgents } from '../support/busy-agents.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { runAgents } from '../support/run-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

const runs = runAgents();
const pauses = pauseAgents();
const busy = busyAgents();
const app = createSwitchboard();
for (const d of [...runs.definitions, ...pauses.definitions, ...busy.definitions]) app.registerHostAgent(d);
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('b');

const ACTIONS = [
  { name: 'select_issue', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
];

beforeAll(async () => {
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

const ended = (sessionId: string, runId?: unknown) => turnEnded(runId, sessionId);

/** Sends a message over the WebSocket; the answer frame (accepted or an error). */
function send(sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  return host.request({ action: 'assistant_message', session_id: sessionId, content, ...extra });
}

/** Sends a message over the WebSocket, expects it accepted, and returns its run id. */
async function start(
  sessionId: string,
  agentId: string,
  content: string,
  extra: Record<string, unknown> = {},
) {
  const accepted = await send(sessionId, content, { agent_id: agentId, ...extra });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  return accepted.run_id as string;
}

/** Sends a message over HTTP. */
const post = (sessionId: string, content: string, extra: Record<string, unknown> = {}) =>
  api(sandbox.url, 'POST', '/api/chat', { session_id: sessionId, content, ...extra });

const messages = async (id: string) =>
  (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as Record<string, unknown>[];
const session = async (id: string) => (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json;

describe('on_busy: reject', () => {
  it('answers 409 session_busy naming the running turn, over HTTP and WebSocket, and stores nothing', async () => {
    const id = sid('reject');
    const first = await start(id, 'polite', 'first');
    await runs.started(id);
    const res = await post(id, 'second', { id: 'rej-1', on_busy: 'reject' });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'session_busy', run_id: first });
    expect((res.json.error as { message: string }).message).toContain(first);
    const frame = await send(id, 'second', { id: 'rej-2', onBusy: 'reject' });
    expect(frame).toMatchObject({
      type: 'assistant:error',
      request_id: 'rej-2',
      error: { type: 'session', code: 'session_busy', run_id: first },
    });
    expect((await messages(id)).map((m) => m.content)).toEqual(['first']);
    expect((await listRuns(sandbox.runtime, refOf(id))).map((r) => r.runId)).toEqual([first]);

    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(ended(id, first));
    // The refused request id was never applied: sent again once the session is free, it runs.
    const again = await post(id, 'second', { id: 'rej-1', on_busy: 'reject', agent_id: 'polite' });
    expect(again.status).toBe(202);
    expect(again.json.duplicate).toBe(false);
    await expect
      .poll(() => runs.invokedIn(id), queued('the second message to run'))
      .toEqual(['first', 'second']);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(ended(id, again.json.run_id));
  });

  it('names a turn that is only queued too, and refuses while an answer is handed to resolveAction', async () => {
    const id = sid('rejectq');
    await start(id, 'pair', 'two');
    await host.waitFor(ended(id));
    const hold = await start(id, 'pair', 'hold');
    await busy.held(id);
    const answer = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, {
      decision: 'approve',
    });
    expect(answer.status).toBe(202);
    const res = await post(id, 'not now', { on_busy: 'reject' });
    expect(res.json.error).toMatchObject({ code: 'session_busy', run_id: hold });
    expect((res.json.error as { message: string }).message).toContain('1 more queued');
    busy.release(id);
    await host.waitFor(ended(id, answer.json.run_id));
  });

  it('runs the message when nothing runs, and answers a retry as the duplicate even while its own turn runs', async () => {
    const id = sid('rejectidle');
    const first = await post(id, 'first', { id: 'ri-1', agent_id: 'polite', on_busy: 'reject' });
    expect(first.status).toBe(202);
    await runs.started(id);
    const retry = await post(id, 'first', { id: 'ri-1', agent_id: 'polite', on_busy: 'reject' });
    expect(retry.status).toBe(202);
    expect(retry.json).toMatchObject({ run_id: first.json.run_id, duplicate: true });
    expect(runs.invokedIn(id)).toEqual(['first']);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
  });

  it('runs the message on a paused session: a pause is not a running turn', async () => {
    const id = sid('rejectpause');
    await start(id, 'pauser', 'two');
    await host.waitFor(ended(id));
    const run = await start(id, 'pauser', 'hello', { on_busy: 'reject' });
    const end = await host.waitFor(ended(id, run));
    expect(end.type).toBe('session.status_requires_action');
    expect((await session(id)).pending_actions).toHaveLength(2);
  });
});

describe('on_busy: interrupt', () => {
  it('cancels the running turn with its grace and hook, then runs the message (WebSocket)', async () => {
    const id = sid('interrupt');
    const first = await start(id, 'polite', 'first');
    await runs.started(id);
    const accepted = await send(id, 'second', { on_busy: 'interrupt' });
    expect(accepted).toMatchObject({ type: 'assistant:accepted', interrupted: [first] });
    const second = accepted.run_id as string;
    const end = await host.waitFor(ended(id, first));
    expect(end.data).toMatchObject({
      status: 'cancelled',
      stop_reason: 'cancelled',
      detail: { reason: 'user' },
    });
    const running = await host.waitFor(
      (f) => f.session_id === id && f.type === 'session.status_running' && f.run_id === second,
    );
    expect(running.data).toEqual({ kind: 'turn', interrupted: [first] });
    await expect
      .poll(() => runs.invokedIn(id), queued('the interrupting message to run'))
      .toEqual(['first', 'second']);
    expect(runs.cancelsOf(id)).toEqual([{ conversationId: refOf(id), runId: first, reason: 'user' }]);
    const log = host.events(id);
    expect(log.indexOf(end)).toBeLessThan(log.indexOf(running));
    const stored = await messages(id);
    expect(stored.map((m) => [m.content, m.stop_reason])).toEqual([
      ['first', undefined],
      ['Starting on first. ', 'cancelled'],
      ['second', undefined],
    ]);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(ended(id, second));
  });

  it('cancels every turn queued ahead of it too, over HTTP: none of them reaches the agent', async () => {
    const id = sid('interruptq');
    const first = await start(id, 'polite', 'first');
    await runs.started(id);
    const second = await start(id, 'polite', 'second');
    const third = await post(id, 'third', { on_busy: 'interrupt' });
    expect(third.status).toBe(202);
    expect(third.json.interrupted).toEqual([first, second]);
    await host.waitFor(ended(id, second));
    await expect
      .poll(() => runs.invokedIn(id), queued('the third message to run'))
      .toEqual(['first', 'third']);
    expect((await getRun(sandbox.runtime, refOf(id), second))?.status).toBe('cancelled');
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(ended(id, third.json.run_id));
  });

  it('retried with the same request id cancels nothing twice and starts one turn, its own never stopped', async () => {
    const id = sid('interruptretry');
    const first = await start(id, 'polite', 'first');
    await runs.started(id);
    const body = { id: 'int-1', on_busy: 'interrupt' };
    const [a, b] = await Promise.all([post(id, 'second', body), post(id, 'second', body)]);
    expect(a.json.run_id).toBe(b.json.run_id);
    expect([a.json.duplicate, b.json.duplicate].sort()).toEqual([false, true]);
    const second = a.json.run_id as string;
    await expect
      .poll(() => runs.invokedIn(id), queued('the interrupting message to run'))
      .toEqual(['first', 'second']);
    // Sent again while its own turn runs: the same answer, and its own turn goes on.
    const late = await post(id, 'second', body);
    expect(late.json).toMatchObject({ run_id: second, duplicate: true, interrupted: [first] });
    expect((await getRun(sandbox.runtime, refOf(id), second))?.cancelRequested).toBeUndefined();
    expect(runs.cancelsOf(id)).toEqual([{ conversationId: refOf(id), runId: first, reason: 'user' }]);
    expect((await listRuns(sandbox.runtime, refOf(id))).map((r) => r.runId)).toEqual([first, second]);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(ended(id, second));
    expect(runs.invokedIn(id)).toEqual(['first', 'second']);
  });

  it('simply runs the message when nothing runs', async () => {
    const id = sid('interruptidle');
    const run = await start(id, 'pauser', 'hello', { on_busy: 'interrupt' });
    const end = await host.waitFor(ended(id, run));
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(host.events(id).find((f) => f.type === 'session.status_running')?.data).toEqual({ kind: 'turn' });
  });

  it('on a paused session follows pendingActionPolicy: keep leaves the requests open, cancel withdraws them', async () => {
    const kept = sid('interruptkeep');
    await start(kept, 'pauser', 'two');
    await host.waitFor(ended(kept));
    const run = await post(kept, 'hello', { on_busy: 'interrupt' });
    expect(run.json.interrupted).toBeUndefined();
    await host.request({ action: 'assistant_join_session', session_id: kept });
    await host.waitFor(ended(kept, run.json.run_id));
    expect((await session(kept)).pending_actions).toHaveLength(2);

    const strict = sid('interruptcancel');
    await start(strict, 'strict', 'two');
    await host.waitFor(ended(strict));
    const next = await start(strict, 'strict', 'hello', { on_busy: 'interrupt' });
    const end = await host.waitFor(ended(strict, next));
    expect(end.data).toMatchObject({ status: 'completed' });
    const withdrawn = host
      .events(strict)
      .filter((f) => f.type === 'action.resolved' && f.run_id === next)
      .map((f) => f.data);
    expect(withdrawn).toMatchObject([
      { action_id: 'req_wire', status: 'cancelled', actor: 'system' },
      { action_id: 'req_account', status: 'cancelled', actor: 'system' },
    ]);
    expect(pauses.cancelled.filter((c) => c.conversationId === refOf(strict))).toMatchObject([
      { reason: 'withdrawn', actions: [{ id: 'req_wire' }, { id: 'req_account' }] },
    ]);
  });
});

describe('on_busy: steer and enqueue', () => {
  it('on_busy steer is steering, as steer: true: the running turn takes the message', async () => {
    const id = sid('steer');
    const first = await start(id, 'steerable', 'first');
    await runs.started(id);
    const steered = await send(id, 'also this', { on_busy: 'steer' });
    expect(steered.type).toBe('assistant:accepted');
    runs.release(id);
    await host.waitFor(ended(id, first));
    const final = host.events(id).find((f) => f.type === 'final_response' && f.run_id === first);
    expect((final?.data as { content?: string } | undefined)?.content).toBe('took: also this');
    expect((await getRun(sandbox.runtime, refOf(id), steered.run_id as string))?.status).toBe('steered');
  });

  it('enqueue (the default) runs the message after the running turn', async () => {
    const id = sid('enqueue');
    const first = await start(id, 'steerable', 'ignore, first');
    await runs.started(id);
    const second = await start(id, 'steerable', 'ignore, second', { on_busy: 'enqueue' });
    runs.release(id);
    await host.waitFor(ended(id, second));
    expect(runs.invokedIn(id)).toEqual(['ignore, first', 'ignore, second']);
    const types = host.events(id).map((f) => `${f.run_id === first ? 1 : 2}:${f.type}`);
    expect(types.indexOf('1:session.status_idle')).toBeLessThan(types.indexOf('2:session.status_running'));
  });

  it.each([
    [{ content: 'x', steer: true, on_busy: 'reject' }, ['on_busy']],
    [{ content: 'x', steer: false, on_busy: 'steer' }, ['on_busy']],
    [{ content: 'x', on_busy: 'later' }, ['on_busy']],
    [{ content: '', tool_call_id: 'c', tool_result: 1, on_busy: 'interrupt' }, ['on_busy']],
  ])('refuses %j with a 422 at the field, storing nothing', async (body, path) => {
    const id = sid('bad');
    const res = await post(id, body.content, body);
    expect(res.status).toBe(422);
    expect((res.json.error as { issues: { path: unknown[] }[] }).issues[0]?.path).toEqual(path);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
  });
});

describe('pause rules', () => {
  it('stores a continuation’s own host_context and hands it to the turn right after the tool result', async () => {
    const id = sid('ctx');
    const turn = await start(id, 'driver', 'one', {
      host_context: { view: { name: 'before' }, actions: ACTIONS },
    });
    await host.waitFor(ended(id, turn));
    const cont = await send(id, '', {
      tool_call_id: 'call_select',
      tool_result: { selected: 42 },
      hostContext: { view: { name: 'after', data: { selected: 42 } }, actions: ACTIONS },
    });
    expect(cont.type).toBe('assistant:accepted');
    await host.waitFor(ended(id, cont.run_id));
    const resolved = pauses.resolved.filter((r) => r.conversationId === refOf(id));
    expect(resolved.map((r) => r.hostContext?.view)).toEqual([{ name: 'after', data: { selected: 42 } }]);
    expect((await session(id)).host_context).toMatchObject({ view: { name: 'after' } });
    // Later messages that carry none reuse it.
    const next = await start(id, 'driver', 'plain');
    await host.waitFor(ended(id, next));
    const plain = (await messages(id)).find((m) => m.content === 'plain');
    const record = await getMessage(sandbox.runtime, refOf(id), String(plain?.id));
    expect(record?.hostContext).toMatchObject({ view: { name: 'after' } });
  });

  it('withdraws a request the reply asks again changed from the old message, and asks it on the reply', async () => {
    const id = sid('reask');
    const first = await start(id, 'reasker', 'two');
    await host.waitFor(ended(id, first));
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, {
      decision: 'approve',
    });
    expect(res.status).toBe(202);
    await host.waitFor(ended(id, res.json.run_id));
    const [, asked, reply] = await messages(id);
    const events = host.events(id).filter((f) => f.run_id === res.json.run_id);
    expect(events.filter((f) => f.type === 'action.resolved').map((f) => f.data)).toMatchObject([
      { action_id: 'req_wire', message_id: asked?.id, status: 'resolved' },
      { action_id: 'req_account', message_id: asked?.id, status: 'cancelled', actor: 'system' },
    ]);
    expect(events.find((f) => f.type === 'action.required')?.data).toMatchObject({
      message_id: reply?.id,
      actions: [busy.changed],
    });
    expect(asked?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved' },
      { id: 'req_account', status: 'cancelled', actor: 'system' },
    ]);
    expect(reply?.pending_actions).toEqual([{ ...busy.changed, status: 'pending' }]);
    expect((await session(id)).pending_actions).toMatchObject([{ id: 'req_account', message_id: reply?.id }]);
    const last = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_account`, {
      answers: ['main'],
    });
    expect(last.status).toBe(202);
    await host.waitFor(ended(id, last.json.run_id));
    expect(busy.resolvedIn(id).at(-1)).toMatchObject({ actionId: 'req_account', action: busy.changed });
  });

  it('hands two answers that arrive together to the agent one at a time; the turn ends with one reply', async () => {
    const id = sid('pair');
    const asked = await start(id, 'pair', 'two');
    await host.waitFor(ended(id, asked));
    // A turn holds the session while both answers are recorded, so both wait behind it together.
    const hold = await start(id, 'pair', 'hold');
    await busy.held(id);
    const wire = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, {
      decision: 'approve',
    });
    const answer = await host.request({
      action: 'assistant_resolve_action',
      session_id: id,
      action_id: 'req_account',
      answers: ['main'],
    });
    expect([wire.status, answer.type]).toEqual([202, 'assistant:resolved']);
    busy.release(id);
    await host.waitFor(ended(id, hold));
    const firstEnd = await host.waitFor(ended(id, wire.json.run_id));
    expect(firstEnd.type).toBe('session.status_requires_action');
    await host.waitFor(ended(id, answer.run_id));
    const handed = busy.resolvedIn(id);
    expect(handed.map((r) => [r.actionId, r.pendingActions.map((p) => p.id)])).toEqual([
      ['req_wire', ['req_account']],
      ['req_account', []],
    ]);
    const stored = await messages(id);
    expect(stored.map((m) => m.content)).toEqual([
      'two',
      'I need two answers.',
      'hold',
      'held',
      'all answered, last req_account',
    ]);
    expect(stored[1]?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved' },
      { id: 'req_account', status: 'resolved' },
    ]);
    expect((await session(id)).status).toBe('idle');
  });

  it('withdraws an answered request still waiting its turn when the reply before it moves on; its answer is never handed over', async () => {
    const id = sid('hasty');
    const asked = await start(id, 'hasty', 'two');
    await host.waitFor(ended(id, asked));
    const hold = await start(id, 'hasty', 'hold');
    await busy.held(id);
    const wire = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, {
      decision: 'approve',
    });
    const account = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_account`, {
      answers: ['main'],
    });
    expect([wire.status, account.status]).toEqual([202, 202]);
    busy.release(id);
    await host.waitFor(ended(id, hold));
    const end = await host.waitFor(ended(id, wire.json.run_id));
    expect(end.data).toMatchObject({ status: 'completed' });
    const withdrawn = host
      .events(id)
      .find(
        (f) =>
          f.type === 'action.resolved' &&
          f.run_id === wire.json.run_id &&
          (f.data as { action_id?: string }).action_id === 'req_account',
      );
    expect(withdrawn?.data).toMatchObject({ status: 'cancelled', actor: 'system' });
    await expect
      .poll(
        async () => (await getRun(sandbox.runtime, refOf(id), String(account.json.run_id)))?.status,
        queued('the withdrawn answer’s run to close'),
      )
      .toBe('cancelled');
    expect(busy.resolvedIn(id).map((r) => [r.actionId, r.pendingActions.map((p) => p.id)])).toEqual([
      ['req_wire', ['req_account']],
    ]);
    expect((await messages(id)).map((m) => m.content)).toEqual([
      'two',
      'I need two answers.',
      'hold',
      'held',
      'moved on after req_wire',
    ]);
    expect((await messages(id))[1]?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved' },
      { id: 'req_account', status: 'cancelled' },
    ]);
  });

  it('refuses to continue the host call of an agent without resolveAction: 404, over HTTP and WebSocket', async () => {
    const id = sid('handsfree');
    const turn = await start(id, 'handsfree', 'go', { host_context: { actions: ACTIONS } });
    const end = await host.waitFor(ended(id, turn));
    expect(end.type).toBe('session.status_requires_action');
    const res = await post(id, '', { tool_call_id: 'call_select', tool_result: { selected: 42 } });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resolve_not_supported' });
    const frame = await send(id, '', { tool_call_id: 'call_select', tool_result: 1 });
    expect(frame).toMatchObject({
      type: 'assistant:error',
      error: { type: 'not_found', code: 'resolve_not_supported' },
    });
    // Nothing was decided: the call is still pending, and no run was queued for it.
    expect((await session(id)).pending_action).toMatchObject({ call_id: 'call_select' });
    expect(await listRuns(sandbox.runtime, refOf(id))).toHaveLength(1);
    const answer = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/call_select`, {
      output: 1,
    });
    expect(answer.status).toBe(404);
    expect(answer.json.error).toMatchObject({ code: 'resolve_not_supported' });
  });
});
