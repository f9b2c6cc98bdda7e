import { parseFeedbackRequest } from '../contract/index.ts';
import { rateMessage } from '../feedback/index.ts';
import { ownedSession } from '../sessions/index.ts';
import type { Command, SessionInput } from './types.ts';

/** What {@link rate} takes: the answer's ids, and the rating, read after the gate. */
export interface RateInput extends SessionInput {
  message_id: string;
  rating: () => unknown;
}

/** Rates an answer of the caller's session: the gate, then the rating is read and stored. */
export const rate: Command<RateInput, Awaited<ReturnType<typeof rateMessage>>> = async (
  rt,
  app,
  caller,
  input,
) => {
  const session = await ownedSession(rt, caller, input.session_id);
  return rateMessage(rt, app, caller, session, input.message_id, parseFeedbackRequest(input.rating()));
};
