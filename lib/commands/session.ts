import { cancelSession, deleteSession as eraseOwned } from '../runs/index.ts';
import type { Command, SessionInput } from './types.ts';

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
