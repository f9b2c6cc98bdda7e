import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { enqueue, runTurn } from '../../lib/runs/index.ts';
import {
  appendEvents,
  claimRun,
  finishRun,
  getRun,
  getSession,
  lastSeq,
  messageId,
  putRun,
  type RunRecord,
} from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { usageAgents } from '../support/usage-agents.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

const app = createSwitchboard({
  // The server's prices: `capped` has its own for `small`, which wins; `big` is priced here.
  pricing: { small: { input: 50, output: 50 }, big: { input: 1, output: 2 } },
  budget: { sessionUsd: 100 },
});
for (const definition of usageAgents()) app.registerHostAgent(definition);
let sandbox: Sandbox;
/** The runtime's clock, moved on by the rolling-day tests (and put back by them). */
let offsetMs = 0;
const sid = sessionIds('u');

const PER_USER = 5;
const PER_TENANT = 8;

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    // `user@tenant` is who a token is, so that every test spends as its own owner and tenant.
    tokens: (token) => {
      const [user = '', tenant] = token.split('@');
      return user ? { user, ...(tenant && { tenant }) } : null;
    },
    clock: () => Date.now() + offsetMs,
    settings: { budgets: { perUserDailyUsd: PER_USER, perTenantDailyUsd: PER_TENANT } },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

/** A JSON request as the owner `token` names. */
const as = (token: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

const ENDS = new Set(['session.status_idle', 'session.status_requires_action']);

/** The events of a run, once its end is in the log (read with the events long poll). */
async function runEvents(token: string, id: string, runId: unknown): Promise<Frame[]> {
  let events: Frame[] = [];
  await expect
    .poll(
      async () => {
        const res = await as(token, 'GET', `/api/sessions/${id}/events?after=0&limit=1000&wait=1`);
        events = (res.json.events as Frame[]).filter((e) => e.run_id === runId);
        return events.some((e) => ENDS.has(e.type));
      },
      queued(`the end of run ${String(runId)}`),
    )
    .toBe(true);
  return events;
}

/** Sends a message whose content is the agent's plan; waits for its turn's end. */
async function turn(token: string, id: string, agent: string, plan: unknown, extra: object = {}) {
  const res = await as(token, 'POST', '/api/chat', {
    session_id: id,
    agent_id: agent,
    content: JSON.stringify(plan),
    ...extra,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const events = await runEvents(token, id, res.json.run_id);
  const end = events.find((e) => ENDS.has(e.type))?.data as Record<string, unknown>;
  const final = events.find((e) => e.type === 'final_response')?.data as Record<string, unknown> | undefined;
  return { runId: res.json.run_id as string, requestId: res.json.request_id as string, events, end, final };
}

const cost = (usd: number) => ({ result: { content: 'ok', usage: { costUsd: usd } } });
const session = async (token: string, id: string) => (await as(token, 'GET', `/api/sessions/${id}`)).json;

describe('usage and pricing', () => {
  it('adds the usage events of a turn, each priced by its own model (the agent’s price over the server’s); shown on the answer, the run, the idle event and the session', async () => {
    const [token, id] = ['pricing@t-pricing', sid('priced')];
    const first = await turn(token, id, 'capped', {
      emit: [
        { inputTokens: 1_000_000, outputTokens: 0, model: 'small' }, // the agent's 0.1 per million, not the server's 50
        { inputTokens: 0, outputTokens: 250_000, model: 'big' }, // the server's 2 per million: 0.5
        { costUsd: 0.01, inputTokens: 7, model: 'big' }, // a cost as given is not priced again
        { inputTokens: 10, model: 'unknown' }, // no price: it costs nothing
      ],
      result: {},
    });
    expect(first.final?.usage).toMatchObject({
      inputTokens: 1_000_017,
      outputTokens: 250_000,
      costUsd: 0.61,
    });
    expect(first.end).toMatchObject({ status: 'completed', stop_reason: 'end_turn', spent_usd: 0.61 });
    expect(first.end.usage).toMatchObject({ costUsd: 0.61 });
    const shown = await session(token, id);
    expect(shown).toMatchObject({ spent_usd: 0.61, budget_usd: 1, last_run: { usage: { costUsd: 0.61 } } });
    const { json } = await as(token, 'GET', `/api/sessions/${id}/messages`);
    expect((json.messages as Record<string, unknown>[])[1]).toMatchObject({ usage: { costUsd: 0.61 } });

    // The result's usage replaces the emitted events; cached input tokens are priced at cachedInput.
    const second = await turn(token, id, 'capped', {
      emit: [{ costUsd: 0.9 }],
      result: {
        content: 'ok',
        usage: { inputTokens: 1_000_000, cachedInputTokens: 500_000, outputTokens: 0, model: 'small' },
      },
    });
    expect(second.final?.usage).toMatchObject({ costUsd: 0.06 });
    expect(second.end.spent_usd).toBe(0.67);
    expect(await session(token, id)).toMatchObject({ spent_usd: 0.67 });
  });

  it('counts what a turn that failed had reported, and shows it on its idle event', async () => {
    const [token, id] = ['failing@t-failing', sid('failed')];
    const failed = await turn(token, id, 'open', { emit: [{ costUsd: 0.25 }], throw: true });
    expect(failed.end).toMatchObject({ status: 'error', spent_usd: 0.25, usage: { costUsd: 0.25 } });
    expect(await session(token, id)).toMatchObject({ spent_usd: 0.25, budget_usd: null });
  });
});

describe('a session budget', () => {
  it('completes the turn that reaches it with budget_reached, then refuses the next message with 402 stating spent and budget, storing nothing', async () => {
    const [token, id] = ['budget@t-budget', sid('budget')];
    expect((await turn(token, id, 'capped', cost(0.6))).end.stop_reason).toBe('end_turn');
    const crossing = await turn(token, id, 'capped', cost(0.6));
    expect(crossing.final).toMatchObject({ stop_reason: 'budget_reached' });
    expect(crossing.end).toMatchObject({
      status: 'completed',
      stop_reason: 'budget_reached',
      spent_usd: 1.2,
    });
    expect(await session(token, id)).toMatchObject({
      status: 'idle',
      spent_usd: 1.2,
      budget_usd: 1,
      last_run: { status: 'completed', stop_reason: 'budget_reached' },
    });

    const before = await as(token, 'GET', `/api/sessions/${id}/events?after=0&limit=1000`);
    const messagesBefore = (await as(token, 'GET', `/api/sessions/${id}/messages`)).json.messages;
    const refused = await as(token, 'POST', '/api/chat', { id: 'over', session_id: id, content: '{}' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({
      code: 'budget_exceeded',
      spent_usd: 1.2,
      budget_usd: 1,
      scope: 'session',
    });
    expect((refused.json.error as { message: string }).message).toContain('$1.20');
    expect((refused.json.error as { message: string }).message).toContain('$1.00');
    // Nothing stored: no message, no event, and the request id is still unused.
    expect((await as(token, 'GET', `/api/sessions/${id}/messages`)).json.messages).toEqual(messagesBefore);
    expect((await as(token, 'GET', `/api/sessions/${id}/events?after=0&limit=1000`)).json.last_seq).toBe(
      before.json.last_seq,
    );
    expect((await as(token, 'POST', '/api/chat', { id: 'over', session_id: id, content: '{}' })).status).toBe(
      402,
    );
    // The retry of a message accepted before the budget was reached is the same message: it answers as it did.
    const retry = await as(token, 'POST', '/api/chat', {
      id: crossing.requestId,
      session_id: id,
      content: JSON.stringify(cost(0.6)),
    });
    expect(retry.status).toBe(202);
    expect(retry.json).toMatchObject({ run_id: crossing.runId, duplicate: true });
  });

  it('refuses over the WebSocket with an assistant:error of type limit', async () => {
    const [token, id] = ['ws@t-ws', sid('ws')];
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${encodeURIComponent(token)}`);
    try {
      const accepted = await socket.request({
        action: 'assistant_message',
        session_id: id,
        agent_id: 'capped',
        content: JSON.stringify(cost(1.5)),
      });
      expect(accepted.type).toBe('assistant:accepted');
      const end = await socket.waitFor(
        (f) => f.type === 'session.status_idle' && f.run_id === accepted.run_id,
        'the end of the turn',
      );
      expect(end.data).toMatchObject({ stop_reason: 'budget_reached', spent_usd: 1.5 });
      const refused = await socket.request({
        action: 'assistant_message',
        id: 'ws-over',
        session_id: id,
        content: '{}',
      });
      expect(refused).toMatchObject({
        type: 'assistant:error',
        request_id: 'ws-over',
        error: { type: 'limit', code: 'budget_exceeded', spent_usd: 1.5, budget_usd: 1, scope: 'session' },
      });
    } finally {
      await socket.close();
    }
  });

  it('lets the answers to an open pause and a host call’s continuation through after the budget was crossed mid-pause', async () => {
    const [token, id] = ['pause@t-pause', sid('pause')];
    const paused = await turn(
      token,
      id,
      'capped',
      {
        calls: [{ id: 'call_1', name: 'open_page', args: { replyUsage: { costUsd: 0.1 } } }],
        result: {
          content: 'Two things first.',
          usage: { costUsd: 0.7 },
          pendingActions: [
            { id: 'req_a', type: 'tool_approval', toolName: 'a', args: { replyUsage: { costUsd: 0.5 } } },
            { id: 'req_b', type: 'tool_approval', toolName: 'b' },
          ],
        },
      },
      {
        host_context: {
          version: 1,
          actions: [{ name: 'open_page', parameters: { type: 'object', properties: {} } }],
        },
      },
    );
    expect(paused.end).toMatchObject({ status: 'requires_action', spent_usd: 0.7 });

    // The answer to the first request costs 0.5 and carries the others on: the budget is crossed mid-pause.
    const first = await as(token, 'POST', `/api/sessions/${id}/actions/req_a`, { decision: 'approve' });
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    const answered = await runEvents(token, id, first.json.run_id);
    expect(answered.find((e) => ENDS.has(e.type))?.data).toMatchObject({
      status: 'requires_action',
      spent_usd: 1.2,
    });
    expect(await session(token, id)).toMatchObject({ status: 'requires_action', spent_usd: 1.2 });

    // A new message is refused; the continuation of the pending host call and the last answer go through.
    expect((await as(token, 'POST', '/api/chat', { session_id: id, content: '{}' })).status).toBe(402);
    const continued = await as(token, 'POST', '/api/chat', {
      session_id: id,
      content: '',
      tool_call_id: 'call_1',
      tool_result: { opened: true },
    });
    expect(continued.status, JSON.stringify(continued.json)).toBe(202);
    const resumed = await runEvents(token, id, continued.json.run_id);
    expect(resumed.find((e) => ENDS.has(e.type))?.data).toMatchObject({ spent_usd: 1.3 });
    const last = await as(token, 'POST', `/api/sessions/${id}/actions/req_b`, { decision: 'deny' });
    expect(last.status, JSON.stringify(last.json)).toBe(202);
    const done = await runEvents(token, id, last.json.run_id);
    expect(done.find((e) => ENDS.has(e.type))?.data).toMatchObject({ status: 'completed', spent_usd: 1.3 });
    expect((await as(token, 'POST', '/api/chat', { session_id: id, content: '{}' })).status).toBe(402);
  });
});

describe('rolling-day limits per owner and per tenant', () => {
  it('refuses an owner’s new message in any session once their day’s spend reaches the limit, until the hour of that spend is 24 hours old', async () => {
    const [token, other] = ['daily@t-daily', 'neighbour@t-daily'];
    const [a, b, c] = [sid('day-a'), sid('day-b'), sid('day-c')];
    const started = Date.now();
    expect((await turn(token, a, 'open', cost(3))).end.stop_reason).toBe('end_turn');
    // The turn that reaches the owner's limit, in another session, says so.
    expect((await turn(token, b, 'open', cost(2.5))).end).toMatchObject({ stop_reason: 'budget_reached' });
    const refused = await as(token, 'POST', '/api/chat', { session_id: c, agent_id: 'open', content: '{}' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({
      code: 'budget_exceeded',
      scope: 'user',
      budget_usd: PER_USER,
    });
    expect((refused.json.error as { spent_usd: number }).spent_usd).toBeCloseTo(5.5);
    expect((refused.json.error as { message: string }).message).toContain('last 24 hours');
    // Nothing was stored for it: not even its new session.
    expect((await as(token, 'GET', `/api/sessions/${c}`)).status).toBe(404);
    // Another user of the same tenant has a day of their own.
    expect((await turn(other, sid('day-n'), 'open', cost(0.1))).end.stop_reason).toBe('end_turn');
    // A spend leaves the day at the end of the hour 24 hours after the hour it was accepted in
    // (lib/store/spend.ts): still counted a minute before that end, not after it (the second turn
    // may be an hour later than the first: then it alone is left, under the limit).
    const endOfItsHour = (Math.floor(started / 3_600_000) + 1) * 3_600_000 - Date.now();
    offsetMs = 24 * 3_600_000 + endOfItsHour - 60_000;
    try {
      expect(
        (await as(token, 'POST', '/api/chat', { session_id: c, agent_id: 'open', content: '{}' })).status,
      ).toBe(402);
    } finally {
      offsetMs = 0;
    }
    offsetMs = 24 * 3_600_000 + endOfItsHour + 60_000;
    try {
      expect((await turn(token, c, 'open', cost(0.1))).end.stop_reason).toBe('end_turn');
    } finally {
      offsetMs = 0;
    }
  });

  it('refuses every owner of a tenant once the tenant’s day reaches its limit; other tenants go on', async () => {
    const tenant = 't-tenant';
    expect((await turn(`ann@${tenant}`, sid('ten-a'), 'open', cost(4.5))).end.stop_reason).toBe('end_turn');
    expect((await turn(`ben@${tenant}`, sid('ten-b'), 'open', cost(4))).end.stop_reason).toBe(
      'budget_reached',
    );
    const refused = await as(`cid@${tenant}`, 'POST', '/api/chat', {
      session_id: sid('ten-c'),
      agent_id: 'open',
      content: '{}',
    });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ scope: 'tenant', budget_usd: PER_TENANT, spent_usd: 8.5 });
    expect((await turn('cid@t-elsewhere', sid('ten-d'), 'open', cost(1))).end.stop_reason).toBe('end_turn');
  });
});

describe('the spend is counted once per run', () => {
  const rt = () => sandbox.runtime;

  function run(id: string, runId: string, owner: string): RunRecord {
    return {
      runId,
      sessionId: refOf(id, owner.split('@')[0], owner.split('@')[1]),
      requestId: runId,
      agentId: 'open',
      userMessageId: messageId(runId, 0),
      assistantMessageId: messageId(runId, 1),
      status: 'queued',
      createdAt: new Date().toISOString(),
      kind: 'turn',
    };
  }

  it('counts a run whose worker wrote its outcome and died before counting it, once, however often its job comes back', async () => {
    const owner = 'crash@t-crash';
    const id = sid('crash-outcome');
    await turn(owner, id, 'open', cost(0.2));
    const staged = run(id, 'run_01M8Y00000000000000000SP01', owner);
    await putRun(rt(), staged);
    expect(await claimRun(rt(), staged, 'dead-worker', Date.now())).toBe(true);
    expect(
      await finishRun(
        rt(),
        staged,
        'dead-worker',
        { status: 'completed', stopReason: 'end_turn', usage: { costUsd: 0.3 } },
        Date.now(),
      ),
    ).toBe(true);
    const job = { v: 1 as const, kind: 'turn' as const, sessionId: staged.sessionId, runId: staged.runId };
    for (const worker of ['next-delivery', 'another-delivery', 'a-third'])
      await runTurn(rt(), app, { ...job, requestId: staged.requestId }, worker);
    expect((await getSession(rt(), staged.sessionId))?.spentUsd).toBeCloseTo(0.5);
    expect((await session(owner, id)).spent_usd).toBe(0.5);
  });

  it('counts a run whose worker logged its end with its usage and died before writing the outcome, as the log says', async () => {
    const owner = 'lost@t-lost';
    const id = sid('crash-log');
    await turn(owner, id, 'open', cost(0.2));
    const staged = run(id, 'run_01M8Y00000000000000000SP02', owner);
    await putRun(rt(), staged);
    expect(await claimRun(rt(), staged, 'dead-worker', Date.now() - 10 * 60_000)).toBe(true);
    const from = await lastSeq(rt(), staged.sessionId);
    const end = {
      status: 'completed',
      stop_reason: 'end_turn',
      detail: null,
      spent_usd: 0.9,
      usage: { costUsd: 0.7 },
    };
    const events = (
      [
        ['session.status_running', { kind: 'turn' }],
        ['session.status_idle', end],
      ] as const
    ).map(([type, data], i) => ({
      seq: from + i + 1,
      type,
      session_id: staged.sessionId,
      run_id: staged.runId,
      at: new Date().toISOString(),
      data,
    }));
    expect(await appendEvents(rt(), events, 'dead-worker')).toBe(true);
    await enqueue(rt(), {
      v: 1,
      kind: 'turn',
      sessionId: staged.sessionId,
      runId: staged.runId,
      requestId: staged.requestId,
    });
    await expect
      .poll(
        async () => (await getRun(rt(), staged.sessionId, staged.runId))?.status,
        queued('the lost run to be closed'),
      )
      .toBe('completed');
    expect((await getRun(rt(), staged.sessionId, staged.runId))?.usage).toMatchObject({ costUsd: 0.7 });
    await expect.poll(async () => (await session(owner, id)).spent_usd, queued('the spend')).toBe(0.9);
    // Its job again (a redelivery): nothing more is counted.
    await runTurn(
      rt(),
      app,
      { v: 1, kind: 'turn', sessionId: staged.sessionId, runId: staged.runId, requestId: staged.requestId },
      'late',
    );
    expect((await session(owner, id)).spent_usd).toBe(0.9);
  });
});

describe('argsSchema from toJsonSchema', () => {
  it('checks approvedArgs against the argsSchema toJsonSchema made: 422 at the field, then the valid ones reach resolveAction', async () => {
    const [token, id] = ['approver@t-approver', sid('args')];
    const paused = await turn(token, id, 'approver', {});
    expect(paused.end.status).toBe('requires_action');
    const path = `/api/sessions/${id}/actions/req_wire`;
    const bad = await as(token, 'POST', path, {
      decision: 'approve',
      approved_args: { amount: 500, account: 'main' },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toMatchObject({ issues: [{ path: ['approved_args', 'amount'] }] });
    const wrongKind = await as(token, 'POST', path, {
      decision: 'approve',
      approved_args: { amount: 5, account: 'x' },
    });
    expect(wrongKind.json.error).toMatchObject({ issues: [{ path: ['approved_args', 'account'] }] });
    const good = await as(token, 'POST', path, {
      decision: 'approve',
      approved_args: { amount: 50, account: 'savings' },
    });
    expect(good.status).toBe(202);
    const reply = await runEvents(token, id, good.json.run_id);
    expect(reply.find((e) => e.type === 'final_response')?.data).toMatchObject({
      content: expect.stringContaining('"approvedArgs":{"amount":50,"account":"savings"}'),
    });
  });

  it('refuses a result whose argsSchema is no usable JSON Schema as invalid_host_result, storing no pause', async () => {
    const [token, id] = ['badschema@t-approver', sid('badschema')];
    const res = await as(token, 'POST', '/api/chat', {
      session_id: id,
      agent_id: 'approver',
      content: 'bad schema',
    });
    const events = await runEvents(token, id, res.json.run_id);
    expect(events.find((e) => e.type === 'session.error')?.data).toMatchObject({
      code: 'invalid_host_result',
    });
    expect((await session(token, id)).pending_actions).toEqual([]);
  });
});
