import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSwitchboard, hostAgentRegistration } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

const agents = pauseAgents();
const app = createSwitchboard();
for (const definition of agents.definitions) app.registerHostAgent(definition);

const WIRE = { id: 'req_wire', type: 'tool_approval' as const, toolName: 'wire_money', args: { amount: 5 } };
const ACCOUNT = {
  id: 'req_account',
  type: 'user_question' as const,
  questions: [{ question: 'Which account?', options: [{ label: 'main' }, { label: 'savings' }] }],
};
/** An agent whose replies carry the open requests on unchanged, with a content: "done, or moving on". */
app.registerHostAgent({
  info: { id: 'carrier' },
  async invoke({ message }) {
    if (message === 'two') return { content: 'Two things first.', pendingActions: [WIRE, ACCOUNT] };
    if (message === 'again') return { content: 'Still the account.', pendingActions: [ACCOUNT] };
    return { content: `echo: ${message}` };
  },
  async resolveAction(input) {
    return { content: `noted ${input.actionId}`, pendingActions: input.pendingActions };
  },
});
let sandbox: Sandbox;
let watcher: TestSocket;
const sid = sessionIds('p');

const ACTIONS = [
  { name: 'select_issue', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
  { name: 'open_page', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
];

beforeAll(async () => {
  // The tests run the sweep themselves: its timer must not lapse a request a test answers first.
  sandbox = await testSandbox({ app, sweepPeriodMs: 3_600_000 });
  watcher = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await watcher?.close();
  await sandbox?.close();
});

const ended = (runId: unknown) => turnEnded(runId);

/** Sends a message from the watcher socket and waits until its run has ended; returns the run's events. */
async function say(sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  const accepted = await watcher.request({
    action: 'assistant_message',
    session_id: sessionId,
    content,
    ...extra,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  await watcher.waitFor(ended(accepted.run_id), `the end of run ${String(accepted.run_id)}`);
  return {
    runId: accepted.run_id as string,
    events: watcher.events(sessionId).filter((f) => f.run_id === accepted.run_id),
  };
}

/** Answers over HTTP; on 202 waits for the resolve run to end. */
async function answer(sessionId: string, actionId: string, body: Record<string, unknown>) {
  const res = await api(sandbox.url, 'POST', `/api/sessions/${sessionId}/actions/${actionId}`, body);
  if (res.status === 202) await watcher.waitFor(ended(res.json.run_id), 'the end of the resolve run');
  const events = watcher.events(sessionId).filter((f) => f.run_id === res.json.run_id);
  return { ...res, events };
}

/** What resolveAction and the cancel hook were handed for one session: other sessions ask the same ids. */
const resolvedIn = (id: string) => agents.resolved.filter((r) => r.conversationId === refOf(id));
const cancelledIn = (id: string) => agents.cancelled.filter((c) => c.conversationId === refOf(id));

const session = async (id: string) =>
  (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json as Record<string, unknown>;
const messages = async (id: string) =>
  (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as Record<string, unknown>[];

describe('approvals and questions', () => {
  it('pauses, announces the request and shows requires_action; an approval is handed to resolveAction once and answered by a new message', async () => {
    const id = sid('approve');
    const turn = await say(id, 'wire', { agent_id: 'pauser' });
    expect(turn.events.map((e) => e.type)).toContain('action.required');
    expect(turn.events.at(-1)?.type).toBe('session.status_requires_action');
    expect(await session(id)).toMatchObject({
      status: 'requires_action',
      pending_actions: [{ id: 'req_wire', type: 'tool_approval', status: 'pending' }],
    });

    expect(resolvedIn(id)).toEqual([]);
    const res = await answer(id, 'req_wire', {
      decision: 'approve',
      comment: 'go',
      approvedArgs: { amount: 7 },
      rememberForSession: true,
    });
    expect(res.status, res.text).toBe(202);
    // The wire spells the recorded answer in snake_case; the agent gets the host contract's camelCase.
    const wire = {
      decision: 'approve',
      comment: 'go',
      approved_args: { amount: 7 },
      remember_for_session: true,
    };
    expect(res.json).toMatchObject({ action_id: 'req_wire', status: 'queued', decision: wire });
    expect(res.events.find((e) => e.type === 'action.resolved')?.data).toMatchObject({ resolution: wire });
    expect(res.text).not.toMatch(/approvedArgs|rememberForSession/);
    expect(resolvedIn(id)).toHaveLength(1);
    const input = resolvedIn(id)[0]!;
    expect(input).toMatchObject({
      actionId: 'req_wire',
      action: { id: 'req_wire', toolName: 'wire_money', args: { amount: 5 } },
      resolution: {
        decision: 'approve',
        comment: 'go',
        approvedArgs: { amount: 7 },
        rememberForSession: true,
      },
      pendingActions: [],
      answeredBefore: [],
      actor: 'anonymous',
      channel: 'api',
      expired: false,
      conversationId: refOf(id),
    });
    expect(res.events.map((e) => e.type)).toEqual([
      'session.status_running',
      'action.resolved',
      'final_response',
      'session.status_idle',
    ]);
    const stored = await messages(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(stored[1]?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved', resolution: wire },
    ]);
    expect(stored[2]?.content).toBe('resolved req_wire: "approve" with {"amount":7}');
    expect((await session(id)).status).toBe('idle');
  });

  it('hands a denial over as it was given', async () => {
    const id = sid('deny');
    await say(id, 'wire', { agent_id: 'pauser' });
    const res = await answer(id, 'req_wire', { decision: 'deny', comment: 'no' });
    expect(res.status).toBe(202);
    expect(resolvedIn(id).map((r) => r.resolution)).toEqual([{ decision: 'deny', comment: 'no' }]);
    expect((await messages(id)).at(-1)?.content).toBe('resolved req_wire: "deny"');
  });

  it('checks approvedArgs against the request’s argsSchema: 422 at the field, and the request stays open', async () => {
    const id = sid('edit');
    await say(id, 'wire', { agent_id: 'pauser' });
    const res = await answer(id, 'req_wire', { decision: 'approve', approved_args: { amount: 500 } });
    expect(res.status).toBe(422);
    expect((res.json.error as { issues: { path: unknown[] }[] }).issues[0]?.path).toEqual([
      'approved_args',
      'amount',
    ]);
    expect(
      (await answer(id, 'req_wire', { decision: 'approve', approved_args: { amount: 5, extra: 1 } })).status,
    ).toBe(422);
    expect((await answer(id, 'req_wire', {})).status).toBe(422);
    expect((await session(id)).status).toBe('requires_action');
    expect(
      (await answer(id, 'req_wire', { decision: 'approve', approved_args: { amount: 99 } })).status,
    ).toBe(202);
  });

  it('records an answer on the asking message while other requests stay open, and makes the reply when the last is answered', async () => {
    const id = sid('two');
    await say(id, 'two', { agent_id: 'pauser' });
    const first = await answer(id, 'req_wire', { decision: 'approve' });
    expect(resolvedIn(id).map((r) => r.pendingActions.map((a) => a.id))).toEqual([['req_account']]);
    expect(first.events.map((e) => e.type)).toEqual([
      'session.status_running',
      'action.resolved',
      'session.status_requires_action',
    ]);
    let stored = await messages(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved' },
      { id: 'req_account', status: 'pending' },
    ]);
    expect((await session(id)).status).toBe('requires_action');
    await answer(id, 'req_account', { answers: ['savings'] });
    stored = await messages(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(stored[2]?.content).toBe('resolved req_account: ["savings"]');
    expect((await session(id)).status).toBe('idle');
  });

  it('withdraws open requests on a new message under pendingActionPolicy cancel, telling the cancel hook', async () => {
    const id = sid('withdraw');
    await say(id, 'two', { agent_id: 'strict' });
    const next = await say(id, 'something else');
    const resolved = next.events.filter((e) => e.type === 'action.resolved').map((e) => e.data);
    expect(resolved).toMatchObject([
      { action_id: 'req_wire', status: 'cancelled', actor: 'system' },
      { action_id: 'req_account', status: 'cancelled', actor: 'system' },
    ]);
    expect(cancelledIn(id)).toMatchObject([
      {
        conversationId: refOf(id),
        reason: 'withdrawn',
        actions: [{ id: 'req_wire' }, { id: 'req_account' }],
      },
    ]);
    expect(cancelledIn(id)[0]?.runId).toBeUndefined();
    const late = await answer(id, 'req_wire', { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'withdrawn' });
  });

  it('keeps open requests on a new message by default', async () => {
    const id = sid('keep');
    await say(id, 'wire', { agent_id: 'pauser' });
    await say(id, 'hello');
    expect((await session(id)).status).toBe('requires_action');
    expect((await answer(id, 'req_wire', { decision: 'approve' })).status).toBe(202);
  });

  it('answers 404 when the agent has no resolveAction, and for a request that does not exist', async () => {
    const id = sid('mute');
    await say(id, 'wire', { agent_id: 'mute' });
    const res = await answer(id, 'req_wire', { decision: 'approve' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resolve_not_supported' });
    const other = sid('none');
    await say(other, 'wire', { agent_id: 'pauser' });
    expect((await answer(other, 'req_nope', { decision: 'approve' })).json.error).toMatchObject({
      code: 'action_not_found',
    });
  });

  it('takes a client tool’s output, and an error when the page failed', async () => {
    const id = sid('client');
    await say(id, 'page', { agent_id: 'pauser' });
    expect((await answer(id, 'req_page', { output: { text: 'copied' }, error: 'both' })).status).toBe(422);
    expect((await answer(id, 'req_page', { output: { text: 'copied' } })).status).toBe(202);
    expect(resolvedIn(id).map((r) => r.resolution)).toEqual([
      { type: 'client_tool', output: { text: 'copied' } },
    ]);
  });
});

describe('a request the reply carries on unchanged', () => {
  type Asked = { id: string; status: string; actor?: string };
  /** Each message's view of one request, by message id. */
  const viewsOf = async (id: string, actionId: string) =>
    (await messages(id)).flatMap((m) =>
      ((m.pending_actions as Asked[] | undefined) ?? [])
        .filter((a) => a.id === actionId)
        .map((a) => ({ message: m.id as string, status: a.status })),
    );
  /** The session's listing of its open requests, and each listed one as the message it names shows it. */
  async function listed(id: string) {
    const open = (await session(id)).pending_actions as { id: string; status: string; message_id: string }[];
    const stored = await messages(id);
    return open.map((a) => ({
      id: a.id,
      status: a.status,
      there: (stored.find((m) => m.id === a.message_id)?.pending_actions as Asked[] | undefined)?.find(
        (b) => b.id === a.id,
      )?.status,
    }));
  }

  it('after an answer: the reply shows it pending, as does the message that asked it and the session; answered, every view shows it resolved', async () => {
    const id = sid('carry');
    await say(id, 'two', { agent_id: 'carrier' });
    const first = await answer(id, 'req_wire', { decision: 'approve' });
    expect(first.status, first.text).toBe(202);
    const stored = await messages(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(stored[1]?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'resolved' },
      { id: 'req_account', status: 'pending' },
    ]);
    expect(stored[2]?.pending_actions).toMatchObject([{ id: 'req_account', status: 'pending' }]);
    expect(await viewsOf(id, 'req_account')).toEqual([
      { message: stored[1]?.id, status: 'pending' },
      { message: stored[2]?.id, status: 'pending' },
    ]);
    expect(await session(id)).toMatchObject({ status: 'requires_action' });
    expect(await listed(id)).toEqual([{ id: 'req_account', status: 'pending', there: 'pending' }]);

    const last = await answer(id, 'req_account', { answers: ['main'] });
    expect(last.status, last.text).toBe(202);
    expect((await viewsOf(id, 'req_account')).map((v) => v.status)).toEqual(['resolved', 'resolved']);
    expect(await session(id)).toMatchObject({ status: 'idle', pending_actions: [] });
  });

  it('after a new message: the reply that asks an open request again unchanged shows it pending; the one it leaves out is withdrawn', async () => {
    const id = sid('reask');
    await say(id, 'two', { agent_id: 'carrier' });
    const next = await say(id, 'again');
    expect(next.events.filter((e) => e.type === 'action.resolved').map((e) => e.data)).toMatchObject([
      { action_id: 'req_wire', status: 'cancelled', actor: 'system' },
    ]);
    const stored = await messages(id);
    expect(stored.map((m) => m.content)).toEqual(['two', 'Two things first.', 'again', 'Still the account.']);
    expect(await viewsOf(id, 'req_account')).toEqual([
      { message: stored[1]?.id, status: 'pending' },
      { message: stored[3]?.id, status: 'pending' },
    ]);
    expect(await viewsOf(id, 'req_wire')).toEqual([{ message: stored[1]?.id, status: 'cancelled' }]);
    expect(await listed(id)).toEqual([{ id: 'req_account', status: 'pending', there: 'pending' }]);
    expect((await answer(id, 'req_account', { answers: ['savings'] })).status).toBe(202);
    expect((await viewsOf(id, 'req_account')).map((v) => v.status)).toEqual(['resolved', 'resolved']);
  });
});

describe('exactly once', () => {
  it('refuses a second answer with 409, saying the result was already recorded and with which status', async () => {
    const id = sid('dup');
    await say(id, 'wire', { agent_id: 'pauser' });
    expect((await answer(id, 'req_wire', { decision: 'deny' })).status).toBe(202);
    const again = await answer(id, 'req_wire', { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'already_resolved' });
    expect(String((again.json.error as { message: string }).message)).toMatch(
      /already recorded with status resolved \(deny\)/,
    );
  });

  it('applies exactly one of two answers sent at once; the other gets the 409', async () => {
    const id = sid('race');
    await say(id, 'wire', { agent_id: 'pauser' });
    expect(resolvedIn(id)).toEqual([]);
    const [a, b] = await Promise.all([
      api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, { decision: 'approve' }),
      api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_wire`, { decision: 'deny' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const winner = a.status === 202 ? a : b;
    await watcher.waitFor(ended(winner.json.run_id), 'the end of the winning answer');
    expect(resolvedIn(id).map((r) => r.resolution.decision)).toEqual([a.status === 202 ? 'approve' : 'deny']);
  });

  it('answers over the WebSocket too, with an assistant:error of type session for a duplicate', async () => {
    const id = sid('ws');
    await say(id, 'wire', { agent_id: 'pauser' });
    const ok = await watcher.request({
      action: 'assistant_resolve_action',
      session_id: id,
      action_id: 'req_wire',
      decision: 'approve',
    });
    expect(ok).toMatchObject({ type: 'assistant:resolved', action_id: 'req_wire', status: 'queued' });
    await watcher.waitFor(ended(ok.run_id));
    const dup = await watcher.request({
      action: 'assistant_resolve_action',
      session_id: id,
      action_id: 'req_wire',
      decision: 'approve',
    });
    expect(dup).toMatchObject({
      type: 'assistant:error',
      error: { type: 'session', code: 'already_resolved' },
    });
    const bad = await watcher.request({
      action: 'assistant_resolve_action',
      session_id: id,
      decision: 'approve',
    });
    expect(bad).toMatchObject({
      type: 'assistant:error',
      error: { type: 'validation', path: ['action_id'] },
    });
  });
});

describe('host actions', () => {
  const context = { host_context: { actions: ACTIONS } };

  it('ends the turn with a pending tool call, resumes on the same assistant message when the continuation arrives', async () => {
    const id = sid('host');
    const turn = await say(id, 'one', { agent_id: 'driver', ...context });
    const call = turn.events.find((e) => e.type === 'tool_call');
    expect(call?.data).toMatchObject({
      category: 'host',
      call_id: 'call_select',
      name: 'select_issue',
      arguments: { number: 42 },
    });
    const final = turn.events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
    expect(final.pending_tool_call).toEqual({
      tool_name: 'select_issue',
      call_id: 'call_select',
      arguments: { number: 42 },
      queued: [],
    });
    expect(await session(id)).toMatchObject({
      status: 'requires_action',
      pending_action: { call_id: 'call_select' },
    });

    const cont = await say(id, '', { tool_call_id: 'call_select', tool_result: { selected: 42 } });
    // The continuation carries the current host context, as the host contract says.
    expect(resolvedIn(id)).toHaveLength(1);
    expect(resolvedIn(id)[0]?.hostContext?.actions?.map((a) => a.name)).toEqual([
      'select_issue',
      'open_page',
    ]);
    expect(resolvedIn(id)[0]).toMatchObject({
      actionId: 'call_select',
      resolution: { type: 'host_tool', outcome: 'succeeded', result: { selected: 42 } },
    });
    const resumed = cont.events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
    const stored = await messages(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(resumed.message_id).toBe(stored[1]?.id);
    expect(stored[1]?.content).toBe('Working on it. Done: {"selected":42}');
    expect(await session(id)).toMatchObject({ status: 'idle', pending_action: null });
  });

  it('hands the agent a failed tool result when the host reports tool_outcome failed', async () => {
    const id = sid('failed');
    await say(id, 'one', { agent_id: 'driver', ...context });
    await say(id, '', { tool_call_id: 'call_select', tool_result: 'no such issue', tool_outcome: 'failed' });
    expect(resolvedIn(id).map((r) => r.resolution)).toMatchObject([
      { outcome: 'failed', error: 'no such issue' },
    ]);
    expect((await messages(id))[1]?.content).toBe('Working on it. It failed: "no such issue"');
  });

  it('hands further host actions of one response over one at a time, as each continuation arrives', async () => {
    const id = sid('queued');
    const turn = await say(id, 'both', { agent_id: 'driver', ...context });
    const first = turn.events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
    expect(first.pending_tool_call).toMatchObject({ call_id: 'call_select', queued: ['call_open'] });
    const early = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      content: '',
      tool_call_id: 'call_open',
      tool_result: 1,
    });
    expect(early.status).toBe(409);
    const second = await say(id, '', { tool_call_id: 'call_select', tool_result: 'ok' });
    const handed = second.events.find((e) => e.type === 'final_response')?.data as Record<string, unknown>;
    expect(handed.pending_tool_call).toEqual({
      tool_name: 'open_page',
      call_id: 'call_open',
      arguments: { name: 'agents' },
      queued: [],
    });
    expect((await session(id)).pending_action).toMatchObject({ call_id: 'call_open' });
    await say(id, '', { tool_call_id: 'call_open', tool_result: 'opened' });
    expect((await messages(id))[1]?.content).toBe('Working on it. Done: "opened"');
  });

  it('refuses a duplicate continuation with 409 naming the recorded status, and a late one after a newer message as superseded', async () => {
    const id = sid('dupcall');
    await say(id, 'one', { agent_id: 'driver', ...context });
    await say(id, '', { tool_call_id: 'call_select', tool_result: 'ok' });
    const dup = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      content: '',
      tool_call_id: 'call_select',
      tool_result: 'ok',
    });
    expect(dup.status).toBe(409);
    expect(String((dup.json.error as { message: string }).message)).toMatch(
      /already recorded with status resolved \(succeeded\)/,
    );

    const other = sid('superseded');
    await say(other, 'one', { agent_id: 'driver', ...context });
    await say(other, 'never mind');
    const late = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: other,
      content: '',
      tool_call_id: 'call_select',
      tool_result: 'ok',
    });
    expect(late.status).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'superseded' });
    const frame = await watcher.request({
      action: 'assistant_message',
      session_id: other,
      content: '',
      tool_call_id: 'call_select',
      tool_result: 'ok',
    });
    expect(frame).toMatchObject({ type: 'assistant:error', error: { type: 'session', code: 'superseded' } });
  });

  it('a cancel leaves a pending host call open: 409 nothing_to_cancel over HTTP and the socket, and the continuation still resumes', async () => {
    const id = sid('cancelcall');
    await say(id, 'one', { agent_id: 'driver', ...context });
    const cancel = await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(409);
    expect(cancel.json.error).toMatchObject({ code: 'nothing_to_cancel' });
    const frame = await watcher.request({ action: 'assistant_cancel', session_id: id });
    expect(frame).toMatchObject({
      type: 'assistant:error',
      error: { type: 'session', code: 'nothing_to_cancel' },
    });
    expect(await session(id)).toMatchObject({
      status: 'requires_action',
      pending_action: { call_id: 'call_select' },
    });
    const cont = await say(id, '', { tool_call_id: 'call_select', tool_result: { selected: 42 } });
    expect(cont.events.at(-1)?.type).toBe('session.status_idle');
    expect((await messages(id))[1]?.content).toBe('Working on it. Done: {"selected":42}');
    expect(cancelledIn(id)).toEqual([]);
  });

  it('a cancel on a session paused on an approval and a host call withdraws the approval only', async () => {
    const id = sid('cancelmixed');
    await say(id, 'mixed', { agent_id: 'driver', ...context });
    expect(await session(id)).toMatchObject({
      status: 'requires_action',
      pending_action: { call_id: 'call_select' },
      pending_actions: [{ id: 'req_confirm', status: 'pending' }],
    });
    const cancel = await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(202);
    expect(cancel.json).toMatchObject({ status: 'withdrawn', withdrawn: ['req_confirm'] });
    const withdrawn = await watcher.waitFor(ended((cancel.json.run_ids as string[])[0]), 'the withdrawal');
    expect(withdrawn.type).toBe('session.status_requires_action');
    expect(await session(id)).toMatchObject({
      status: 'requires_action',
      pending_action: { call_id: 'call_select' },
      pending_actions: [],
    });
    const late = await answer(id, 'req_confirm', { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'withdrawn' });
    const cont = await say(id, '', { tool_call_id: 'call_select', tool_result: 'ok' });
    expect(cont.events.at(-1)?.type).toBe('session.status_idle');
    expect(await session(id)).toMatchObject({ status: 'idle', pending_action: null });
  });

  it('takes screenshot data URIs out of a tool result and offers them to look_at_screen; the continuation’s attachments follow the result', async () => {
    const id = sid('shot');
    await say(id, 'one', { agent_id: 'driver', ...context });
    const shot = 'data:image/png;base64,iVBORw0KGgo=';
    await say(id, '', {
      tool_call_id: 'call_select',
      tool_result: { done: true, screen: shot },
      attachments: [{ kind: 'text', text: 'the log' }],
    });
    expect(resolvedIn(id)).toHaveLength(1);
    const input = resolvedIn(id)[0]!;
    expect(JSON.stringify(input.resolution)).not.toContain('base64');
    expect(input.resolution.result).toEqual({ done: true, screen: '[screenshot 1: see look_at_screen]' });
    // A continuation's reference attachments follow the tool result.
    expect(input.attachments).toEqual([{ kind: 'text', purpose: 'reference', text: 'the log' }]);
    expect((await messages(id))[1]?.content).toContain('(saw 1 screenshot)');
  });
});

describe('timeouts', () => {
  it('refuses an answer after expiresAt even before the sweep ran', async () => {
    const id = sid('late');
    await say(id, 'lapsed', { agent_id: 'pauser' });
    const res = await answer(id, 'req_lapsed', { decision: 'approve' });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'action_expired' });
  });

  it('denies a lapsed request through resolveAction (actor system:timeout, channel timeout, expired)', async () => {
    const id = sid('sweepdeny');
    await say(id, 'lapsed', { agent_id: 'pauser' });
    await sandbox.sweep();
    await watcher.waitFor((f) => f.session_id === id && f.type === 'session.status_idle', 'the denial');
    expect(resolvedIn(id)).toMatchObject([
      {
        conversationId: refOf(id),
        actionId: 'req_lapsed',
        resolution: { decision: 'deny' },
        actor: 'system:timeout',
        channel: 'timeout',
        expired: true,
      },
    ]);
    expect((await messages(id)).at(-1)?.content).toBe('resolved req_lapsed: "deny"');
    expect((await answer(id, 'req_lapsed', { decision: 'approve' })).status).toBe(409);
  });

  it('withdraws a lapsed request under onTimeout cancel and calls the cancel hook with reason expired', async () => {
    const id = sid('sweepcancel');
    await say(id, 'lapsed', { agent_id: 'strict' });
    await sandbox.sweep();
    const event = await watcher.waitFor(
      (f) => f.session_id === id && f.type === 'action.resolved',
      'the lapse',
    );
    expect(event.data).toMatchObject({
      action_id: 'req_lapsed',
      status: 'expired',
      actor: 'system:timeout',
      expired: true,
    });
    await watcher.waitFor(
      (f) => f.session_id === id && f.type === 'session.status_idle',
      'the end of the lapse',
    );
    expect(cancelledIn(id)).toMatchObject([
      { conversationId: refOf(id), reason: 'expired', actions: [{ id: 'req_lapsed' }] },
    ]);
    expect((await session(id)).status).toBe('idle');
  });
});

describe('durability', () => {
  it('takes the continuation of a pending call after the whole sandbox was restarted on its data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-restart-'));
    try {
      let box = await testSandbox({ app, dataDir });
      const id = sid('restart');
      let host = await TestSocket.open(box.wsUrl);
      const accepted = await host.request({
        action: 'assistant_message',
        session_id: id,
        agent_id: 'driver',
        content: 'one',
        ...context(),
      });
      await host.waitFor(ended(accepted.run_id));
      await host.close();
      await box.close();

      box = await testSandbox({ app, dataDir });
      host = await TestSocket.open(box.wsUrl);
      expect((await api(box.url, 'GET', `/api/sessions/${id}`)).json).toMatchObject({
        status: 'requires_action',
        pending_action: { call_id: 'call_select' },
      });
      const cont = await host.request({
        action: 'assistant_message',
        session_id: id,
        content: '',
        tool_call_id: 'call_select',
        tool_result: 'after restart',
      });
      await host.waitFor(ended(cont.run_id));
      const stored = (await api(box.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
        content: string;
      }[];
      expect(stored[1]?.content).toBe('Working on it. Done: "after restart"');
      await host.close();
      await box.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function context() {
  return { host_context: { actions: ACTIONS } };
}

describe('per-request agents and the sweep', () => {
  it('asks the registry with { system: true, timeout: true }; without an agent a deny lapse is withdrawn instead, with a warning', async () => {
    const local = pauseAgents();
    const seen: Record<string, unknown>[] = [];
    const registration = hostAgentRegistration({ ...local.definitions[0]!, info: { id: 'tenant-bot' } });
    const tenantApp = createSwitchboard({
      agents: (ctx) => {
        seen.push(ctx.data);
        return ctx.data.timeout ? [] : [registration];
      },
    });
    const box = await testSandbox({ app: tenantApp });
    const socket = await TestSocket.open(box.wsUrl);
    const warn = vi.spyOn(Logger.prototype, 'warn');
    try {
      const accepted = await socket.request({
        action: 'assistant_message',
        session_id: 'tenant-1',
        agent_id: 'tenant-bot',
        content: 'lapsed',
      });
      await socket.waitFor(ended(accepted.run_id));
      await box.sweep();
      const resolved = await socket.waitFor((f) => f.type === 'action.resolved', 'the lapse');
      expect(resolved.data).toMatchObject({
        action_id: 'req_lapsed',
        status: 'expired',
        actor: 'system:timeout',
      });
      expect(seen).toContainEqual({ system: true, timeout: true });
      expect(local.resolved).toEqual([]);
      expect(local.cancelled).toEqual([]);
      expect(warn.mock.calls.some((c) => String(c[0]).includes('No agent for a lapsed request'))).toBe(true);
    } finally {
      warn.mockRestore();
      await socket.close();
      await box.close();
    }
  });
});
