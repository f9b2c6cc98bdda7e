import { performance } from 'node:perf_hooks';
import { api } from '../support/sandbox-api.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';
import { type Bench, sleep } from './bench-sandbox.ts';

/** What the cancels measured: how soon each agent saw its abort, and what waiting read. */
export interface CancelResult {
  latencies: number[];
  waitingSeconds: number;
  runPolls: number;
  runPollRru: number;
  /** Every GetItem of a run item in the phase (the polls, and the worker's reads at claim and close). */
  phaseRunReads: number;
  leaseRenews: number;
  failures: number;
}

/**
 * `count` cancels of an agent that waits on its backend, emitting nothing, each 300 ms to 1 s after it
 * started waiting: the latency to the agent's abort, and the run reads its waiting cost.
 */
export async function cancels(bench: Bench, count: number): Promise<CancelResult> {
  await sleep(300);
  bench.meter.reset();
  // The worker's reads of the run item, with when: those made while an agent waits are what waiting costs.
  const runReads: { at: number; rru: number }[] = [];
  const listener = bench.meter.onCall;
  bench.meter.onCall = (call) => {
    listener?.(call);
    if (call.fn === 'worker' && call.kind === 'run-poll') runReads.push({ at: call.at, rru: call.rru });
  };
  const host = await TestSocket.open(bench.sandbox.wsUrl);
  const latencies: number[] = [];
  const waits: [number, number][] = [];
  let failures = 0;
  for (let i = 0; i < count; i += 1) {
    const sessionId = `cancel-${i}`;
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: sessionId,
      agent_id: 'idle',
      content: 'wait on the backend',
    });
    const startedAt = await bench.idle.started(sessionId);
    // Spread the cancels over the poll interval: 300 ms to 1 s after the agent started waiting.
    await sleep(300 + ((i * 137) % 700));
    const t0 = performance.now();
    const res = await api(bench.sandbox.url, 'POST', `/api/sessions/${sessionId}/cancel`);
    if (res.status >= 300) failures += 1;
    const abortedAt = await Promise.race([
      bench.idle.aborted(sessionId),
      sleep(10_000).then(() => Number.NaN),
    ]);
    if (Number.isNaN(abortedAt)) failures += 1;
    else {
      latencies.push(abortedAt - t0);
      waits.push([startedAt, abortedAt]);
    }
    await host.waitFor(turnEnded(accepted.run_id, sessionId), 'the cancelled turn to close', 30_000);
  }
  await host.close();
  await sleep(300);
  bench.meter.onCall = listener;
  const s = bench.meter.snapshot();
  const whileWaiting = runReads.filter((r) => waits.some(([from, to]) => r.at >= from && r.at <= to));
  return {
    latencies,
    waitingSeconds: waits.reduce((sum, [from, to]) => sum + (to - from), 0) / 1000,
    runPolls: whileWaiting.length,
    runPollRru: whileWaiting.reduce((sum, r) => sum + r.rru, 0),
    phaseRunReads: s.count((r) => r.kind === 'run-poll'),
    leaseRenews: s.count((r) => r.kind === 'lease-renew'),
    failures,
  };
}
