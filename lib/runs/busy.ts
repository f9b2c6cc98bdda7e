import type { Runtime } from '../config/index.ts';
import { type ChatRequest, onBusyOf } from '../contract/index.ts';
import { busyRuns, listRuns, requestInterrupt } from '../store/index.ts';
import { spanEvent } from '../telemetry/index.ts';

/*
 * A message that arrives while a turn of its session is queued or running (`on_busy`). The session
 * is busy while one of the user's runs (a turn, or an answer handed to `resolveAction`) is queued or
 * running; bookkeeping runs (a withdrawal, a lapse, a delete) never make it busy, and neither does a
 * pause: a paused session runs the message under the agent's `pendingActionPolicy`, whatever the
 * policy. `enqueue` and `steer` need nothing here (the FIFO group and `io.takeSteering()` do it).
 */

/**
 * `on_busy: "interrupt"`: stops every run of the user's queued or running ahead of this message's
 * run (`runId`), each with one conditional write, as the cancel route does (the worker aborts the
 * signal, calls the `cancel` hook with `reason: "user"` and waits `runs.cancelGraceMs`); the
 * message then runs next in the session's FIFO group. Only runs older than its own are touched, so
 * a retry of the same request id cancels nothing twice and never its own turn or a later one.
 * Returns the runs this message interrupted, the same list on a retry.
 */
export async function interruptAhead(
  rt: Runtime,
  request: ChatRequest,
  sessionId: string,
  runId: string,
): Promise<string[]> {
  if (onBusyOf(request) !== 'interrupt') return [];
  const runs = await listRuns(rt, sessionId);
  const ahead = busyRuns(runs).filter((r) => r.runId < runId);
  const marked = await Promise.all(ahead.map((r) => requestInterrupt(rt, r, runId)));
  const now = new Set(ahead.filter((_, i) => marked[i]).map((r) => r.runId));
  // A retry after a crash: runs it already stopped (and that have ended since) are still its own.
  for (const r of runs) if (r.interruptedBy === runId) now.add(r.runId);
  const interrupted = [...now].sort();
  if (interrupted.length > 0)
    spanEvent('switchboard.interrupt', {
      'switchboard.run.id': runId,
      'switchboard.interrupted.run_ids': interrupted,
    });
  return interrupted;
}
