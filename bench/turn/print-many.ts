import type { CpuOwner } from '../cpu.ts';
import { fmt, quantile, type Table, verdict } from '../report.ts';
import type { ManyResult } from './many.ts';
import type { BenchOptions } from './options.ts';

/**
 * Many sessions at once beside one alone: what was lost, the latency beside the standard turn's
 * (`singleP99`), and the runtime's CPU per turn, with their goals.
 */
export function printMany(
  table: Table,
  goals: Table,
  o: BenchOptions,
  runs: { one: ManyResult; many: ManyResult; singleP99: number },
) {
  const { one, many, singleP99 } = runs;
  // 200 sessions, after one alone: the runtime's CPU per turn of each, and the latencies.
  const manyP99 = quantile(many.latencies, 0.99);
  const runtimePerTurn = (r: ManyResult) => r.cpu.runtime / Math.max(1, r.completed);
  const cpuRatio = runtimePerTurn(many) / runtimePerTurn(one);
  const share = (r: ManyResult, owner: CpuOwner) => `${fmt((100 * r.cpu[owner]) / r.cpu.total, 0)}%`;
  table.section(
    `${o.sessions} sessions at once, ${o.manyChunks} chunks each at 50/s, 1 connection each, on a sandbox of their own; ` +
      `deadline ${o.manyDeadlineMs / 1000} s${many.cutShort ? ' (cut short: what had not arrived counts as lost, its latency as ∞)' : ''}`,
  );
  table.row(
    'completed / lost / duplicated / out of order / with gaps',
    `${many.completed} / ${many.lost} / ${many.duplicated} / ${many.outOfOrder} / ${many.gaps}`,
    '',
    `${o.sessions} / 0 / 0 / 0 / 0`,
    '',
    '',
  );
  table.row(
    'latency p50 / p99 (ms)',
    `${fmt(quantile(many.latencies, 0.5))} / ${fmt(manyP99)}`,
    '',
    `${fmt(10 * singleP99)} (10 × single p99)`,
    fmt(manyP99 / singleP99, 2),
    '',
  );
  table.row(
    'wall time from release to the last end (s) / AWS requests',
    `${fmt(many.wallMs / 1000)} / ${many.calls}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    "this process's CPU, ms: Switchboard's code / the emulators / the bench / Node (GC, I/O)",
    `${fmt(many.cpu.runtime, 0)} / ${fmt(many.cpu.sandbox, 0)} / ${fmt(many.cpu.bench, 0)} / ${fmt(many.cpu.other, 0)}`,
    '',
    `${share(many, 'runtime')} / ${share(many, 'sandbox')} / ${share(many, 'bench')} / ${share(many, 'other')}`,
    '',
    '',
  );
  table.row(
    "Switchboard's CPU per turn, ms: one session alone / each of the many",
    `${fmt(runtimePerTurn(one))} / ${fmt(runtimePerTurn(many))}`,
    '',
    '1.5 × one alone',
    fmt(cpuRatio, 2),
    '',
  );

  const faults = many.lost + many.duplicated + many.outOfOrder + many.gaps + (o.sessions - many.completed);
  goals.row(
    `${o.sessions} sessions: nothing lost, duplicated or out of order`,
    `${many.lost} chunks lost, ${many.duplicated} dup., ${many.outOfOrder} out of order, ${o.sessions - many.completed} unfinished`,
    '0',
    '',
    verdict(faults, 0),
  );
  goals.row(
    `${o.sessions} sessions: Switchboard's CPU per turn ≤ 1.5 × one session's`,
    `${fmt(runtimePerTurn(many))} ms`,
    `${fmt(1.5 * runtimePerTurn(one))} ms`,
    fmt(cpuRatio, 2),
    verdict(cpuRatio, 1.5),
  );
  goals.row(
    `${o.sessions} sessions: p99 ≤ 10 × single-session p99 (the emulators' CPU: ${share(many, 'sandbox')})`,
    `${fmt(manyP99)} ms`,
    `${fmt(10 * singleP99)} ms`,
    fmt(manyP99 / singleP99, 2),
    verdict(manyP99, 10 * singleP99),
  );
}
