import type { Switchboard } from '../agents/index.ts';
import { requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { finishRun, getSession, lastSeq, listEvents, type RunRecord } from '../store/index.ts';
import { EventStream } from './event-stream.ts';
import { callCancelHook } from './hooks.ts';

/** How a claimed run that failed on our side is closed. */
export const FAILED = {
  status: 'error',
  code: 'internal_error',
  message: 'The run failed on our side.',
} as const;

/** How a run whose worker was lost is closed. */
export const LOST = {
  status: 'incomplete',
  code: 'worker_lost',
  message: 'The worker running this turn stopped before it finished.',
} as const;

/**
 * Closes a run this worker holds without the agent: the error and the closing status in the log,
 * then the outcome. For a fault of ours after the claim, and for a run whose worker was lost.
 */
export async function closeWithError(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  workerId: string,
  log: Runtime['logger'],
  outcome: { status: 'error' | 'incomplete'; code: string; message: string },
): Promise<void> {
  const seq = await lastSeq(rt, run.sessionId);
  const [last] = seq > 0 ? await listEvents(rt, run.sessionId, seq - 1, 1) : [];
  // A retry of a close whose outcome write was lost: the log already ends the run, only the outcome is missing.
  if (last?.run_id !== run.runId || last.type !== 'session.status_idle') {
    const stream = new EventStream(rt, run.sessionId, run.runId, seq);
    stream.append('session.error', { code: outcome.code, message: outcome.message, status: 500 });
    stream.append('session.status_idle', { status: outcome.status, stop_reason: 'error', detail: null });
    await stream
      .drain()
      .catch((error: unknown) => log.warn('The event log could not be completed', { error: String(error) }));
  }
  const error = { code: outcome.code, message: outcome.message };
  await finishRun(rt, run, workerId, { status: outcome.status, stopReason: 'error', error }, Date.now());
}

/** Closes a run whose worker was lost: `incomplete`, with the error in the log; the agent's backend is told `lease_lost`. */
export async function closeLostRun(
  rt: Runtime,
  app: Switchboard,
  run: RunRecord,
  workerId: string,
  log: Runtime['logger'],
): Promise<void> {
  await closeWithError(rt, run, workerId, log, LOST);
  const session = await getSession(rt, run.sessionId, { includeDeleted: true });
  const agent = session
    ? await app.resolveAgent(run.agentId, requestContextOf({ user: session.owner, data: {} }))
    : undefined;
  if (agent)
    await callCancelHook(rt, agent, {
      conversationId: run.sessionId,
      runId: run.runId,
      reason: 'lease_lost',
    });
  log.warn('Closed a run whose worker was lost', { runId: run.runId });
}
