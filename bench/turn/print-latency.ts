import { fmt, quantile, type Table, verdict } from '../report.ts';
import type { Floors } from './floors.ts';
import type { BenchOptions } from './options.ts';
import type { TurnResult } from './standard-turn.ts';

/** Emit-to-client latency of the standard turn's chunks beside the floors, with its goals. */
export function printLatency(
  table: Table,
  goals: Table,
  o: BenchOptions,
  turns: TurnResult[],
  floors: Floors,
) {
  const { rawWs, barePost, bareWrite } = floors;
  const latencies = turns.flatMap((t) => t.latencies);
  const missing = turns.reduce((s, t) => s + t.missing, 0);
  const p50 = quantile(latencies, 0.5);
  const p99 = quantile(latencies, 0.99);
  const rawP50 = quantile(rawWs, 0.5);
  const postP50 = quantile(barePost, 0.5);
  const writeP50 = quantile(bareWrite, 0.5);
  const latencyTarget = o.coalesceMs / 2 + 2 * postP50;
  const firsts = turns.flatMap((t) => t.firstLatencies);
  const firstP50 = quantile(firsts, 0.5);
  const firstTarget = writeP50 + postP50 + 5;
  table.section('Emit-to-client latency (agent emit → host socket), ms');
  table.row(
    `a run's first chunk p50 / p99 (${firsts.length} arrivals)`,
    `${fmt(firstP50)} / ${fmt(quantile(firsts, 0.99))}`,
    '',
    `${fmt(firstTarget)} (write + post + 5 ms)`,
    fmt(firstP50 / firstTarget, 2),
    '',
  );
  table.row(
    `the other chunks p50 / p99 (${latencies.length} arrivals, ${missing} missing)`,
    `${fmt(p50)} / ${fmt(p99)}`,
    '',
    `${fmt(latencyTarget)} (coalesceMs / 2 + 2 × bare post)`,
    fmt(p50 / latencyTarget, 2),
    '',
  );
  table.row(
    'floor: raw ws on loopback p50 / p99',
    `${fmt(rawP50, 3)} / ${fmt(quantile(rawWs, 0.99), 3)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'floor: bare SDK PostToConnection (worker client) p50 / p99',
    `${fmt(postP50, 2)} / ${fmt(quantile(barePost, 0.99), 2)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'floor: bare event-log write, one conditional PutItem (worker client) p50 / p99',
    `${fmt(writeP50, 2)} / ${fmt(quantile(bareWrite, 0.99), 2)}`,
    '',
    '',
    '',
    '',
  );
  goals.row(
    "a run's first chunk p50 ≤ one event-log write + one post + 5 ms",
    `${fmt(firstP50)} ms`,
    `${fmt(firstTarget)} ms`,
    fmt(firstP50 / firstTarget, 2),
    verdict(firstP50, firstTarget),
  );
  goals.row(
    `chunk latency p50 ≤ coalesceMs / 2 + 2 × bare post p50 (p99 ${fmt(p99)} ms)`,
    `${fmt(p50)} ms`,
    `${fmt(latencyTarget)} ms`,
    fmt(p50 / latencyTarget, 2),
    verdict(p50, latencyTarget),
  );
}
