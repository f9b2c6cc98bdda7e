import type { Switchboard } from '../agents/index.ts';
import { type Identity, sessionRef } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SessionIdSchema } from '../contract/index.ts';
import { parseOrThrow, SessionNotFoundError } from '../errors/index.ts';
import { submitAnswer, submitTurn } from '../runs/index.ts';
import { findRequest, getAction, getSession, lastSeq } from '../store/index.ts';
import { answerOf, chatRequestOf } from './input.ts';
import type { RunAgentInput } from './schema.ts';

/** What an accepted AG-UI run follows in the session's log. */
export interface Followed {
  /** The session's ref. */
  ref: string;
  /** The Switchboard runs whose events make up the AG-UI run: one, or one per answered interrupt. */
  runIds: string[];
  /** The log is read after this seq: where it ended before the request, or 0 for a run posted again. */
  after: number;
}

/** The answers of `resume`, each a run of its own; request ids `runId` (one) or `runId.N`. */
async function answer(rt: Runtime, app: Switchboard, identity: Identity, input: RunAgentInput, ref: string) {
  const resume = input.resume ?? [];
  const session = await getSession(rt, ref);
  if (!session)
    throw new SessionNotFoundError(input.threadId, [{ path: ['threadId'], message: 'unknown session' }]);
  const after = await lastSeq(rt, ref);
  const runIds: string[] = [];
  let duplicate = false;
  for (const [index, entry] of resume.entries()) {
    const asked = await getAction(rt, ref, entry.interruptId);
    const requestId = resume.length === 1 ? input.runId : `${input.runId}.${index}`;
    const request = answerOf(entry, index, asked?.kind ?? 'tool_approval', requestId);
    const accepted = await submitAnswer(rt, app, identity, session, entry.interruptId, request);
    runIds.push(accepted.run_id);
    duplicate ||= accepted.duplicate;
  }
  return { ref, runIds, after: duplicate ? 0 : after };
}

/**
 * Applies an AG-UI request once: answers to interrupts (`resume`), else the last message as a new
 * message or a frontend tool's result. A `runId` already applied (a client that lost its connection
 * and posts the run again) changes nothing: the run is followed from its start, and the client's
 * `messages` say what it already holds.
 */
export async function acceptRun(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  input: RunAgentInput,
  agentId: string | undefined,
): Promise<Followed> {
  parseOrThrow(SessionIdSchema, input.threadId, 'RunAgentInput', () => ['threadId']);
  const ref = sessionRef(identity, input.threadId);
  if (input.resume && input.resume.length > 0) return answer(rt, app, identity, input, ref);
  const applied = await findRequest(rt, ref, input.runId);
  if (applied) return { ref, runIds: [applied.runId], after: 0 };
  const request = chatRequestOf(input, agentId);
  const after = await lastSeq(rt, ref);
  const accepted = await submitTurn(rt, app, identity, request);
  return { ref, runIds: [accepted.run_id], after: accepted.duplicate ? 0 : after };
}
