import type { Switchboard } from '../agents/index.ts';
import type { Identity } from '../auth/index.ts';
import { sendMessage } from '../commands/index.ts';
import type { Runtime } from '../config/index.ts';
import { submitAnswer } from '../runs/index.ts';
import { type Answerable, answerableSession, writableSession } from '../sessions/index.ts';
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

/** An accepted request: what to follow, and the input it was read from. */
export interface Accepted {
  followed: Followed;
  input: RunAgentInput;
}

const THREAD = { path: ['threadId'] };

/**
 * The gate for each interrupt a request answers, before anything of the body is read: the caller's
 * own session, or one whose agent lets the caller answer that request. A missing and a foreign
 * session answer alike (404), whatever the resume says.
 */
async function gateAnswers(rt: Runtime, app: Switchboard, identity: Identity, ids: AguiIds) {
  const gated: Answerable[] = [];
  for (const entry of ids.resume ?? [])
    gated.push(await answerableSession(rt, app, identity, ids.threadId, entry.interruptId, THREAD));
  return gated;
}

/** The answers of `resume`, each a run of its own; request ids `runId` (one) or `runId.N`. */
async function answer(rt: Runtime, identity: Identity, input: RunAgentInput, gated: Answerable[]) {
  const resume = input.resume ?? [];
  const ref = (gated[0] as Answerable).session.sessionId;
  const after = await lastSeq(rt, ref);
  const runIds: string[] = [];
  let duplicate = false;
  for (const [index, entry] of resume.entries()) {
    const access = gated[index] as Answerable;
    const requestId = resume.length === 1 ? input.runId : `${input.runId}.${index}`;
    const request = answerOf(entry, index, access.action?.kind ?? 'tool_approval', requestId);
    const accepted = await submitAnswer(rt, identity, access, entry.interruptId, request);
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
  if (ids.resume && ids.resume.length > 0) {
    const gated = await gateAnswers(rt, app, identity, ids);
    const input = parseRunAgentInput(body);
    return { input, followed: await answer(rt, identity, input, gated) };
  }
  const { ref } = await writableSession(rt, identity, ids.threadId, THREAD);
  const input = parseRunAgentInput(body);
  const applied = await findRequest(rt, ref, input.runId);
  if (applied) return { input, followed: { ref, runIds: [applied.runId], after: 0 } };
  const request = chatRequestOf(input, agentId);
  const after = await lastSeq(rt, ref);
  const accepted = await sendMessage(rt, app, identity, request);
  return { input, followed: { ref, runIds: [accepted.run_id], after: accepted.duplicate ? 0 : after } };
}
