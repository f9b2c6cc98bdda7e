import { actionView, pendingToolCallOf, resolutionView } from '../actions/index.ts';
import { hostSessionId } from '../auth/index.ts';
import { ANSWER_LIMITS, answerBytes, messageContentPath, type SessionSummary } from '../contract/index.ts';
import type {
  ActionRecord,
  FeedbackRecord,
  MessageRecord,
  RunRecord,
  SessionRecord,
} from '../store/index.ts';
import { roundUsd } from '../usage/index.ts';
import { feedbackView } from './feedback-view.ts';

/** What a host sees of a session's state. */
export type SessionStatus = 'idle' | 'running' | 'requires_action';

/**
 * The session's status: running while its newest run is queued or running (runs of a session
 * execute in order), else waiting while any request is open, else idle.
 */
export function statusOf(run: RunRecord | undefined, open: ActionRecord[] = []): SessionStatus {
  if (run && (run.status === 'queued' || run.status === 'running')) return 'running';
  return open.length > 0 ? 'requires_action' : 'idle';
}

/** The wire form of a run. */
export function runView(run: RunRecord) {
  return {
    id: run.runId,
    status: run.status,
    request_id: run.requestId,
    message_id: run.userMessageId,
    assistant_message_id: run.assistantMessageId,
    created_at: run.createdAt,
    started_at: run.startedAt ?? null,
    ended_at: run.endedAt ?? null,
    stop_reason: run.stopReason ?? null,
    error: run.error ?? null,
    usage: run.usage ?? null,
  };
}

/**
 * The wire form of `GET /api/sessions/{id}`. `budgetUsd` is the session's budget (its agent's, else
 * the server's, plus what operators added to it), when it has one.
 */
export function sessionView(
  session: SessionRecord,
  run: RunRecord | undefined,
  open: ActionRecord[] = [],
  budgetUsd?: number,
) {
  const hostCalls = open.filter((a) => a.kind === 'host_tool');
  const pending = hostCalls.find((a) => a.status === 'pending');
  const fits = withinBudget(ANSWER_LIMITS.listedItem);
  const call = pendingToolCallOf(
    pending,
    hostCalls.filter((a) => a.status === 'queued'),
  );
  const host = hostSessionId(session.sessionId);
  return {
    id: host,
    /** How a caller other than the owner (a reviewer) names this session: see lib/auth/session-ref.ts. */
    ref: session.sessionId,
    agent_id: session.agentId,
    status: statusOf(run, open),
    // Shown whole while they fit a page's item in all; the rest by reference to the message that asked them.
    pending_action:
      call && pending && !fits(call)
        ? {
            ...call,
            arguments: {},
            truncated: true,
            content_ref: messageContentPath(host, pending.messageId),
          }
        : call,
    pending_actions: open
      .filter((a) => a.kind !== 'host_tool')
      .map(actionView)
      .map((view) =>
        fits(view)
          ? view
          : { ...view, request: {}, truncated: true, content_ref: messageContentPath(host, view.message_id) },
      ),
    created_at: session.createdAt,
    metadata: session.metadata ?? {},
    host_context: session.hostContext ?? null,
    last_run: run ? runView(run) : null,
    /** What the session's turns cost in all (the seed's `spentUsd`), and its budget. */
    spent_usd: roundUsd(session.spentUsd ?? 0),
    budget_usd: budgetUsd ?? null,
  };
}

/** A counter of answer bytes: each value fits while all it was asked about stay within `budget`. */
function withinBudget(budget: number) {
  let left = budget;
  return (value: unknown): boolean => {
    const bytes = answerBytes(value);
    if (bytes > left) return false;
    left -= bytes;
    return true;
  };
}

/** A session as `GET /api/sessions` lists it: what it is, not what it is doing. */
export function sessionListView(session: SessionRecord) {
  return {
    id: hostSessionId(session.sessionId),
    ref: session.sessionId,
    agent_id: session.agentId,
    created_at: session.createdAt,
    title: session.name ?? null,
    metadata: session.metadata ?? {},
  } satisfies SessionSummary;
}

/** The wire form of the files an answer produced (its result's `files`); empty when none. */
export function resultFilesView(files: MessageRecord['files'] = []) {
  return files.map((f) => ({ id: f.id, name: f.name, media_type: f.mimeType ?? null, size: f.size ?? null }));
}

/**
 * The wire form of a stored message, each request it lists shown with where it is now, and its
 * rating. A request's one state is its record: a message that asked it, or a later one that carried
 * it on unchanged, shows the record's status. Only a message older than the record's own (the
 * request was asked again, changed, on a later message) shows it withdrawn: it was withdrawn from
 * that message before it was asked anew. Message ids sort in conversation order.
 */
export function messageView(message: MessageRecord, actions: ActionRecord[] = [], feedback?: FeedbackRecord) {
  const records = new Map(actions.map((a) => [a.actionId, a]));
  return {
    id: message.messageId,
    role: message.role,
    content: message.content,
    run_id: message.runId,
    created_at: message.createdAt,
    ...(message.toolCalls && { tool_calls: message.toolCalls }),
    ...(message.pendingActions && {
      pending_actions: message.pendingActions.map((asked) => {
        const record = records.get(asked.id);
        if (record && record.messageId > message.messageId)
          return { ...asked, status: 'cancelled', actor: 'system' };
        return {
          ...asked,
          status: record?.status ?? 'pending',
          ...(record?.resolution && { resolution: resolutionView(record.resolution) }),
          ...(record?.actor && { actor: record.actor }),
        };
      }),
    }),
    ...(message.stopReason && { stop_reason: message.stopReason }),
    ...(message.usage && { usage: message.usage }),
    ...(message.metadata && { metadata: message.metadata }),
    // The files an answer produced, as the agent described them (its result's `files`).
    ...(message.files && { files: resultFilesView(message.files) }),
    ...(message.attachments && {
      // What was attached, without echoing contents of up to 12,000,000 characters back.
      attachments: message.attachments.map(
        ({ data_uri: _d, text: _t, blob_key: _b, content_field: _c, ...about }) => about,
      ),
    }),
    ...(feedback && { feedback: feedbackView(feedback) }),
  };
}

/** A message as `GET /api/sessions/{id}/messages` shows it. */
export type MessageView = ReturnType<typeof messageView>;

/**
 * A message as a page lists it: whole, or, past {@link ANSWER_LIMITS}' `listedItem` (a 7 MB answer,
 * a call's 8 MB arguments), its envelope without its content, calls, requests and metadata, with
 * `truncated: true` and `content_ref`, where the whole message is read. A page always fits an answer.
 */
export function listedMessage(view: MessageView, sessionId: string) {
  if (answerBytes(view) <= ANSWER_LIMITS.listedItem) return view;
  const { content: _c, tool_calls: _t, pending_actions: _p, metadata: _m, ...envelope } = view;
  return {
    ...envelope,
    content: '',
    truncated: true as const,
    content_ref: messageContentPath(hostSessionId(sessionId), view.id),
  };
}
