import {
  type Accepted,
  type BeforeEnqueue,
  cancelSession,
  deleteSession as eraseOwned,
  submitContinue,
} from '../runs/index.ts';
import type { Command, SessionInput } from './types.ts';

/** What {@link continueTurn} takes: the session, the request's id, and how the sender follows the session. */
export interface ContinueInput extends SessionInput {
  /** The request id: a retry of the same id answers the run the first send queued. */
  id?: string;
  /** As a message's `join`: a WebSocket sender subscribes its connection before the run is queued. */
  join?: BeforeEnqueue;
}

/**
 * Continues the caller's session's last turn, stopped at `max_turns` or `budget_reached`: a new run
 * carries the same loop on from where it stopped, with no new user message.
 */
export const continueTurn: Command<ContinueInput, Accepted> = (rt, app, caller, { join, ...request }) =>
  submitContinue(rt, app, caller, request, join);

/** Cancels what runs in the caller's session (or, with nothing running, withdraws its open requests). */
export const cancel: Command<SessionInput, Awaited<ReturnType<typeof cancelSession>>> = (
  rt,
  _app,
  caller,
  input,
) => cancelSession(rt, caller, input.session_id);

/** Deletes the caller's session: marked at once, its runs stopped and its items erased by a run. */
export const deleteSession: Command<SessionInput, Awaited<ReturnType<typeof eraseOwned>>> = (
  rt,
  _app,
  caller,
  input,
) => eraseOwned(rt, caller, input.session_id);
