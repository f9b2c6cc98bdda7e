import * as z from 'zod';
import type { Switchboard } from '../agents/index.ts';
import { systemContext } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { StopReasonSchema, UsageSchema } from '../contract/index.ts';
import { type ErrorCode, FencedError } from '../errors/index.ts';
import { publishEvents, publishing, turnFailed } from '../events/index.ts';
import {
  finishRun,
  getSession,
  lastSeq,
  listEvents,
  type RunOutcome,
  type RunRecord,
  type SessionEvent,
  type SessionRecord,
} from '../store/index.ts';
import { EventStream } from './event-stream.ts';
import { callCancelHook } from './hooks.ts';
import { countTurnEnd } from './turn-metrics.ts';

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

/** How often a close writes the run's end again after a lost worker's late event took its place. */
const CLOSE_ATTEMPTS = 5;

/** The events that end a run in the log. */
/** The events that end a run in the log. */
export const END_TYPES = new Set(['session.status_idle', 'session.status_requires_action']);

/** The data of a run's end in the log, as far as its outcome goes. */
const EndSchema = z.object({
  status: z.enum([
    'completed',
    'requires_action',
    'error',
    'cancelled',
    'incomplete',
  ] as const satisfies readonly RunOutcome['status'][]),
  stop_reason: StopReasonSchema,
  /** What the run reported it used (with its cost): a run that ended in the log is counted as it said. */
  usage: UsageSchema.optional().catch(undefined),
});

/** The error a run's end names: the `session.error` of that run just before it. */
const ErrorSchema = z.object({ code: z.string(), message: z.string() });

/**
 * How the log ends `runId`, if its last event ends that run: the outcome it shows (with the error
 * before it), or `unreadable` when the end is there but its data is not a run's outcome.
 */
function endInLog(events: SessionEvent[], runId: string): RunOutcome | 'unreadable' | undefined {
  const end = events.at(-1);
  if (end?.run_id !== runId || !END_TYPES.has(end.type)) return undefined;
  const parsed = EndSchema.safeParse(end.data);
  if (!parsed.success) return 'unreadable';
  const before = events.at(-2);
  const error =
    before?.run_id === runId && before.type === 'session.error'
      ? ErrorSchema.safeParse(before.data)
      : undefined;
  return {
    status: parsed.data.status,
    stopReason: parsed.data.stop_reason,
    ...(parsed.data.usage && { usage: parsed.data.usage }),
    ...(error?.success && { error: { code: error.data.code, message: error.data.message } }),
  };
}

/**
 * Closes a run this worker holds without the agent: the error and the closing status in the log,
 * then the outcome. For a fault of ours after the claim, and for a run whose worker was lost.
 *
 * A log that already ends the run (its worker logged the end and died before writing the outcome,
 * or an earlier close's outcome write was lost) is left as it is, and the run ends as the log says.
 * Returns the outcome written, or undefined when this worker was fenced off before writing it.
 */
export async function closeWithError(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'> & Partial<Pick<RunRecord, 'kind' | 'createdAt' | 'startedAt'>>,
  workerId: string,
  log: Runtime['logger'],
  outcome: { status: 'error' | 'incomplete'; code: ErrorCode; message: string },
): Promise<RunOutcome | undefined> {
  // The worker that lost the run may still be writing its events until it notices: a put of ours
  // that meets one of them is fenced, and the end is written again after them. This worker holds the
  // lease, so the end of the log is its to write.
  let ended: RunOutcome | 'unreadable' | undefined;
  for (let attempt = 1; ; attempt += 1) {
    const seq = await lastSeq(rt, run.sessionId);
    ended = endInLog(seq > 0 ? await listEvents(rt, run.sessionId, Math.max(0, seq - 2), 2) : [], run.runId);
    if (ended) break;
    const stream = new EventStream(rt, run.sessionId, run.runId, seq);
    stream.append('session.error', { code: outcome.code, message: outcome.message, status: 500 });
    stream.append('session.status_idle', { status: outcome.status, stop_reason: 'error', detail: null });
    const failure = await stream.drain().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!failure) break;
    if (!(failure instanceof FencedError) || attempt === CLOSE_ATTEMPTS) {
      log.warn('The event log could not be completed', { error: String(failure) });
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
  const error = { code: outcome.code, message: outcome.message };
  const closed: RunOutcome =
    ended && ended !== 'unreadable' ? ended : { status: outcome.status, stopReason: 'error', error };
  if (ended)
    log.info('The log already ends the run: it is closed as the log says', { status: closed.status });
  const now = rt.clock();
  if (!(await finishRun(rt, run, workerId, closed, now))) return undefined;
  countTurnEnd(rt, run, closed, { now });
  return closed;
}

/** `Turn Failed` for a run {@link closeWithError} closed, once its other work is done. */
export async function announceFailure(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  closed: RunOutcome | undefined,
  session?: SessionRecord,
): Promise<void> {
  if (!closed || !publishing(rt)) return;
  // Like publishing itself, reading the session for it never fails the job: the run is closed.
  const found =
    session ??
    (await getSession(rt, run.sessionId, { includeDeleted: true }).catch((error: unknown) => {
      rt.logger.warn('Domain events not published', {
        count: 1,
        detailTypes: ['Turn Failed'],
        error: String(error),
      });
      return undefined;
    }));
  if (found) await publishEvents(rt, [turnFailed(found, run.runId, closed)]);
}

/**
 * Closes a run whose worker was lost: `incomplete`, with the error in the log; the agent's backend is
 * told `lease_lost`, the agent found with the owner's system context (`{ system: true }` in `data`).
 */
export async function closeLostRun(
  rt: Runtime,
  app: Switchboard,
  run: RunRecord,
  workerId: string,
  log: Runtime['logger'],
): Promise<void> {
  const closed = await closeWithError(rt, run, workerId, log, LOST);
  const session = await getSession(rt, run.sessionId, { includeDeleted: true });
  // Recovery belongs to no request: the registry is asked as the seed asks it for system work.
  const agent = session ? await app.resolveAgent(run.agentId, systemContext(session)) : undefined;
  if (agent)
    await callCancelHook(rt, agent, {
      conversationId: run.sessionId,
      runId: run.runId,
      reason: 'lease_lost',
    });
  log.warn('Closed a run whose worker was lost', { runId: run.runId });
  // After the cancel hook: the agent hears of the loss first, the rest of the account after.
  if (session) await announceFailure(rt, run, closed, session);
}
