import type { Switchboard } from '../agents/index.ts';
import { hostSessionId, type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { FeedbackEvent, FeedbackRequest } from '../contract/index.ts';
import {
  FeedbackHookError,
  MessageNotFoundError,
  SwitchboardError,
  ValidationError,
} from '../errors/index.ts';
import { historyMessage, isSteeredId } from '../runs/index.ts';
import { feedbackView } from '../sessions/index.ts';
import {
  type FeedbackRecord,
  listMessages,
  type MessageRecord,
  putFeedback,
  type SessionRecord,
} from '../store/index.ts';

/**
 * Rates an answer: the rating is stored on the message (replacing the one before: sending the same
 * request twice is safe), then the agent's `feedback(event)` runs, then the server's `onFeedback`.
 * A hook that fails fails the request with its error; the rating stays.
 */
export async function rateMessage(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  session: SessionRecord,
  messageId: string,
  request: FeedbackRequest,
) {
  const messages = await listMessages(rt, session.sessionId);
  const index = messages.findIndex((m) => m.messageId === messageId);
  const message = messages[index];
  if (!message)
    throw new MessageNotFoundError(messageId, [
      { path: ['messageId'], message: 'no such message in this session' },
    ]);
  if (message.role !== 'assistant')
    throw new ValidationError('Only an answer can be rated.', [
      { path: ['messageId'], message: 'a user message: only an assistant answer can be rated' },
    ]);
  const { stored, previous } = await putFeedback(rt, session.sessionId, {
    messageId,
    rating: request.rating,
    reasons: request.reasons ?? [],
    ...(request.comment !== undefined && { comment: request.comment }),
    userId: identity.user,
    updatedAt: new Date(rt.clock()).toISOString(),
  });
  const context = requestContextOf(identity);
  const event = await feedbackEvent(rt, session, messages, index, stored, previous, context);
  const agent = await app.resolveAgent(session.agentId, context);
  const where = { agentId: session.agentId, sessionId: session.sessionId, messageId };
  await runHook('feedback', rt, where, () => agent?.definition.feedback?.(event));
  await runHook('onFeedback', rt, where, () => app.onFeedback?.(event));
  return {
    session_id: hostSessionId(session.sessionId),
    message_id: messageId,
    ...feedbackView(stored),
    previous: previous ? feedbackView(previous) : null,
  };
}

/**
 * Runs a hook; its failure is the request's: a Switchboard error as it is, anything else a 500 that
 * carries the hook's message (the whole error, stack included, is logged).
 */
async function runHook(
  hook: 'feedback' | 'onFeedback',
  rt: Runtime,
  where: Record<string, string>,
  call: () => unknown,
): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof SwitchboardError) throw error;
    rt.logger.error(`The ${hook} hook failed`, { ...where, error });
    throw new FeedbackHookError(hook, error instanceof Error ? error.message : String(error));
  }
}

/** The seed's whole event: the rating, what it replaced, the answer and the question it answered. */
async function feedbackEvent(
  rt: Runtime,
  session: SessionRecord,
  messages: MessageRecord[],
  index: number,
  stored: FeedbackRecord,
  previous: FeedbackRecord | undefined,
  context: FeedbackEvent['context'],
): Promise<FeedbackEvent> {
  const message = messages[index] as MessageRecord;
  const before = messages.slice(0, index);
  // A current answer answers a current question; a replaced one, the question it had.
  const question = before
    .filter((m) => m.role === 'user' && !isSteeredId(m.messageId) && (message.replaced || !m.replaced))
    .at(-1);
  return {
    conversationId: session.sessionId,
    messageId: message.messageId,
    messageIndex: before.filter((m) => !m.replaced).length,
    agentId: session.agentId,
    userId: stored.userId,
    rating: stored.rating,
    reasons: stored.reasons,
    ...(stored.comment !== undefined && { comment: stored.comment }),
    ...(previous && {
      previous: {
        rating: previous.rating,
        reasons: previous.reasons ?? [],
        ...(previous.comment !== undefined && { comment: previous.comment }),
        updatedAt: previous.updatedAt,
      },
    }),
    message: await historyMessage(rt, message),
    ...(question && { question: await historyMessage(rt, question) }),
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    context,
  };
}
