import { performance } from 'node:perf_hooks';
import { meter } from '../../sandbox/metering.ts';
import { startSandbox } from '../../sandbox/sandbox.ts';
import { type CpuShares, profiled } from '../cpu.ts';
import { expectedText, type TurnShape } from '../support/agents.ts';
import { TEST_LIMITS } from '../support/limits.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';
import { chunkLatencies, distinctEvents, recordArrivals } from './arrivals.ts';
import type { Bench } from './bench-sandbox.ts';

/** What many sessions streaming at once measured. */
export interface ManyResult {
  sessions: number;
  /** Sessions whose turn ended (on the host's socket) before the deadline. */
  completed: number;
  /** Chunks that never reached their host by the deadline. */
  lost: number;
  duplicated: number;
  outOfOrder: number;
  /** Sessions whose received seqs are not 1, 2, 3, … */
  gaps: number;
  latencies: number[];
  /** From the release of the agents to the last end, or to the deadline. */
  wallMs: number;
  calls: number;
  /** Whether the deadline cut the run short (its sandbox is then left to the process's exit). */
  cutShort: boolean;
  /** The CPU this process spent from the release to the last end, by whose code it ran. */
  cpu: CpuShares;
}

/**
 * `count` sessions streaming at once, on a sandbox of their own (so that a backlog they leave
 * cannot slow the other parts), each with one connection. Turns that have not ended `deadlineMs`
 * after the agents were let go are counted as lost where they had not delivered.
 */
export async function manySessions(bench: Bench, count: number): Promise<ManyResult> {
  const o = bench.options;
  const deadlineMs = o.manyDeadlineMs;
  const shape: TurnShape = { before: o.manyChunks, after: 0, intervalMs: 20, toolCalls: 0, approval: false };
  const own = await startSandbox({
    app: bench.app,
    port: 0,
    logLevel: 'ERROR',
    sweepPeriodMs: 3_600_000,
    // As on AWS, where the queue's visibility is above the worker's timeout: a slow turn's job is not
    // delivered again while it runs.
    visibilityTimeoutSeconds: 330,
    settings: { limits: TEST_LIMITS, stream: { coalesceMs: o.coalesceMs } },
    // Every session's first frame at once, as Lambda would take them: the pool does not refuse any.
    concurrency: count,
  });
  const counting = meter(own.runtimes);
  const sockets: TestSocket[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, () => TestSocket.open(own.wsUrl)),
    );
    sockets.push(...batch);
  }
  const logs = sockets.map(recordArrivals);
  const ids = sockets.map((_, i) => `many-${i}`);
  const accepted = await Promise.all(
    sockets.map((s, i) =>
      s.request({
        action: 'assistant_message',
        session_id: ids[i],
        agent_id: 'paced',
        content: JSON.stringify(shape),
      }),
    ),
  );
  const started = performance.now();
  let last = started;
  const { result: ended, cpu } = await profiled(() => {
    for (const id of ids) bench.paced.release(id);
    return Promise.all(
      sockets.map((s, i) =>
        s.waitFor(turnEnded(accepted[i]?.run_id), `session ${ids[i]} to end`, deadlineMs).then(
          () => {
            last = Math.max(last, performance.now());
            return true;
          },
          () => false,
        ),
      ),
    );
  });
  const completed = ended.filter(Boolean).length;
  const expected = expectedText(shape);
  const result: ManyResult = {
    sessions: count,
    completed,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
    gaps: 0,
    latencies: [],
    wallMs: (completed === count ? last : performance.now()) - started,
    calls: counting.snapshot().count((r) => r.kind !== 'idle-receive'),
    cutShort: completed < count,
    cpu,
  };
  counting.stop();
  ids.forEach((id, i) => {
    const arrivals = (logs[i]?.arrivals ?? []).filter((a) => a.sessionId === id);
    const seqs = arrivals.map((a) => a.seq);
    result.duplicated += seqs.length - new Set(seqs).size;
    result.outOfOrder += seqs.filter((s, k) => k > 0 && s < (seqs[k - 1] ?? 0)).length;
    const distinct = [...new Set(seqs)].sort((a, b) => a - b);
    result.gaps += distinct.some((s, k) => s !== k + 1) ? 1 : 0;
    const text = distinctEvents(arrivals)
      .filter((a) => a.type === 'agent.message.delta')
      .map((a) => a.text)
      .join('');
    const { latencies, missing } = chunkLatencies(bench.paced.recordOf(id), arrivals);
    // A text that differs from what was streamed, with every chunk present, is a chunk out of order.
    if (text !== expected && missing === 0) result.outOfOrder += 1;
    const lost = shape.before - bench.paced.recordOf(id).chunks.size + missing;
    result.lost += lost;
    // An undelivered chunk is later than any delivered one: it counts in the percentiles as never.
    result.latencies.push(...latencies, ...Array.from({ length: lost }, () => Number.POSITIVE_INFINITY));
    bench.paced.forget(id);
  });
  if (!result.cutShort) {
    await Promise.all(sockets.map((s) => s.close()));
    await own.close();
  }
  return result;
}
