import type { Runtime } from '../config/index.ts';
import {
  addDaySpend,
  addSessionSpend,
  getSession,
  type RunRecord,
  type SessionRecord,
  settleDaySpend,
} from '../store/index.ts';
import { dayLedgers } from './budget.ts';
import { costOf } from './pricing.ts';

/**
 * Counts what an ended run cost toward its session's `spentUsd` and, where rolling-day limits are
 * set, its owner's and tenant's ledgers (the bucket of the hour the run was accepted in), with no
 * transaction and nothing counted twice however often this is called for the run — a redelivered
 * job, a retry after a crash between two writes. The writes, in order:
 *
 * 1. each ledger's bucket adds the cost unless it remembers the run (it remembers it until step 3);
 * 2. the session adds it unless it remembers the run (`spentRuns`): it is counted now;
 * 3. each bucket forgets the run: from now on the session's memory is what refuses it again.
 *
 * A call that finds its session has counted the run already writes nothing to the ledgers. It is
 * called only for a run whose outcome was written, by the worker that wrote it or by a later
 * delivery of its job: a fenced-off worker never counts.
 */
export async function recordSpend(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId' | 'createdAt' | 'usage'>,
  known?: SessionRecord,
): Promise<void> {
  const cost = costOf(run.usage);
  if (cost <= 0) return;
  const session = known ?? (await getSession(rt, run.sessionId, { includeDeleted: true }));
  if (!session || session.spentRuns?.includes(run.runId)) return;
  const ledgers = dayLedgers(rt, session);
  await Promise.all(ledgers.map((partition) => addDaySpend(rt, partition, run, cost)));
  // Counted by the write that added it to the session: once per run, however often this is called.
  if (await addSessionSpend(rt, run.sessionId, run.runId, cost, known)) rt.metrics.add('CostUsd', cost);
  await Promise.all(ledgers.map((partition) => settleDaySpend(rt, partition, run)));
}
