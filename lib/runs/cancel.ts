import { hostSessionId, type Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SessionConflictError } from '../errors/index.ts';
import { type DomainEvent, pauseResolved, publishEvents } from '../events/index.ts';
import { newId } from '../ids/index.ts';
import { ownedSession, sessionNotFound } from '../sessions/index.ts';
import {
  busyRuns,
  type CancelReason,
  decideAction,
  getRun,
  listRuns,
  markDeleted,
  messageId,
  openActions,
  putRun,
  type RunKind,
  requestCancel,
  type SessionRecord,
} from '../store/index.ts';
import { spanEvent } from '../telemetry/index.ts';
import { enqueue } from './job.ts';

/** Asks every run of the session that has not ended to stop; the worker holding one learns of it by its next poll. */
export async function stopRuns(rt: Runtime, sessionId: string, reason: CancelReason): Promise<string[]> {
  // Bookkeeping runs (a lapse, a withdrawal, a delete) are not the user's to stop.
  const runs = busyRuns(await listRuns(rt, sessionId));
  const asked = await Promise.all(runs.map((r) => requestCancel(rt, r, reason)));
  const stopped = asked.flatMap((r) => (r ? [r.runId] : []));
  // On the request's span; the worker holding each run adds `switchboard.cancel` to its turn span.
  if (stopped.length > 0)
    spanEvent('switchboard.cancel.requested', {
      'switchboard.cancel.reason': reason,
      'switchboard.run.ids': stopped,
    });
  return stopped;
}

/** Queues a run that only bookkeeps (withdraw, delete), so that its events come from the session's one writer. */
async function queueBookkeeping(
  rt: Runtime,
  session: SessionRecord,
  kind: RunKind,
  withdrawn: string[] = [],
  runId = newId('run'),
): Promise<string> {
  await putRun(rt, {
    runId,
    sessionId: session.sessionId,
    requestId: runId,
    agentId: session.agentId,
    userMessageId: messageId(runId, 0),
    assistantMessageId: messageId(runId, 1),
    status: 'queued',
    createdAt: new Date(rt.clock()).toISOString(),
    kind,
    ...(withdrawn.length > 0 && { withdrawn }),
  });
  await enqueue(rt, { v: 1, kind, sessionId: session.sessionId, runId, requestId: runId });
  return runId;
}

/**
 * `POST /api/sessions/{id}/cancel`: stops the running (or queued) turn, or, on a paused session,
 * withdraws its open approvals, questions and client tools. A pending host call is left open: the
 * host may be performing it, and cancelling the planning neither stops a physical action nor
 * revokes its result (host contract). A cancel with nothing else to stop is a 409.
 */
export async function cancelSession(rt: Runtime, identity: Identity, sessionId: string) {
  const session = await ownedSession(rt, identity, sessionId);
  const stopped = await stopRuns(rt, session.sessionId, 'user');
  if (stopped.length > 0)
    return { session_id: hostSessionId(session.sessionId), status: 'cancelling' as const, run_ids: stopped };
  const withdrawn: string[] = [];
  const events: (DomainEvent | undefined)[] = [];
  const open = (await openActions(rt, session.sessionId)).filter((a) => a.kind !== 'host_tool');
  for (const action of open) {
    const decided = await decideAction(
      rt,
      session.sessionId,
      action.actionId,
      { status: 'cancelled', actor: identity.user, channel: 'api' },
      { now: rt.clock(), mustBeLive: false, from: action.status },
    );
    if (!decided.decided) continue;
    withdrawn.push(action.actionId);
    events.push(pauseResolved(session, decided.action, rt.clock()));
  }
  if (withdrawn.length === 0)
    throw new SessionConflictError(
      'nothing_to_cancel',
      'The session has no running turn and no open request to withdraw (a pending host call stays open).',
    );
  const runId = await queueBookkeeping(rt, session, 'withdraw', withdrawn);
  await publishEvents(rt, events);
  return {
    session_id: hostSessionId(session.sessionId),
    status: 'withdrawn' as const,
    run_ids: [runId],
    withdrawn,
  };
}

/**
 * `DELETE /api/sessions/{id}`: the session answers 404 from now on; a running turn is stopped
 * (reason deleted), and a run queued behind it tells the cancel hook of the open requests and
 * removes every item of the session.
 */
export async function deleteSession(rt: Runtime, identity: Identity, sessionId: string) {
  const session = await ownedSession(rt, identity, sessionId, { includeDeleted: true });
  const missing = () => sessionNotFound(sessionId);
  if (session.deletedAt) {
    // A later request: 404, as for every request after a delete. When the delete that marked the
    // session stopped before queueing its run (a crash between these writes), its work is finished
    // here, under the run id the mark names: queueing it twice is harmless.
    if (session.deleteRunId && !(await getRun(rt, session.sessionId, session.deleteRunId))) {
      await stopRuns(rt, session.sessionId, 'deleted');
      await queueBookkeeping(rt, session, 'delete', [], session.deleteRunId);
    }
    throw missing();
  }
  // Of two deletes at once, one marks the session; the other is a later request.
  if (!(await eraseSession(rt, session))) throw missing();
  return { session_id: hostSessionId(session.sessionId), status: 'deleting' as const };
}

/**
 * Deletes a session whoever asks (its owner, or an operator erasing an owner's data): marks it
 * deleted, stops its running turn (reason deleted) and queues the run that removes its items. False
 * when it was already deleted.
 */
export async function eraseSession(rt: Runtime, session: SessionRecord): Promise<boolean> {
  const runId = newId('run');
  if (!(await markDeleted(rt, session.sessionId, rt.clock(), runId))) return false;
  await stopRuns(rt, session.sessionId, 'deleted');
  await queueBookkeeping(rt, session, 'delete', [], runId);
  return true;
}
