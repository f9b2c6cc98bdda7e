import type { Runtime } from '../config/index.ts';
import type { RunOutcome, RunRecord } from '../store/index.ts';
import type { TurnJob } from './job.ts';

/** A job is a turn unless it deletes a session: every other kind ends with a stop reason in the session's log. */
export const isTurn = (kind: TurnJob['kind'] | RunRecord['kind']): boolean => kind !== 'delete';

/**
 * Counts a turn's end, once its outcome is written: `TurnsEnded` by stop reason, `TurnsCompleted` or
 * `TurnsFailed`, and how long it took from its claim (`startedAt`) and from its message (`createdAt`)
 * to the agent's first event, when the agent emitted one.
 */
export function countTurnEnd(
  rt: Runtime,
  run: Partial<Pick<RunRecord, 'kind' | 'createdAt' | 'startedAt'>>,
  outcome: RunOutcome,
  at: { now: number; firstEventAt?: number },
): void {
  if (!isTurn(run.kind)) return;
  rt.metrics.add('TurnsEnded', 1, { StopReason: outcome.stopReason });
  if (outcome.status === 'completed') rt.metrics.add('TurnsCompleted', 1);
  if (outcome.status === 'error' || outcome.stopReason === 'error') rt.metrics.add('TurnsFailed', 1);
  if (run.startedAt) rt.metrics.add('TurnDuration', at.now - Date.parse(run.startedAt));
  if (at.firstEventAt !== undefined && run.createdAt)
    rt.metrics.add('TimeToFirstEvent', at.firstEventAt - Date.parse(run.createdAt));
}
