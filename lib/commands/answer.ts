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

/** What {@link answerRequest} answers: the accepted answers, and who the gate found the caller to be. */
export interface AnswerOutcome {
  /** The accepted answers, in the order of the action ids. */
  answered: Answered[];
  /**
   * `owner`: the session's owner, whose door may show her the runs that carry her answers on.
   * `reviewer`: someone the agent's `authorizeResolve` let answer a request of another owner's
   * session; every door shows her the answers' outcome (what `POST …/actions/{actionId}` answers)
   * and nothing else of the session: no text of the owner's turn, no other open request.
   */
  caller: 'owner' | 'reviewer';
}

/**
 * Answers requests the agent asked, in one session: each passes the gate (the caller's session, or
 * one whose agent lets the caller answer that request) before any answer is read, so nothing of the
 * body is judged for a session the caller may not reach; then each answer is checked against what
 * was asked and decided, one run each. Answers the accepted answers, in order, and whether the gate
 * let the caller in as the owner or as a reviewer: what the door may show her of the session.
 *
 * @example
 * const { answered: [answered] } = await answerRequest(rt, app, caller, {
 *   session_id: 's1',
 *   action_ids: ['req_1'],
 *   answers: () => [parseResolveRequest({ decision: 'approve' })],
 * });
 */
export const answerRequest: Command<AnswerInput, AnswerOutcome> = async (rt, app, caller, input) => {
  const asked: Answerable[] = [];
  for (const actionId of input.action_ids)
    asked.push(await answerableSession(rt, app, caller, input.session_id, actionId, { path: input.path }));
  const answers = await input.answers(asked);
  const answered: Answered[] = [];
  for (const [index, answer] of answers.entries())
    answered.push(
      await submitAnswer(rt, caller, asked[index] as Answerable, input.action_ids[index] as string, answer),
    );
  // Fails closed: only a caller the gate found the owner of every request's session is shown more.
  const owner = asked.length > 0 && asked.every((a) => a.owner);
  return { answered, caller: owner ? 'owner' : 'reviewer' };
};
