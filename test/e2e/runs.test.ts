import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Query } from '../../lib/aws/index.ts';
import { createSwitchboard, hostAgentRegistration, type RequestContext } from '../../lib/index.ts';
import { enqueue } from '../../lib/runs/index.ts';
import {
  appendEvents,
  cancelRequestsOf,
  claimRun,
  finishRun,
  getRun,
  keys,
  lastSeq,
  listEvents,
  messageId,
  putRun,
  type RunRecord,
  renewLease,
  requestCancel,
} from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { runAgents } from '../support/run-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

const runs = runAgents();
const pauses = pauseAgents();
const app = createSwitchboard();
for (const d of [...runs.definitions, ...pauses.definitions]) app.registerHostAgent(d);
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('r');

beforeAll(async () => {
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

const idle = (sessionId: string, runId?: unknown) => turnEnded(runId, sessionId);

/** A queued turn's run record, as the API writes it, for tests that stage what a crash leaves behind. */
function queuedRun(
  sessionId: string,
  runId: string,
  agentId: string,
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    runId,
    sessionId,
    requestId: runId,
    agentId,
    userMessageId: messageId(runId, 0),
    assistantMessageId: messageId(runId, 1),
    status: 'queued',
    createdAt: new Date().toISOString(),
    kind: 'turn',
    ...extra,
  };
}

async function start(sessionId: string, agentId: string, content = 'the task') {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: agentId,
    content,
  });
  expect(accepted.type).toBe('assistant:accepted');
  return accepted.run_id as string;
}

describe('cancel', () => {
  it('aborts the signal of a running turn and keeps the text already emitted as the cancelled message', async () => {
    const id = sid('cancel');
    const runId = await start(id, 'polite');
    await runs.started(id);
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'cancelling', run_ids: [runId] });
    const end = await host.waitFor(idle(id, runId));
    expect(end.data).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      content: string;
      stop_reason?: string;
    }[];
    expect(messages[1]).toMatchObject({ content: 'Starting on the task. ', stop_reason: 'cancelled' });
    expect(runs.cancelsOf(id)).toEqual([{ conversationId: refOf(id), runId, reason: 'user' }]);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json).toMatchObject({
      status: 'idle',
      last_run: { status: 'cancelled' },
    });
  });

  it('abandons an agent that ignores the signal after the grace, and drops what it reports afterwards', async () => {
    const id = sid('stubborn');
    const runId = await start(id, 'stubborn');
    await runs.started(id);
    const cancelled = await host.request({ action: 'assistant_cancel', session_id: id });
    expect(cancelled).toMatchObject({ type: 'assistant:cancelled', status: 'cancelling' });
    await host.waitFor(idle(id, runId));
    const next = await start(id, 'stubborn', 'the next one');
    runs.release(id);
    await runs.stubbornReturned(id);
    await host.waitFor(idle(id, next));
    const log = (await api(sandbox.url, 'GET', `/api/sessions/${id}/events`)).json.events as Frame[];
    const firstRun = log.filter((e) => e.run_id === runId);
    expect(firstRun.map((e) => (e.data as { text?: string }).text).filter(Boolean)).toEqual([
      'I will not stop. ',
    ]);
  });

  it('cancels a turn queued behind another before any worker picked it up: its agent is never called', async () => {
    const id = sid('queued');
    const first = await start(id, 'polite', 'first');
    await runs.started(id);
    const second = await start(id, 'polite', 'second');
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).json.run_ids).toEqual([
      first,
      second,
    ]);
    const end = await host.waitFor(idle(id, second));
    expect(end.data).toMatchObject({ status: 'cancelled' });
    expect(runs.invokedIn(id)).toEqual(['first']);
    await expect
      .poll(
        async () => (await getRun(sandbox.runtime, refOf(id), second))?.status,
        queued('the second run cancelled'),
      )
      .toBe('cancelled');
  });

  it('answers 409 when there is nothing to cancel, and withdraws the open requests of a paused session', async () => {
    const id = sid('nothing');
    await start(id, 'pauser', 'hello');
    await host.waitFor(idle(id));
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).json.error).toMatchObject({
      code: 'nothing_to_cancel',
    });
    const paused = sid('paused');
    await start(paused, 'pauser', 'two');
    await host.waitFor(idle(paused));
    const res = await api(sandbox.url, 'POST', `/api/sessions/${paused}/cancel`);
    expect(res.json).toMatchObject({ status: 'withdrawn', withdrawn: ['req_wire', 'req_account'] });
    await host.waitFor(
      (f) =>
        f.session_id === paused &&
        f.type === 'session.status_idle' &&
        f.run_id === (res.json.run_ids as string[])[0],
    );
    expect(pauses.cancelled.filter((c) => c.conversationId === refOf(paused))).toMatchObject([
      {
        conversationId: refOf(paused),
        reason: 'withdrawn',
        actions: [{ id: 'req_wire' }, { id: 'req_account' }],
      },
    ]);
  });
});

describe('lost workers and fencing', () => {
  it('closes a turn whose worker died when its job comes back, without invoking the agent again; the session takes the next message', async () => {
    const id = sid('lost');
    await start(id, 'polite', 'warm-up');
    await runs.started(id);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(idle(id));
    // A run a worker claimed and then died on: running, its lease run out, its job back on the queue.
    const runId = `run_01M8ZZZZZZZZZZZZZZZZZZZZZZ`;
    const rt = sandbox.runtime;
    await putRun(rt, queuedRun(refOf(id), runId, 'polite', { requestId: 'lost-1' }));
    expect(await claimRun(rt, { sessionId: refOf(id), runId }, 'dead-worker', Date.now() - 10 * 60_000)).toBe(
      true,
    );
    await enqueue(rt, { v: 1, kind: 'turn', sessionId: refOf(id), runId, requestId: 'lost-1' });
    const end = await host.waitFor(idle(id, runId));
    expect(end.data).toMatchObject({ status: 'incomplete', stop_reason: 'error' });
    expect(runs.invokedIn(id)).toEqual(['warm-up']);
    await expect
      .poll(
        async () => (await getRun(rt, refOf(id), runId))?.status,
        queued('the lost run closed as incomplete'),
      )
      .toBe('incomplete');
    // The agent's backend is told after the run is closed.
    await expect
      .poll(() => runs.cancelsOf(id).filter((c) => c.runId === runId), queued('the cancel hook'))
      .toEqual([{ conversationId: refOf(id), runId, reason: 'lease_lost' }]);
    const next = await start(id, 'polite', 'after the lost one');
    await expect
      .poll(() => runs.invokedIn(id), queued('the next message to reach the agent'))
      .toEqual(['warm-up', 'after the lost one']);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    await host.waitFor(idle(id, next));
  });

  it('finds the agent of a lost run with the owner’s system context ({ system: true }), as recovery is no request', async () => {
    const seen: RequestContext[] = [];
    const cancelled: unknown[] = [];
    const bot = hostAgentRegistration({
      info: { id: 'tenant-bot' },
      invoke: async () => ({ content: 'ok' }),
      cancel: (input) => {
        cancelled.push(input);
      },
    });
    const box = await testSandbox({
      app: createSwitchboard({
        agents: (ctx) => {
          seen.push(ctx);
          return [bot];
        },
      }),
    });
    try {
      const id = sid('lost-system');
      const sent = await api(box.url, 'POST', '/api/chat', {
        session_id: id,
        agent_id: 'tenant-bot',
        content: 'hi',
        wait_ms: 10_000,
      });
      expect(sent.status, sent.text).toBe(200);
      const owner = seen[0]!;
      const runId = 'run_01M8ZZZZZZZZZZZZZZZZZZZZZY';
      await putRun(box.runtime, queuedRun(refOf(id), runId, 'tenant-bot', { requestId: 'lost-system' }));
      expect(
        await claimRun(box.runtime, { sessionId: refOf(id), runId }, 'dead-worker', Date.now() - 10 * 60_000),
      ).toBe(true);
      seen.length = 0;
      await enqueue(box.runtime, {
        v: 1,
        kind: 'turn',
        sessionId: refOf(id),
        runId,
        requestId: 'lost-system',
      });
      await expect
        .poll(() => cancelled, queued('the lease_lost hook'))
        .toEqual([{ conversationId: refOf(id), runId, reason: 'lease_lost' }]);
      expect(seen).toEqual([{ user: owner.user, data: { ...owner.data, system: true } }]);
    } finally {
      await box.close();
    }
  });

  // How a dead worker may have ended its run in the log, and the outcome the run takes from it.
  const ends: [string, [string, Record<string, unknown>][], Partial<RunRecord>][] = [
    [
      'completed',
      [
        ['final_response', { content: 'All done.', stop_reason: 'end_turn', usage: null }],
        ['session.status_idle', { status: 'completed', stop_reason: 'end_turn', detail: null }],
      ],
      { status: 'completed', stopReason: 'end_turn' },
    ],
    [
      'requires_action',
      [
        ['final_response', { content: 'May I?', stop_reason: 'requires_action', usage: null }],
        [
          'session.status_requires_action',
          { status: 'requires_action', stop_reason: 'requires_action', detail: null },
        ],
      ],
      { status: 'requires_action', stopReason: 'requires_action' },
    ],
    [
      'error',
      [
        ['session.error', { code: 'agent_error', message: 'The agent failed.', status: 500 }],
        ['session.status_idle', { status: 'error', stop_reason: 'error', detail: null }],
      ],
      { status: 'error', stopReason: 'error', error: { code: 'agent_error', message: 'The agent failed.' } },
    ],
  ];
  it.each(ends)(
    'ends a lost run as its log says when its worker logged the end (%s) before it died, writing nothing more',
    async (name, end, outcome) => {
      const id = sid(`lostend-${name}`);
      const warm = await start(id, 'pauser', 'hello');
      await host.waitFor(idle(id, warm));
      const rt = sandbox.runtime;
      // A worker claimed the run, logged it to its end and died before it wrote the outcome.
      const runId = `run_01M8Y0000000000000000000L${name.charAt(0).toUpperCase()}`;
      await putRun(rt, queuedRun(refOf(id), runId, 'polite', { requestId: runId }));
      expect(
        await claimRun(rt, { sessionId: refOf(id), runId }, 'dead-worker', Date.now() - 10 * 60_000),
      ).toBe(true);
      const from = await lastSeq(rt, refOf(id));
      const staged: [string, Record<string, unknown>][] = [
        ['session.status_running', { kind: 'turn' }],
        ['agent.message.delta', { message_id: messageId(runId, 1), text: 'All done.' }],
        ...end,
      ];
      const events = staged.map(([type, data], i) => ({
        seq: from + i + 1,
        type,
        session_id: refOf(id),
        run_id: runId,
        at: new Date().toISOString(),
        data,
      }));
      expect(await appendEvents(rt, events, 'dead-worker')).toBe(true);
      await enqueue(rt, { v: 1, kind: 'turn', sessionId: refOf(id), runId, requestId: runId });
      await expect
        .poll(async () => (await getRun(rt, refOf(id), runId))?.status, queued('the lost run to be closed'))
        .not.toBe('running');
      expect(await getRun(rt, refOf(id), runId)).toMatchObject(outcome);
      const log = await listEvents(rt, refOf(id), from, 100);
      expect(log.map((e) => e.type)).toEqual(staged.map(([type]) => type));
      expect(runs.invokedIn(id)).toEqual([]);
    },
  );

  it('rejects a stale worker’s writes: a place in the log another writer took, and an outcome over another owner’s', async () => {
    const id = sid('fence');
    const runId = await start(id, 'pauser', 'hello');
    await host.waitFor(idle(id, runId));
    const rt = sandbox.runtime;
    // Two writers that both read the log's end append after it: the first takes the place, the second
    // (the stale one) is refused, and a retry of the first's own put (its answer lost) is not.
    const next = (await lastSeq(rt, refOf(id))) + 1;
    const event = (text: string, at: string) => ({
      seq: next,
      type: 'agent.message.delta',
      session_id: refOf(id),
      at,
      data: { text },
    });
    const first = event('first', new Date().toISOString());
    expect(await appendEvents(rt, [first], 'writer-a')).toBe(true);
    expect(await appendEvents(rt, [first], 'writer-a')).toBe(true);
    expect(await appendEvents(rt, [event('zombie', new Date().toISOString())], 'writer-b')).toBe(false);
    expect((await listEvents(rt, refOf(id), next - 1, 10)).map((e) => e.data.text)).toEqual(['first']);
    expect(
      await finishRun(
        rt,
        { sessionId: refOf(id), runId },
        'someone-else',
        { status: 'error', stopReason: 'error' },
        Date.now(),
      ),
    ).toBe(false);
    expect((await getRun(rt, refOf(id), runId))?.status).toBe('completed');
  });
});

describe('cancel reads of a running run', () => {
  it('returns a cancel with the lease renewal and from the batched poll, and nothing before it was asked', async () => {
    const rt = sandbox.runtime;
    const run = { sessionId: refOf(sid('reads')), runId: 'run_01M8ZZZZZZZZZZZZZZZZZZZZZY' };
    await putRun(rt, queuedRun(run.sessionId, run.runId, 'polite'));
    expect(await claimRun(rt, run, 'worker-a', Date.now())).toBe(true);
    expect(await renewLease(rt, run, 'worker-a', Date.now())).toEqual({});
    expect(await cancelRequestsOf(rt, [run])).toEqual(new Map());
    await requestCancel(rt, run, 'user');
    expect(await renewLease(rt, run, 'worker-a', Date.now())).toEqual({ cancelRequested: 'user' });
    expect(await cancelRequestsOf(rt, [run])).toEqual(new Map([[run.runId, 'user']]));
    // Another owner's renewal is refused: the lease is not theirs.
    expect(await renewLease(rt, run, 'worker-b', Date.now())).toBeUndefined();
  });
});

describe('delete', () => {
  const partition = async (id: string) =>
    (
      await sandbox.runtime.db.send(
        new Query({
          TableName: sandbox.runtime.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.session(refOf(id)).pk },
        }),
      )
    ).Items ?? [];

  it('stops a running turn (reason deleted), answers 404 from then on, and removes every item of the session', async () => {
    const id = sid('delete');
    const runId = await start(id, 'polite');
    await runs.started(id);
    expect((await api(sandbox.url, 'DELETE', `/api/sessions/${id}`)).status).toBe(202);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
    expect(
      (await api(sandbox.url, 'POST', '/api/chat', { session_id: id, agent_id: 'polite', content: 'x' }))
        .status,
    ).toBe(404);
    await host.waitFor((f) => f.session_id === id && f.type === 'session.deleted');
    expect(runs.cancelsOf(id)).toEqual([{ conversationId: refOf(id), runId, reason: 'deleted' }]);
    await expect
      .poll(async () => (await partition(id)).length, queued('every item of the session removed'))
      .toBe(0);
  });

  it('withdraws the open requests of a paused session, the cancel hook getting them as actions', async () => {
    const id = sid('delpause');
    await start(id, 'pauser', 'two');
    await host.waitFor(idle(id));
    expect((await api(sandbox.url, 'DELETE', `/api/sessions/${id}`)).status).toBe(202);
    await host.waitFor((f) => f.session_id === id && f.type === 'session.deleted');
    expect(pauses.cancelled.filter((c) => c.conversationId === refOf(id))).toMatchObject([
      { conversationId: refOf(id), reason: 'deleted', actions: [{ id: 'req_wire' }, { id: 'req_account' }] },
    ]);
    await expect
      .poll(async () => (await partition(id)).length, queued('every item of the session removed'))
      .toBe(0);
  });
});

describe('reading the log over HTTP', () => {
  it('long-polls with wait until the next event arrives', async () => {
    const id = sid('poll');
    const runId = await start(id, 'polite');
    await runs.started(id);
    const last = (await api(sandbox.url, 'GET', `/api/sessions/${id}/events`)).json.last_seq as number;
    const waiting = api(sandbox.url, 'GET', `/api/sessions/${id}/events?after=${last}&wait=10`);
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    const res = await waiting;
    expect((res.json.events as Frame[])[0]?.seq).toBe(last + 1);
    await host.waitFor(idle(id, runId));
  });
});

describe('steering', () => {
  const contentOf = (m: { content?: unknown }) => m.content;

  it('hands a message sent with steer to the running turn that takes it; it becomes part of that turn', async () => {
    const id = sid('steer');
    const first = await start(id, 'steerable', 'first');
    await runs.started(id);
    const steer = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      content: 'also this',
      steer: true,
    });
    expect(steer.status).toBe(202);
    runs.release(id);
    const end = await host.waitFor(idle(id, first));
    const final = host.events(id).find((f) => f.type === 'final_response' && f.run_id === first);
    expect((final?.data as { content?: string } | undefined)?.content).toBe('took: also this');
    expect(
      host
        .events(id)
        .some(
          (f) => f.type === 'user.message' && (f.data as { steered_into?: string }).steered_into === first,
        ),
    ).toBe(true);
    expect(end.data).toMatchObject({ status: 'completed' });
    expect((await getRun(sandbox.runtime, refOf(id), steer.json.run_id as string))?.status).toBe('steered');
    const after = await start(id, 'steerable', 'ignore me');
    await host.waitFor(idle(id, after));
    expect(runs.invokedIn(id)).toEqual(['first', 'ignore me']);
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      content: string;
    }[];
    expect(messages.map(contentOf)).toEqual([
      'first',
      'also this',
      'took: also this',
      'ignore me',
      'did not look',
    ]);
    // A page that ends on the steered message leads on from it.
    const page = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages?limit=2`)).json;
    expect(page.next_after).toMatch(/^msg_.*_s/);
    const rest = await api(sandbox.url, 'GET', `/api/sessions/${id}/messages?after=${page.next_after}`);
    expect(rest.status).toBe(200);
    expect((rest.json.messages as { content: string }[]).map(contentOf)).toEqual([
      'took: also this',
      'ignore me',
      'did not look',
    ]);
  });

  it('runs a steering message the running turn does not take as the next turn', async () => {
    const id = sid('untaken');
    const first = await start(id, 'steerable', 'ignore the steering');
    await runs.started(id);
    const steer = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      content: 'later',
      steer: true,
    });
    runs.release(id);
    await host.waitFor(idle(id, first));
    await host.waitFor(idle(id, steer.json.run_id));
    expect(runs.invokedIn(id)).toEqual(['ignore the steering', 'later']);
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      content: string;
    }[];
    expect(messages.map(contentOf)).toEqual(['ignore the steering', 'did not look', 'later', 'took: ']);
  });

  it('refuses steering with a continuation', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: sid('nosteer'),
      content: '',
      tool_call_id: 'c',
      tool_result: 1,
      steer: true,
    });
    expect(res.status).toBe(422);
    expect((res.json.error as { issues: { path: unknown[] }[] }).issues[0]?.path).toEqual(['steer']);
  });
});

describe('ordering and lost jobs', () => {
  it('runs a message sent during a turn after that turn', async () => {
    const id = sid('order');
    const first = await start(id, 'steerable', 'ignore, first');
    await runs.started(id);
    const second = await start(id, 'steerable', 'ignore, second');
    runs.release(id);
    await host.waitFor(idle(id, second));
    const types = host.events(id).map((f) => `${f.run_id === first ? 1 : 2}:${f.type}`);
    expect(types.indexOf('1:session.status_idle')).toBeLessThan(types.indexOf('2:session.status_running'));
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      content: string;
    }[];
    expect(messages.map((m) => m.content)).toEqual([
      'ignore, first',
      'did not look',
      'ignore, second',
      'did not look',
    ]);
  });

  it('queues again a run whose job was lost between the table and the queue, and gives up on one whose job keeps failing', async () => {
    const id = sid('lostjob');
    const warm = await start(id, 'pauser', 'hello');
    await host.waitFor(idle(id, warm));
    const rt = sandbox.runtime;
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const record = (runId: string, extra: Partial<RunRecord> = {}) =>
      queuedRun(refOf(id), runId, 'pauser', { createdAt: old, ...extra });
    // Recorded but never sent: the sweep finds it through the due index and queues it again.
    const lost = 'run_01M8Y0000000000000000000LJ';
    await putRun(rt, record(lost));
    const given = 'run_01M8Y0000000000000000000GU';
    await putRun(rt, record(given, { requeues: 3 }));
    await sandbox.sweep();
    await host.waitFor(idle(id, lost));
    await expect
      .poll(async () => (await getRun(rt, refOf(id), lost))?.status, queued('the requeued run to complete'))
      .toBe('completed');
    expect((await getRun(rt, refOf(id), given))?.status).toBe('error');
    expect((await getRun(rt, refOf(id), given))?.error).toMatchObject({ code: 'job_lost' });
  });

  it('closes a claimed run whose processing fails as error instead of retrying it into a second invoke', async () => {
    // A run whose session item is missing cannot be set up: a fault on our side, after the claim,
    // which the worker names (MissingItemError) and closes the run on.
    const id = sid('nometa');
    const runId = 'run_01M8Y0000000000000000000NM';
    const rt = sandbox.runtime;
    const errors = vi.spyOn(Logger.prototype, 'error');
    try {
      await putRun(rt, queuedRun(refOf(id), runId, 'polite'));
      await enqueue(rt, { v: 1, kind: 'turn', sessionId: refOf(id), runId, requestId: runId });
      await expect
        .poll(
          async () => (await getRun(rt, refOf(id), runId))?.status,
          queued('the failed run closed as error'),
        )
        .toBe('error');
      const failures = errors.mock.calls
        .filter(([message]) => String(message).includes('A claimed run failed'))
        .map(([, extra]) => String((extra as { error?: unknown } | undefined)?.error))
        .filter((error) => error.includes(runId));
      expect(failures).toEqual([
        `MissingItemError: Run ${runId} of session ${refOf(id)} has no session item.`,
      ]);
    } finally {
      errors.mockRestore();
    }
    expect((await getRun(rt, refOf(id), runId))?.error).toMatchObject({ code: 'internal_error' });
    expect(runs.invokedIn(id)).toEqual([]);
  });
});
