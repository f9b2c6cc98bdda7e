import type { Runtime } from '../config/index.ts';
import { SessionConflictError, SessionNotFoundError } from '../errors/index.ts';
import { newId } from '../ids/index.ts';
import { closeWithError, LOST, stopRuns } from '../runs/index.ts';
import { abandonQueuedRun, getSession, listRuns, type RunRecord, takeOverRun } from '../store/index.ts';

/** What an operator's cancel did to one run. */
export interface CancelledRun {
  runId: string;
  /** `cancelling`: its worker stops it at its next poll; `expired`: closed here; `held`: a live worker holds it. */
  outcome: 'cancelling' | 'expired' | 'held';
  detail: string;
}

const open = (run: RunRecord) => run.status === 'queued' || run.status === 'running';

/** A turn of the user's: bookkeeping runs (a lapse, a withdrawal, a delete) are the runtime's to finish. */
const usersTurn = (run: RunRecord) =>
  run.kind === undefined || run.kind === 'turn' || run.kind === 'resolve' || run.kind === 'continue';

/**
 * `switchboard cancel`: asks the worker of the session's running (or queued) turn to stop it, as the
 * cancel route does (reason `user`: the agent's backend is told as for a user's cancel).
 */
export async function cancelRuns(rt: Runtime, ref: string): Promise<CancelledRun[]> {
  if (!(await getSession(rt, ref, { includeDeleted: true }))) throw new SessionNotFoundError(ref);
  const stopped = await stopRuns(rt, ref, 'user');
  if (stopped.length === 0)
    throw new SessionConflictError('nothing_to_cancel', `Session ${ref} has no queued or running turn.`);
  return stopped.map((runId) => ({
    runId,
    outcome: 'cancelling',
    detail: 'asked to stop: its worker ends it at its next poll',
  }));
}

/**
 * `switchboard cancel --expire`: closes the session's stuck runs without their worker, through the
 * same conditional writes the runtime uses. A queued run nobody will claim (its job is in the
 * dead-letter queue, or lost) ends as `error` (`job_lost`), as the sweep ends one; a running run whose
 * lease ran out (its worker died and no delivery is coming) is taken over and closed `incomplete`
 * (`worker_lost`), its end written to the log. A run whose lease is still renewed is left to its
 * worker: cancel it instead. The agent's `cancel` hook is not called from here (it lives in the functions).
 */
export async function expireRuns(rt: Runtime, ref: string, now: number): Promise<CancelledRun[]> {
  if (!(await getSession(rt, ref, { includeDeleted: true }))) throw new SessionNotFoundError(ref);
  const all = await listRuns(rt, ref);
  const runs = all.filter((run) => open(run) && usersTurn(run));
  if (runs.length === 0)
    throw new SessionConflictError('nothing_to_cancel', `Session ${ref} has no queued or running turn.`);
  const operator = newId('operator');
  const results: CancelledRun[] = [];
  for (const run of runs) {
    // A queued turn behind an open run of its session is waiting its turn in the FIFO group, not lost.
    if (run.status === 'queued' && all.some((r) => r.runId < run.runId && open(r))) {
      results.push({ runId: run.runId, outcome: 'held', detail: 'queued behind an earlier open run' });
      continue;
    }
    if (run.status === 'queued') {
      const closed = await abandonQueuedRun(rt, run, now);
      results.push({
        runId: run.runId,
        outcome: closed ? 'expired' : 'held',
        detail: closed ? 'closed as error (job_lost)' : 'a worker claimed it meanwhile',
      });
      continue;
    }
    if (!(await takeOverRun(rt, run, operator, now))) {
      results.push({
        runId: run.runId,
        outcome: 'held',
        detail: `held by ${run.leaseOwner ?? 'a worker'} until ${new Date(run.leaseExpiresAt ?? now).toISOString()}: cancel it instead`,
      });
      continue;
    }
    await closeWithError(rt, run, operator, rt.logger, LOST);
    results.push({ runId: run.runId, outcome: 'expired', detail: 'closed as incomplete (worker_lost)' });
  }
  return results;
}
