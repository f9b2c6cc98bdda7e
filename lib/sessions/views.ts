import type { MessageRecord, RunRecord, SessionRecord } from '../store/index.ts';

/** What a host sees of a session's state. */
export type SessionStatus = 'idle' | 'running' | 'requires_action';

/** The session status follows its newest run: runs of a session execute in order. */
export function statusOf(run: RunRecord | undefined): SessionStatus {
  if (!run) return 'idle';
  if (run.status === 'queued' || run.status === 'running') return 'running';
  if (run.status === 'requires_action') return 'requires_action';
  return 'idle';
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

/** The wire form of `GET /api/sessions/{id}`. */
export function sessionView(session: SessionRecord, run: RunRecord | undefined) {
  return {
    id: session.sessionId,
    agent_id: session.agentId,
    status: statusOf(run),
    created_at: session.createdAt,
    metadata: session.metadata ?? {},
    host_context: session.hostContext ?? null,
    last_run: run ? runView(run) : null,
  };
}

/** The wire form of a stored message. */
export function messageView(message: MessageRecord) {
  return {
    id: message.messageId,
    role: message.role,
    content: message.content,
    run_id: message.runId,
    created_at: message.createdAt,
    ...(message.toolCalls && { tool_calls: message.toolCalls }),
    ...(message.pendingActions && { pending_actions: message.pendingActions }),
    ...(message.stopReason && { stop_reason: message.stopReason }),
    ...(message.usage && { usage: message.usage }),
    ...(message.metadata && { metadata: message.metadata }),
    ...(message.attachments && {
      // What was attached, without echoing contents of up to 12,000,000 characters back.
      attachments: message.attachments.map(
        ({ data_uri: _d, text: _t, blob_key: _b, content_field: _c, ...about }) => about,
      ),
    }),
  };
}
