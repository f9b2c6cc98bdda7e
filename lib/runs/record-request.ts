import type { Runtime } from '../config/index.ts';
import { newId } from '../ids/index.ts';
import { messageId, type RequestRecord, recordRequest } from '../store/index.ts';

/** A request id as recorded: by this request (`first`), or by an earlier send of the same id. */
export interface RecordedRequest {
  first: boolean;
  /** What the request id was first applied as: its run, its messages, its time. */
  record: RequestRecord;
}

/**
 * Records a request id with the run it starts, once: the first send writes it (one conditional
 * put), a retry of the same id reads back what the first send recorded and finishes that work with
 * that run, so no second turn starts. Every entry point (a new message, a rewrite, a continuation,
 * an answer) records its request here, before it writes anything else.
 *
 * The run's assistant message is its second message; its user message is its first, unless the
 * request runs a stored one (`userMessageId`: a regenerate's question, a paused message).
 */
export async function recordRequestRun(
  rt: Runtime,
  sessionId: string,
  requestId: string,
  userMessageId?: string,
  now = rt.clock(),
): Promise<RecordedRequest> {
  const runId = newId('run');
  return recordRequest(
    rt,
    {
      requestId,
      sessionId,
      runId,
      userMessageId: userMessageId ?? messageId(runId, 0),
      assistantMessageId: messageId(runId, 1),
      createdAt: new Date(now).toISOString(),
    },
    now,
  );
}
