import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { enqueue } from '../../lib/runs/index.ts';
import { claimRun, getRun, messageId, putRun, type RunRecord, takeOverRun } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { runAgents } from '../support/run-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * The span events of what happens to a run besides its agent's work, each driven in the sandbox and
 * read from an in-memory exporter: a lease lost to another worker and one taken over, a run the
 * sweep queues again or gives up on, a message that interrupts the running turn, and steering taken.
 */
const exporter = new InMemorySpanExporter();
const runs = runAgents();
let sandbox: Sandbox;
const sid = sessionIds('te');

beforeAll(async () => {
  const app = createSwitchboard();
  for (const d of runs.definitions) app.registerHostAgent(d);
  app.registerHostAgent({
    info: { id: 'echo' },
    invoke: async ({ message }) => ({ content: `echo: ${message}` }),
  });
  sandbox = await testSandbox({
    app,
    // A short lease: the watch renews it every second, so a lease lost shows within one.
    settings: { runs: { leaseMs: 3_000, cancelPollMs: 100, cancelGraceMs: 300 } },
    // The tests run the sweep themselves.
    sweepPeriodMs: 3_600_000,
    traces: { processors: [new SimpleSpanProcessor({ exporter })] },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

const spans = () => exporter.getFinishedSpans();
const turnOf = (runId: string) => (s: ReadableSpan) =>
  s.name === 'turn' && s.attributes['switchboard.run.id'] === runId;
const eventOf = (span: ReadableSpan | undefined, name: string) => span?.events.find((e) => e.name === name);

/** Sends a message; answers its run id. */
async function send(
  sessionId: string,
  agentId: string,
  content: string,
  extra: Record<string, unknown> = {},
) {
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    session_id: sessionId,
    agent_id: agentId,
    content,
    ...extra,
  });
  expect(res.status, res.text).toBe(202);
  return res.json.run_id as string;
}

/** A session with one finished turn, so that a staged run has its session item. */
async function session(name: string): Promise<string> {
  const id = sid(name);
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    session_id: id,
    agent_id: 'echo',
    content: 'warm-up',
    wait_ms: 10_000,
  });
  expect(res.status, res.text).toBe(200);
  return id;
}

/** A queued turn's run record as the API writes it, for a test that stages what a crash leaves. */
const queuedRun = (sessionId: string, runId: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  runId,
  sessionId,
  requestId: runId,
  agentId: 'echo',
  userMessageId: messageId(runId, 0),
  assistantMessageId: messageId(runId, 1),
  status: 'queued',
  createdAt: new Date().toISOString(),
  kind: 'turn',
  ...extra,
});

describe('leases', () => {
  it('puts switchboard.lease.lost on the turn whose worker finds another owner holding its run', async () => {
    const id = sid('lost');
    const runId = await send(id, 'polite', 'work');
    await runs.started(id);
    // Another worker takes the run over, at a time its lease has run out however often the holder
    // renewed it meanwhile: the holder's next renewal fails.
    const run = (await getRun(sandbox.runtime, refOf(id), runId))!;
    expect(run.status).toBe('running');
    const later = Date.now() + 60 * sandbox.runtime.settings.runs.leaseMs;
    expect(await takeOverRun(sandbox.runtime, run, 'other-worker', later)).toBe(true);
    await expect.poll(() => spans().some(turnOf(runId)), queued('the turn to stop')).toBe(true);
    const turn = spans().find(turnOf(runId));
    expect(eventOf(turn, 'switchboard.lease.lost')).toBeDefined();
    // Not a cancel: nobody asked, the run is another worker's now.
    expect(eventOf(turn, 'switchboard.cancel')).toBeUndefined();
  });

  it('puts switchboard.lease.taken_over, with the owner before, on the turn that takes over a dead worker’s run', async () => {
    const id = await session('taken');
    const runId = 'run_01M8ZZZZZZZZZZZZZZZZZZZZTO';
    const rt = sandbox.runtime;
    // A run a worker claimed and died on: running, its lease run out, its job back on the queue.
    await putRun(rt, queuedRun(refOf(id), runId));
    expect(await claimRun(rt, { sessionId: refOf(id), runId }, 'dead-worker', Date.now() - 10 * 60_000)).toBe(
      true,
    );
    await enqueue(rt, { v: 1, kind: 'turn', sessionId: refOf(id), runId, requestId: runId });
    await expect.poll(() => spans().some(turnOf(runId)), queued('the turn that takes over')).toBe(true);
    expect(eventOf(spans().find(turnOf(runId)), 'switchboard.lease.taken_over')?.attributes).toEqual({
      'switchboard.lease.previous_owner': 'dead-worker',
      'switchboard.run.status': 'running',
    });
    await expect
      .poll(async () => (await getRun(rt, refOf(id), runId))?.status, queued('the run closed'))
      .toBe('incomplete');
  });
});

describe('the sweep', () => {
  it('puts switchboard.run.lost on the sweep that queues a lost run again, and switchboard.run.abandoned on one it gives up on', async () => {
    const id = await session('sweep');
    const rt = sandbox.runtime;
    // Recorded long ago and never claimed (their jobs were lost); one was queued again too often already.
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const lost = 'run_01M8Y0000000000000000000LJ';
    const given = 'run_01M8Y0000000000000000000GU';
    await putRun(rt, queuedRun(refOf(id), lost, { createdAt: old }));
    await putRun(rt, queuedRun(refOf(id), given, { createdAt: old, requeues: 3 }));
    await sandbox.sweep();
    const sweep = () =>
      spans().find((s) => s.name === 'sweep' && s.events.some((e) => e.name === 'switchboard.run.lost'));
    await expect.poll(() => sweep() !== undefined, queued('the sweep span')).toBe(true);
    const lostEvents = sweep()!.events.filter(
      (e) => e.name === 'switchboard.run.lost' && e.attributes?.['switchboard.run.id'] === lost,
    );
    expect(lostEvents.map((e) => e.attributes)).toEqual([
      {
        'switchboard.session.id': id,
        'switchboard.run.id': lost,
        'switchboard.run.kind': 'turn',
        'switchboard.run.requeues': 1,
      },
    ]);
    const abandoned = spans()
      .filter((s) => s.name === 'sweep')
      .flatMap((s) => s.events)
      .filter(
        (e) => e.name === 'switchboard.run.abandoned' && e.attributes?.['switchboard.run.id'] === given,
      );
    expect(abandoned.map((e) => e.attributes)).toEqual([
      { 'switchboard.session.id': id, 'switchboard.run.id': given },
    ]);
    expect((await getRun(rt, refOf(id), given))?.status).toBe('error');
    // The run queued again runs, on the trace of the sweep that queued it.
    await expect.poll(() => spans().some(turnOf(lost)), queued('the requeued turn')).toBe(true);
    expect(spans().find(turnOf(lost))?.spanContext().traceId).toBe(sweep()!.spanContext().traceId);
  });
});

describe('what a message does to the running turn', () => {
  it('puts switchboard.interrupt, with the runs it stopped, on the request of a message sent with on_busy interrupt', async () => {
    const id = sid('interrupt');
    const first = await send(id, 'polite', 'first');
    await runs.started(id);
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: id, agent_id: 'polite', content: 'second', on_busy: 'interrupt' },
      { headers: { traceparent: `00-${traceId}-${traceId.slice(0, 16)}-01` } },
    );
    expect(res.status, res.text).toBe(202);
    expect(res.json.interrupted).toEqual([first]);
    const request = () =>
      spans().find((s) => s.spanContext().traceId === traceId && s.name === 'POST /api/chat');
    await expect.poll(() => request() !== undefined, queued('the request span')).toBe(true);
    expect(eventOf(request(), 'switchboard.interrupt')?.attributes).toEqual({
      'switchboard.run.id': res.json.run_id,
      'switchboard.interrupted.run_ids': [first],
    });
    // The turn it stopped says so too: a cancel the user asked for.
    await expect.poll(() => spans().some(turnOf(first)), queued('the interrupted turn')).toBe(true);
    expect(eventOf(spans().find(turnOf(first)), 'switchboard.cancel')?.attributes).toMatchObject({
      'switchboard.cancel.reason': 'user',
    });
    await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
  });

  it('puts switchboard.steering.taken, with the steered run, on the turn that takes a steering message', async () => {
    const id = sid('steer');
    const first = await send(id, 'steerable', 'first');
    await runs.started(id);
    const steer = await send(id, 'steerable', 'also this', { steer: true });
    runs.release(id);
    await expect.poll(() => spans().some(turnOf(first)), queued('the steered turn')).toBe(true);
    const taken = spans()
      .find(turnOf(first))!
      .events.filter((e) => e.name === 'switchboard.steering.taken');
    expect(taken.map((e) => e.attributes)).toEqual([{ 'switchboard.steered.run_id': steer }]);
    expect((await getRun(sandbox.runtime, refOf(id), steer))?.status).toBe('steered');
  });
});
