import { performance } from 'node:perf_hooks';
import type { MeterSnapshot } from '../../sandbox/metering.ts';
import { mean, windowsOf } from '../report.ts';
import { APPROVAL_ID, type TurnShape } from '../support/agents.ts';
import { api } from '../support/sandbox-api.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';
import { chunkLatencies, distinctEvents, recordArrivals } from './arrivals.ts';
import { type Bench, sleep } from './bench-sandbox.ts';

/** What one standard turn measured: its calls, its events, its latencies and its invocations. */
export interface TurnResult {
  snapshot: MeterSnapshot;
  chunks: number;
  /** Events of the log that are not text deltas (tool events, status, user message, answer, …). */
  otherEvents: number;
  /** The agent's emits grouped into windows of coalesceMs. */
  emitWindows: number;
  /** The log's events grouped by their `at` into windows of coalesceMs. */
  logWindows: number;

  latencies: number[];
  /** Latencies of each run's first chunk, on every connection. */
  firstLatencies: number[];
  missing: number;
  /** Raw frames each connection received. */
  framesPerConnection: number[];
  connectionMinutes: number;
  wsInvocationMs: number[];
  httpInvocationMs: number[];
  workerInvocationMs: number[];
  /** Frames the hosts sent (each answered by one route response). */
  hostFrames: number;
}

/**
 * The standard turn (`shape`) on the bench's sandbox, the `n`th: a message from one of two hosts, the
 * other joined, the approval answered over HTTP; the meter reset before it and read after it.
 */
export async function standardTurn(bench: Bench, n: number, shape: TurnShape): Promise<TurnResult> {
  const o = bench.options;
  const sessionId = `std-${n}`;
  await sleep(300);
  bench.meter.reset();
  bench.receipts.length = 0;
  const wsInvocationMs: number[] = [];
  const opened = performance.now();
  const sockets: TestSocket[] = [];
  for (let i = 0; i < o.connections; i += 1) {
    const t = performance.now();
    sockets.push(await TestSocket.open(bench.sandbox.wsUrl));
    wsInvocationMs.push(performance.now() - t);
  }
  const [sender, joiner] = sockets as [TestSocket, TestSocket];
  const logs = sockets.map(recordArrivals);
  let t = performance.now();
  const accepted = await sender.request({
    action: 'assistant_message',
    id: `std-${n}`,
    session_id: sessionId,
    agent_id: 'paced',
    content: JSON.stringify(shape),
  });
  wsInvocationMs.push(performance.now() - t);
  if (accepted.type !== 'assistant:accepted') throw new Error(`not accepted: ${JSON.stringify(accepted)}`);
  t = performance.now();
  await joiner.request({ action: 'assistant_join_session', session_id: sessionId, after_seq: 0 });
  wsInvocationMs.push(performance.now() - t);
  bench.paced.release(sessionId);

  const runEnds: number[] = [];
  await sender.waitFor(turnEnded(accepted.run_id), 'the turn to pause', o.turnTimeoutMs);
  runEnds.push(performance.now());
  const httpInvocationMs: number[] = [];
  let runId = accepted.run_id;
  if (shape.approval) {
    t = performance.now();
    const answer = await api<{ run_id: string }>(
      bench.sandbox.url,
      'POST',
      `/api/sessions/${sessionId}/actions/${APPROVAL_ID}`,
      { decision: 'approve' },
    );
    httpInvocationMs.push(performance.now() - t);
    if (answer.status !== 202) throw new Error(`the answer was refused: ${answer.status} ${answer.text}`);
    runId = answer.json.run_id;
    await sender.waitFor(turnEnded(runId), 'the answer to run', o.turnTimeoutMs);
    runEnds.push(performance.now());
  }
  await joiner.waitFor(turnEnded(runId), 'the joined host to see the end', o.turnTimeoutMs);
  const before = [...sockets.map((s) => s.close())];
  await Promise.all(before);
  const closed = performance.now();
  // $disconnect has no answer to wait for; measured like a route that writes a little.
  wsInvocationMs.push(
    ...Array.from({ length: o.connections }, () => mean(wsInvocationMs.slice(o.connections))),
  );
  await sleep(500);
  const snapshot = bench.meter.snapshot();

  const record = bench.paced.recordOf(sessionId);
  const all = logs.flatMap((l) => l.arrivals).filter((a) => a.sessionId === sessionId);
  const events = distinctEvents(logs[0]?.arrivals ?? []);
  const { latencies, first, missing } = chunkLatencies(record, all);
  const receipts = [...bench.receipts].sort((a, b) => a - b);
  const result: TurnResult = {
    snapshot,
    chunks: record.chunks.size,
    otherEvents: events.filter((e) => e.type !== 'agent.message.delta').length,
    emitWindows: windowsOf(record.emits, o.coalesceMs),
    logWindows: windowsOf(
      events.map((e) => e.stamped),
      o.coalesceMs,
    ),
    latencies,
    firstLatencies: first,
    missing: missing + logs.slice(1).reduce((s, l) => s + chunkLatencies(record, l.arrivals).missing, 0),
    framesPerConnection: logs.map((l) => l.frames()),
    connectionMinutes: (o.connections * (closed - opened)) / 60_000,
    wsInvocationMs,
    httpInvocationMs,
    workerInvocationMs: runEnds.map((end, i) => end - (receipts[i] ?? end)),
    hostFrames: 2,
  };
  bench.paced.forget(sessionId);
  return result;
}
