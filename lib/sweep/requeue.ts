import { hostSessionId } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { enqueue } from '../runs/index.ts';
import {
  abandonQueuedRun,
  dueRuns,
  getRun,
  listRuns,
  postponeRun,
  REQUEUE_AFTER_MS,
} from '../store/index.ts';
import { spanEvent } from '../telemetry/index.ts';

/** How often a run is queued again before it is given up on. */
const MAX_REQUEUES = 3;

/**
 * Queues again the runs that were recorded but never claimed: their job was lost between the
 * table and the queue (a crash between the two writes). A job that was only slow is harmless to
 * send twice: one delivery claims the run, the other does nothing.
 */
export async function requeueLostRuns(rt: Runtime, now: number, lookbackHours: number): Promise<number> {
  let count = 0;
  for (const due of await dueRuns(rt, now, lookbackHours)) {
    const run = await getRun(rt, due.sessionId, due.runId);
    if (run?.status !== 'queued') continue;
    // A run still waiting behind an earlier one of its session is not lost, only queued: look later.
    const earlier = (await listRuns(rt, run.sessionId)).some(
      (r) => r.runId < run.runId && (r.status === 'queued' || r.status === 'running'),
    );
    if (earlier) {
      await postponeRun(rt, run, now + REQUEUE_AFTER_MS);
      continue;
    }
    if ((run.requeues ?? 0) >= MAX_REQUEUES) {
      // Its job keeps failing before any worker claims it (it went to the dead-letter queue): give up.
      if (await abandonQueuedRun(rt, run, now)) {
        rt.logger.error('Gave up on a run that could not be started', { runId: run.runId });
        spanEvent('switchboard.run.abandoned', {
          'switchboard.session.id': hostSessionId(run.sessionId),
          'switchboard.run.id': run.runId,
        });
      }
      continue;
    }
    const requeues = (run.requeues ?? 0) + 1;
    if (!(await postponeRun(rt, run, now + REQUEUE_AFTER_MS, { requeues }))) continue;
    await enqueue(rt, {
      v: 1,
      kind: run.kind ?? 'turn',
      sessionId: run.sessionId,
      runId: run.runId,
      requestId: run.requestId,
      ...(run.follows && { follows: run.follows }),
    });
    count += 1;
    spanEvent('switchboard.run.lost', {
      'switchboard.session.id': hostSessionId(run.sessionId),
      'switchboard.run.id': run.runId,
      'switchboard.run.kind': run.kind ?? 'turn',
      'switchboard.run.requeues': requeues,
    });
  }
  if (count > 0) rt.logger.warn('Queued runs again whose jobs were lost', { count });
  return count;
}
