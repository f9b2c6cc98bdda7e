import type { Runtime } from '../config/index.ts';
import {
  addSessionSpend,
  getSession,
  putDaySpend,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { dayLedgers } from './budget.ts';
import { costOf } from './pricing.ts';

/**
 * Counts what an ended run cost toward its session's `spentUsd` and, where rolling-day limits are
 * set, its owner's and tenant's ledgers. Each write is keyed by the run (the session remembers the
 * runs it counted; a ledger entry's key is the run), so calling this again for the same run — a
 * redelivered job, a retry after a crash between two writes — counts nothing twice. It is called
 * only for a run whose outcome was written, by the worker that wrote it or by a later delivery of
 * its job: a fenced-off worker never counts.
 */
export async function recordSpend(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId' | 'createdAt' | 'usage'>,
  known?: SessionRecord,
): Promise<void> {
  const cost = costOf(run.usage);
  if (cost <= 0) return;
  const session = known ?? (await getSession(rt, run.sessionId, { includeDeleted: true }));
  if (!session) return;
  const ledgers = dayLedgers(rt, session);
  await Promise.all(ledgers.map((partition) => putDaySpend(rt, partition, run, cost)));
  // Counted by the write that added it to the session: once per run, however often this is called.
  if (await addSessionSpend(rt, run.sessionId, run.runId, cost, known)) rt.metrics.add('CostUsd', cost);
}
