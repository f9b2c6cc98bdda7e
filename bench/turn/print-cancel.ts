import { PRICES } from '../prices.ts';
import { fmt, quantile, type Table, usd, verdict } from '../report.ts';
import type { CancelResult } from './cancel.ts';
import type { BenchOptions } from './options.ts';

/** The cancels' latency and what waiting on a backend reads, with the cancel goal. */
export function printCancel(
  table: Table,
  goals: Table,
  o: BenchOptions,
  cancel: CancelResult,
  pollMs: number,
) {
  const cancelP99 = quantile(cancel.latencies, 0.99);
  table.section(
    `Cancel: an agent waiting on its backend, emitting nothing; ${o.cancels} runs, runs.cancelPollMs ${pollMs}`,
  );
  table.row(
    'cancel request → agent sees the abort, p50 / p99 (ms)',
    `${fmt(quantile(cancel.latencies, 0.5))} / ${fmt(cancelP99)}`,
    '',
    '1000 (p99)',
    fmt(cancelP99 / 1000, 2),
    '',
  );
  table.row(
    'reads while waiting: run polls per s, RRU per s',
    `${fmt(cancel.runPolls / cancel.waitingSeconds, 2)}, ${fmt(cancel.runPollRru / cancel.waitingSeconds, 2)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    '  their cost per million turns waiting 1 s',
    usd((cancel.runPollRru / cancel.waitingSeconds) * PRICES.dynamodb.perMillionRru),
    '',
    '',
    '',
    '',
  );
  table.row(
    'run-item reads / lease renewals in the phase / failed cancels',
    `${cancel.phaseRunReads} / ${cancel.leaseRenews} / ${cancel.failures}`,
    '',
    '',
    '',
    '',
  );
  goals.row(
    'cancel p99 < 1 s (reads counted above and in the bill)',
    `${fmt(cancelP99)} ms`,
    '1000 ms',
    fmt(cancelP99 / 1000, 2),
    verdict(cancelP99, 1000, '<'),
  );
}
