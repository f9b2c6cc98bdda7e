import type { Runtime } from '../config/index.ts';
import type { ChatRequest, RewriteMode } from '../contract/index.ts';
import { MessageNotFoundError, SessionConflictError, ValidationError } from '../errors/index.ts';
import { publishEvents } from '../events/index.ts';
import {
  type ActionRecord,
  findRequest,
  listMessages,
  listRuns,
  type MessageRecord,
  markReplaced,
  messageId,
  openActions,
  putMessage,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { decideLeftBehind } from './continuation.ts';
import type { EventStream } from './event-stream.ts';
import { isSteeredId } from './steering.ts';

/** A regenerate or an edit, checked: what its run replaces and which user message it runs. */
export interface Rewrite {
  mode: RewriteMode;
  fromMessageId: string;
  /** A regenerate runs the user message the answer answered; an edit stores a new one. */
  userMessageId?: string;
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
export async function checkRewrite(
  rt: Runtime,
  session: SessionRecord,
  request: ChatRequest,
): Promise<Rewrite | undefined> {
  const { mode, from_message_id: fromMessageId } = request;
  if (!mode || !fromMessageId) return undefined;
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

/**
 * Whether a message is cut away by a rewrite whose run is `runId` and runs `userMessageId`: for an
 * edit the edited message and everything after it, for a regenerate everything after the question
 * it answers again; never the run's own messages.
 */
export function cutAway(
  rewrite: Pick<Rewrite, 'mode' | 'fromMessageId'>,
  userMessageId: string,
  runId: string,
): (messageId: string) => boolean {
  const own = messageId(runId, 0);
  return (id) => (rewrite.mode === 'edit' ? id >= rewrite.fromMessageId : id > userMessageId) && id < own;
}

/** What stores a turn's user message: `putMessage`, except for a regenerate, which runs a stored one again. */
export function userMessageWriter(rewrite: Rewrite | undefined): typeof putMessage {
  return rewrite?.mode === 'regenerate' ? async () => {} : putMessage;
}

/**
 * Cuts the conversation back for a regenerate or an edit, as its run starts (every turn queued
 * before it has ended by then): each message after the cut and before this run's own is marked
 * replaced (kept, left out of the conversation), and `messages.replaced` says which. A regenerate
 * keeps the user message it runs; an edit replaces the message it changes.
 *
 * First, the requests still open on those messages are decided as the message's submission decides
 * them (see `supersedeOpen`): those a turn queued ahead of this one asked after it was accepted. So
 * no request is left open on a message nobody sees. Returns them, for the run to announce.
 */
export async function cutBack(
  rt: Runtime,
  session: SessionRecord,
  run: RunRecord,
  stream: EventStream,
): Promise<ActionRecord[]> {
  if (!run.rewrite) return [];
  const { mode, fromMessageId } = run.rewrite;
  const cut = cutAway(run.rewrite, run.userMessageId, run.runId);
  const open = (await openActions(rt, run.sessionId)).filter((a) => cut(a.messageId));
  const { decided, events } = await decideLeftBehind(rt, session, open, run.runId);
  const replacement = { by: run.runId, mode, at: new Date(rt.clock()).toISOString() };
  const replaced: string[] = [];
  for (const m of (await listMessages(rt, run.sessionId, { current: true })).filter((m) =>
    cut(m.messageId),
  )) {
    if (await markReplaced(rt, run.sessionId, m.messageId, replacement)) replaced.push(m.messageId);
  }
  stream.append('messages.replaced', { message_ids: replaced, mode, from_message_id: fromMessageId });
  await publishEvents(rt, events);
  return decided;
}
