import type { Switchboard } from '../agents/index.ts';
import type { Identity } from '../auth/index.ts';
import { type Answered, answerRequest, sendMessage } from '../commands/index.ts';
import type { Runtime } from '../config/index.ts';
import { type Answerable, writableSession } from '../sessions/index.ts';
import { findRequest, lastSeq } from '../store/index.ts';
import { answerOf, chatRequestOf } from './input.ts';
import { type AguiIds, parseAguiIds, parseRunAgentInput, type RunAgentInput } from './schema.ts';

/** What an accepted AG-UI run follows in the session's log. */
export interface Followed {
  /** The session's ref. */
  ref: string;
  /** The Switchboard runs whose events make up the AG-UI run: one, or one per answered interrupt. */
  runIds: string[];
  /** The log is read after this seq: where it ended before the request, or 0 for a run posted again. */
  after: number;
}

/**
 * An accepted request and the input it was read from: for the session's owner, the runs to follow;
 * for a reviewer (someone `authorizeResolve` let answer a request of another owner's session), the
 * answers alone, which are all her stream shows: it follows none of the owner's runs.
 */
export type Accepted =
  | { input: RunAgentInput; followed: Followed; answered?: undefined }
  | { input: RunAgentInput; answered: Answered[]; followed?: undefined };

const THREAD = { path: ['threadId'] };

/**
 * The answers of `resume`, each a run of its own; request ids `runId` (one) or `runId.N`. The
 * command gates every interrupt before the body is read, so a missing and a foreign session answer
 * alike (404), whatever the resume says; the log's end is read before any answer is decided. The
 * gate also says what the stream shows: the owner follows the answers' runs; a reviewer gets the
 * answers' outcome, as HTTP answers her, and nothing of the session's log.
 */
async function answer(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  ids: AguiIds,
  body: unknown,
): Promise<Accepted> {
  // The body is read inside the command, once its gate has let the caller in: what it said, and
  // where the log ended before any answer was decided, come out here.
  let read: { input: RunAgentInput; ref: string; after: number } | undefined;
  const { answered, caller } = await answerRequest(rt, app, identity, {
    session_id: ids.threadId,
    action_ids: (ids.resume ?? []).map((entry) => entry.interruptId),
    path: THREAD.path,
    answers: async (asked) => {
      const input = parseRunAgentInput(body);
      const { session, owner } = asked[0] as Answerable;
      // Only the owner's stream reads the log; a reviewer's is not told even where it ends.
      read = { input, ref: session.sessionId, after: owner ? await lastSeq(rt, session.sessionId) : 0 };
      const resume = input.resume ?? [];
      return resume.map((entry, index) => {
        const requestId = resume.length === 1 ? input.runId : `${input.runId}.${index}`;
        return answerOf(entry, index, asked[index]?.action?.kind ?? 'tool_approval', requestId);
      });
    },
  });
  const { input, ref, after } = read as NonNullable<typeof read>;
  if (caller === 'reviewer') return { input, answered };
  const duplicate = answered.some((a) => a.duplicate);
  return { input, followed: { ref, runIds: answered.map((a) => a.run_id), after: duplicate ? 0 : after } };
}

/**
 * Applies an AG-UI request once: answers to interrupts (`resume`), else the last message as a new
 * message or a frontend tool's result. A `runId` already applied (a client that lost its connection
 * and posts the run again) changes nothing: the run is followed from its start, and the client's
 * `messages` say what it already holds.
 *
 * Every door's order: the ids' syntax (`threadId`, `runId`, each `interruptId`), then the ownership
 * gate, then the rest of the body. Nothing is looked up by an id that is not valid, and nothing of the
 * body is judged (which could tell what a foreign session holds) before the gate has let the caller in.
 */
export async function acceptRun(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  body: unknown,
  agentId: string | undefined,
): Promise<Accepted> {
  const ids = parseAguiIds(body);
  if (ids.resume && ids.resume.length > 0) return answer(rt, app, identity, ids, body);
  const { ref } = await writableSession(rt, identity, ids.threadId, THREAD);
  const input = parseRunAgentInput(body);
  const applied = await findRequest(rt, ref, input.runId);
  if (applied) return { input, followed: { ref, runIds: [applied.runId], after: 0 } };
  const request = chatRequestOf(input, agentId);
  const after = await lastSeq(rt, ref);
  const accepted = await sendMessage(rt, app, identity, { request });
  return { input, followed: { ref, runIds: [accepted.run_id], after: accepted.duplicate ? 0 : after } };
}
