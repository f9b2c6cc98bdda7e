import type { ResolveRequest } from '../contract/index.ts';
import { type Answered, submitAnswer } from '../runs/index.ts';
import { type Answerable, answerableSession } from '../sessions/index.ts';
import type { Command, SessionInput } from './types.ts';

/** What {@link answerRequest} takes: the requests' ids, and their answers, read after the gate. */
export interface AnswerInput extends SessionInput {
  /** The requests answered, in order: one on HTTP and WebSocket, one per interrupt on AG-UI. */
  action_ids: string[];
  /**
   * Reads the answers, one per action id, once every request has passed the gate; the door parses
   * them its own way (AG-UI words a cancelled interrupt by the kind of request the gate found).
   */
  answers: (asked: Answerable[]) => ResolveRequest[] | Promise<ResolveRequest[]>;
  /** Where the session id was in the request, for the gate's refusal (`['threadId']` on AG-UI). */
  path?: (string | number)[];
}

/**
 * Answers requests the agent asked, in one session: each passes the gate (the caller's session, or
 * one whose agent lets the caller answer that request) before any answer is read, so nothing of the
 * body is judged for a session the caller may not reach; then each answer is checked against what
 * was asked and decided, one run each. Answers the accepted answers, in order.
 *
 * @example
 * const [answered] = await answerRequest(rt, app, caller, {
 *   session_id: 's1',
 *   action_ids: ['req_1'],
 *   answers: () => [parseResolveRequest({ decision: 'approve' })],
 * });
 */
export const answerRequest: Command<AnswerInput, Answered[]> = async (rt, app, caller, input) => {
  const asked: Answerable[] = [];
  for (const actionId of input.action_ids)
    asked.push(await answerableSession(rt, app, caller, input.session_id, actionId, { path: input.path }));
  const answers = await input.answers(asked);
  const answered: Answered[] = [];
  for (const [index, answer] of answers.entries())
    answered.push(
      await submitAnswer(rt, caller, asked[index] as Answerable, input.action_ids[index] as string, answer),
    );
  return answered;
};
