import { hostSessionId, type Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { type Attachment, type ChatRequest, onBusyOf } from '../contract/index.ts';
import { type Issue, NotFoundError, SessionBusyError, ValidationError } from '../errors/index.ts';
import { type AttachedFile, ownedFile } from '../files/index.ts';
import { busyRuns, findRequest, listRuns, type RunRecord, type SessionRecord } from '../store/index.ts';

/*
 * What a message, a rewrite or a continuation is checked against before anything of it is written
 * (resolve-session.ts runs these): the files it names, and a busy session under `on_busy: "reject"`.
 */

/**
 * Checks that every `file_id` names a stored file of the caller (an unknown one is a 422 at its
 * path) and returns those files, with where the message names them.
 */
export async function checkFileIds(
  rt: Runtime,
  identity: Identity,
  request: ChatRequest,
): Promise<AttachedFile[]> {
  const lists: [(string | number)[], Attachment[] | undefined][] = [
    [['attachments'], request.attachments],
    [['host_context', 'attachments'], request.host_context?.attachments],
  ];
  const issues: Issue[] = [];
  const attached: AttachedFile[] = [];
  for (const [path, list] of lists) {
    for (const [i, attachment] of (list ?? []).entries()) {
      if (!attachment.file_id) continue;
      // A presigned upload is confirmed here, so a host need not ask for the file before using it.
      // Unknown or not the caller's: a 422 on the field. A failed read answers 5xx, for a retry.
      const file = await ownedFile(rt, identity, attachment.file_id).catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      if (!file) issues.push({ path: [...path, i, 'file_id'], message: 'unknown file' });
      else if (file.status !== 'stored')
        issues.push({ path: [...path, i, 'file_id'], message: 'the file has not been uploaded yet' });
      else attached.push({ file, path: [...path, i, 'file_id'] });
    }
  }
  if (issues.length > 0)
    throw new ValidationError(
      `Invalid message at ${issues[0]?.path.join('.')}: ${issues[0]?.message}`,
      issues,
    );
  return attached;
}

/**
 * `on_busy: "reject"`: a 409 `session_busy` naming the turn when the session is busy, before the
 * message stores anything. A request id that was already applied (the retry of a message accepted
 * while nothing ran) is not refused: it answers as the duplicate it is.
 */
export async function refuseIfBusy(
  rt: Runtime,
  session: SessionRecord,
  request: ChatRequest,
  requestId: string,
): Promise<void> {
  if (onBusyOf(request) !== 'reject' || request.tool_call_id !== undefined) return;
  const busy = busyRuns(await listRuns(rt, session.sessionId));
  if (busy.length === 0) return;
  if (await findRequest(rt, session.sessionId, requestId)) return;
  const turn = busy.find((r) => r.status === 'running') ?? (busy[0] as RunRecord);
  const more = busy.length - 1;
  throw new SessionBusyError(
    `Session "${hostSessionId(session.sessionId)}" is busy: ${turn.kind === 'resolve' ? 'the answer' : 'the turn'} ` +
      `${turn.runId} is ${turn.status}${more > 0 ? ` (${more} more queued)` : ''}. Send the message again ` +
      'with on_busy "enqueue" to run it next, "interrupt" to stop the turn first, or "steer" to offer it to the turn.',
    turn.runId,
  );
}
