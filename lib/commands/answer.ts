import { parseResolveRequest } from '../contract/index.ts';
import { submitAnswer } from '../runs/index.ts';
import { answerableSession } from '../sessions/index.ts';
import type { Command, SessionInput } from './types.ts';

/** What {@link answerRequest} takes: the request's ids, and its answer, read after the gate. */
export interface AnswerInput extends SessionInput {
  action_id: string;
  answer: () => unknown;
}

/**
 * Answers a request the agent asked: the gate (the caller's session, or one whose agent lets the
 * caller answer it), then the answer is read and checked against what was asked, then decided.
 */
export const answerRequest: Command<AnswerInput, Awaited<ReturnType<typeof submitAnswer>>> = async (
  rt,
  app,
  caller,
  input,
) => {
  const gated = await answerableSession(rt, app, caller, input.session_id, input.action_id);
  return submitAnswer(rt, caller, gated, input.action_id, parseResolveRequest(input.answer()));
};
