import type { Runtime } from '../config/index.ts';
import { MAX_CHAT_WAIT_MS } from '../contract/index.ts';
import { type ErrorCode, type StatusOf, SwitchboardError } from '../errors/index.ts';
import { listEvents, type SessionEvent } from '../store/index.ts';
import { END_TYPES } from './close.ts';
import type { Accepted } from './types.ts';

/** How often the log is read while waiting (a Query of one partition), as the events long poll does. */
const POLL_MS = 250;

/** A turn's end as a non-streaming answer: the final response itself, with the run's status. */
export interface FinalAnswer {
  request_id: string;
  session_id: string;
  run_id: string;
  status: string;
  [field: string]: unknown;
}

/**
 * Waits (at most `waitMs`) for the accepted turn to close, reading the session's log; resolves with
 * its final response, or undefined when it has not closed in time (the caller answers 202 as usual).
 * A turn that ended in error throws that error (`invalid_host_result`, `invalid_decision`, …).
 */
export async function awaitFinal(
  rt: Runtime,
  sessionId: string,
  accepted: Accepted,
  waitMs: number,
): Promise<FinalAnswer | undefined> {
  const until = rt.clock() + Math.min(waitMs, MAX_CHAT_WAIT_MS);
  const ours: SessionEvent[] = [];
  let after = 0;
  for (;;) {
    const events = await listEvents(rt, sessionId, after, 1000);
    for (const event of events) {
      after = Math.max(after, event.seq);
      if (event.run_id === accepted.run_id) ours.push(event);
    }
    const closing = ours.find((e) => END_TYPES.has(e.type));
    if (closing) return answerOf(accepted, ours, closing);
    if (events.length === 0 && rt.clock() >= until) return undefined;
    if (events.length === 0)
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, until - rt.clock())));
  }
}

function answerOf(accepted: Accepted, events: SessionEvent[], closing: SessionEvent): FinalAnswer {
  // A code and status of ERROR_CODES: session.error is written only from a SwitchboardError's (or a
  // closed run's, whose code is typed too).
  const error = events.find((e) => e.type === 'session.error')?.data as
    | { code: ErrorCode; message: string; status: StatusOf<ErrorCode> }
    | undefined;
  if (error) throw new SwitchboardError(error.code, error.message, error.status, 'internal');
  const final = events.find((e) => e.type === 'final_response')?.data ?? { content: null };
  return {
    request_id: accepted.request_id,
    session_id: accepted.session_id,
    run_id: accepted.run_id,
    status: String((closing.data as { status?: unknown }).status),
    ...final,
  };
}
