import { actionView } from '../actions/index.ts';
import type { Runtime } from '../config/index.ts';
import { snakeCase } from '../contract/index.ts';
import { fileView } from '../files/index.ts';
import { feedbackView, messageView, sessionView } from '../sessions/index.ts';
import {
  type ActionRecord,
  byAsked,
  type FeedbackRecord,
  getFile,
  getSessionFiles,
  isOpen,
  latestRun,
  listActions,
  listFeedback,
  listMessages,
  type MessageRecord,
  type SessionRecord,
} from '../store/index.ts';

/** Fields of a stored message that are the store's own, not the conversation's. */
const INTERNAL = new Set(['messageId', 'sessionId', 'blobKey']);

/**
 * A message as exported: every field its record holds (snake_case; whatever a message comes to
 * record is exported with it), over which the wire form of `GET .../messages` is laid (attachments
 * without their contents), with its requests and where they are now, its rating, and whether a
 * regenerate or an edit replaced it.
 */
function exportedMessage(
  message: MessageRecord,
  actions: ActionRecord[],
  feedback: FeedbackRecord | undefined,
) {
  const recorded = Object.fromEntries(
    Object.entries(message)
      .filter(([key]) => !INTERNAL.has(key))
      .map(([key, value]) => [snakeCase(key), value]),
  );
  return {
    ...recorded,
    ...messageView(message, actions, feedback),
    actions: actions.filter((a) => a.messageId === message.messageId).map(actionView),
    feedback: feedback ? feedbackView(feedback) : null,
    replaced: message.replaced
      ? { by_run_id: message.replaced.by, mode: message.replaced.mode, at: message.replaced.at }
      : null,
  };
}

/**
 * The whole conversation as JSON: the session, every message in order (replaced ones included and
 * marked), each with its requests, rating, files and usage; the session's files; and the host
 * context each user message was sent with.
 */
export async function exportSession(rt: Runtime, session: SessionRecord) {
  const [messages, actions, feedback, run, attached] = await Promise.all([
    listMessages(rt, session.sessionId),
    listActions(rt, session.sessionId),
    listFeedback(rt, session.sessionId),
    latestRun(rt, session.sessionId),
    getSessionFiles(rt, session.sessionId),
  ]);
  // One read of the session's requests: the open ones are among them, in the order openActions gives.
  const open = actions.filter(isOpen).sort(byAsked);
  const files = await Promise.all([...attached.fileIds].sort().map((id) => getFile(rt, id)));
  return {
    format: 'switchboard.session-export',
    version: 1,
    exported_at: new Date(rt.clock()).toISOString(),
    session: sessionView(session, run, open),
    messages: messages.map((m) => exportedMessage(m, actions, feedback.get(m.messageId))),
    files: files.flatMap((f) => (f ? [fileView(f)] : [])),
    host_context_history: messages.flatMap((m) =>
      m.role === 'user' && m.hostContext
        ? [{ message_id: m.messageId, created_at: m.createdAt, host_context: m.hostContext }]
        : [],
    ),
  };
}
