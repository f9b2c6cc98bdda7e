import type { Switchboard } from '../agents/index.ts';
import type { Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { ChatRequest, RewriteMode } from '../contract/index.ts';
import { MessageNotFoundError, SessionConflictError, ValidationError } from '../errors/index.ts';
import {
  findRequest,
  listMessages,
  listRuns,
  type MessageRecord,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { queueTurn } from './queue-turn.ts';
import { resolveSession } from './resolve-session.ts';
import { isSteeredId } from './steering.ts';
import type { Accepted, BeforeEnqueue, Rewrite } from './types.ts';

/** A regenerate or an edit: a message that names, with `mode`, the message it replaces. */
export type RewriteRequest = ChatRequest & { mode: RewriteMode; from_message_id: string };

/**
 * A regenerate or an edit: checked against the session, then recorded and queued the way of every
 * new message, so whatever a new message meets (a running turn, an open pause, the
 * `pendingActionPolicy`) a rewrite meets too. Its run cuts the conversation back when it starts.
 */
export async function submitRewrite(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: RewriteRequest,
  beforeEnqueue?: BeforeEnqueue,
): Promise<Accepted> {
  const { session, requestId } = await resolveSession(rt, app, identity, request);
  const rewrite = await checkRewrite(rt, session, request);
  return queueTurn(rt, app, identity, { session, request, requestId, rewrite, beforeEnqueue });
}

const issue = (message: string) => [{ path: ['from_message_id'], message }];
/** A message taken into a running turn as steering: part of that turn's question, never the question itself. */
const isTurn = (r: RunRecord) =>
  (r.kind ?? 'turn') === 'turn' && (r.status === 'queued' || r.status === 'running');

/**
 * Checks a message's `mode` and `from_message_id` against the session before anything is
 * written: the id must name a message of the right kind that nothing replaced, and a regenerate's
 * must be the newest answer (one stored, or the one a queued or running turn will store). A retry
 * of a request already applied is not checked again: its own run may have changed what is newest.
 */
async function checkRewrite(rt: Runtime, session: SessionRecord, request: RewriteRequest): Promise<Rewrite> {
  const { mode, from_message_id: fromMessageId } = request;
  const applied = request.id ? await findRequest(rt, session.sessionId, request.id) : undefined;
  if (applied)
    return { mode, fromMessageId, ...(mode === 'regenerate' && { userMessageId: applied.userMessageId }) };
  const [messages, runs] = await Promise.all([
    listMessages(rt, session.sessionId),
    listRuns(rt, session.sessionId),
  ]);
  const target = messages.find((m) => m.messageId === fromMessageId);
  const coming = runs.filter(isTurn);
  const pending = coming.find((r) => r.assistantMessageId === fromMessageId);
  if (!target && !(mode === 'regenerate' && pending))
    throw new MessageNotFoundError(fromMessageId, issue('no such message in this session'));
  const role = target?.role ?? 'assistant';
  if (mode === 'edit' && role !== 'user')
    throw new ValidationError(
      'An edit names the user message it replaces.',
      issue('an assistant message: edit takes a user message'),
    );
  if (mode === 'regenerate' && role !== 'assistant')
    throw new ValidationError(
      'A regenerate names the answer it replaces.',
      issue('a user message: regenerate takes an answer (to change a user message, use mode "edit")'),
    );
  if (target?.replaced)
    throw new SessionConflictError(
      'message_replaced',
      `Message "${fromMessageId}" was replaced by a ${target.replaced.mode}.`,
    );
  if (mode === 'edit') return { mode, fromMessageId };
  const question = newestAnswered(messages, coming, fromMessageId);
  if (!question)
    throw new SessionConflictError(
      'not_newest_answer',
      `Message "${fromMessageId}" is not the newest answer: only the newest can be regenerated.`,
    );
  return { mode, fromMessageId, userMessageId: question };
}

/**
 * The user message that `answerId` answers, when `answerId` is the newest answer: the newest of
 * the current answers and of those queued or running turns will store, and after the newest
 * current user message. Message ids sort in conversation order.
 */
function newestAnswered(
  messages: MessageRecord[],
  coming: RunRecord[],
  answerId: string,
): string | undefined {
  const current = messages.filter((m) => !m.replaced);
  const answers = [
    ...current.filter((m) => m.role === 'assistant').map((m) => m.messageId),
    ...coming.map((r) => r.assistantMessageId),
  ].sort();
  if (answers.at(-1) !== answerId) return undefined;
  const questions = current.filter(
    (m) => m.role === 'user' && !isSteeredId(m.messageId) && m.messageId < answerId,
  );
  const lastUser = current.filter((m) => m.role === 'user').at(-1)?.messageId;
  if (lastUser && lastUser > answerId) return undefined;
  const pending = coming.find((r) => r.assistantMessageId === answerId);
  return pending?.userMessageId ?? questions.at(-1)?.messageId;
}
