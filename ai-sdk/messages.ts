import type { FileUIPart, UIMessage } from 'ai';
import type { AttachmentInput, FileRecord, PendingAction } from '../client/index.ts';
import type { Resolution } from '../lib/contract/answers.ts';
import type { OpenRequests } from './chunks.ts';
import type { SwitchboardMessageMetadata } from './options.ts';

/** The provider name under which a file part's `providerReference` names a Switchboard file (`file_…`). */
export const FILE_PROVIDER = 'switchboard';

/** A request a stored answer lists, with where it is now (`pending` while it is open). */
type StoredRequest = PendingAction & { status: string; resolution?: Resolution };

/** A message of `GET /api/sessions/{id}/messages`, as far as the transport reads it. */
export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  tool_calls?: { id: string; name: string; args?: unknown; result?: unknown; ok?: boolean }[];
  pending_actions?: StoredRequest[];
  attachments?: { file_id?: string; name?: string; media_type?: string }[];
  feedback?: { rating?: 'up' | 'down' | null };
  usage?: SwitchboardMessageMetadata['usage'];
  /** Set on a message too large for a page: it is read whole at `content_ref`. */
  truncated?: boolean;
  content_ref?: string;
}

/** What a failed turn said (`session.error`), as an answer's `data-switchboard-error` part carries it. */
export interface TurnErrorData {
  code: string;
  message: string;
}

/** What a turn went on without (`agent.warning`), as an answer's `data-switchboard-warning` part carries it. */
export interface TurnWarningData {
  code: string;
  message: string;
  /** The MCP server it is about, or null. */
  source: string | null;
}

/** A turn's error as a UI message part. */
export const errorPart = (seq: number, data: TurnErrorData) =>
  ({ type: 'data-switchboard-error', id: `error-${seq}`, data }) as const;

/** A host tool call of an answer, as the log told it (`tool_call`, then `action.resolved`). */
export interface HostCall {
  id: string;
  name: string;
  args: unknown;
  /** `pending` until its `action.resolved`, then that event's status. */
  status: string;
  resolution?: Resolution;
}

/**
 * A Switchboard file as a UI message's file part: its name, its type, its address in the API (`url`),
 * and its id as the part's `providerReference` (which the transport sends as `file_id`).
 */
export const filePartOf = (
  file: Pick<FileRecord, 'id' | 'name' | 'media_type'>,
  apiUrl: string,
): FileUIPart => ({
  type: 'file',
  mediaType: file.media_type || 'application/octet-stream',
  filename: file.name,
  url: `${apiUrl.replace(/\/+$/, '')}/api/files/${encodeURIComponent(file.id)}`,
  providerReference: { [FILE_PROVIDER]: file.id },
});

type Part = UIMessage['parts'][number];

/** What every tool part of a request has: the call, by the request's id. */
interface ToolBase {
  type: 'dynamic-tool';
  toolName: string;
  toolCallId: string;
  input: unknown;
  title?: string;
}

/** A tool part of a settled request: its output, its error, or the approval given. */
function settledToolPart(request: StoredRequest, base: ToolBase): Part {
  const r = request.resolution;
  const failed = { ...base, state: 'output-error' as const };
  if (request.status !== 'resolved' || !r)
    return { ...failed, errorText: `the request was ${request.status}` };
  if (request.type === 'tool_approval') {
    const approval = {
      id: request.id,
      approved: r.decision === 'approve',
      ...(r.comment !== undefined && { reason: r.comment }),
    };
    return approval.approved
      ? { ...base, state: 'approval-responded', approval: { ...approval, approved: true } }
      : { ...base, state: 'output-denied', approval: { ...approval, approved: false } };
  }
  if (r.error !== undefined || r.outcome === 'failed')
    return { ...failed, errorText: String(r.error ?? r.result ?? 'failed') };
  return {
    ...base,
    state: 'output-available',
    output: (request.type === 'host_tool' ? r.result : r.output) ?? null,
  };
}

/** A request an answer lists, as the part a followed turn shows it as (docs/hosts.md, "useChat"). */
function requestPart(request: StoredRequest, open: OpenRequests): Part {
  const { status, resolution, ...action } = request;
  if (request.type === 'user_question') {
    const data = status === 'pending' ? { action, status: 'open' } : { action, status, resolution };
    return { type: 'data-switchboard-request', id: request.id, data };
  }
  const base: ToolBase = {
    type: 'dynamic-tool',
    toolName: request.toolName ?? request.type,
    toolCallId: request.id,
    input: request.args ?? {},
    ...(request.title !== undefined && { title: request.title }),
  };
  if (status !== 'pending') return settledToolPart(request, base);
  open.set(request.id, request.type);
  return request.type === 'tool_approval'
    ? { ...base, state: 'approval-requested', approval: { id: request.id } }
    : { ...base, state: 'input-available' };
}

/**
 * A stored message as a UI message: the files sent with it, its backend tool calls, its host tool
 * calls (`hostCalls`, from the log), its text, and the requests it asked, each where it is now (an
 * open one is added to `open`); the rating given to it as `metadata.rating`.
 */
export function uiMessageOf(
  message: StoredMessage,
  options: { apiUrl: string; hostCalls?: HostCall[]; open?: OpenRequests },
): UIMessage {
  const open = options.open ?? new Map();
  const parts: UIMessage['parts'] = [];
  for (const a of message.attachments ?? [])
    if (a.file_id)
      parts.push(
        filePartOf(
          { id: a.file_id, name: a.name ?? a.file_id, media_type: a.media_type ?? '' },
          options.apiUrl,
        ),
      );
  for (const call of message.tool_calls ?? []) {
    const base = {
      type: 'dynamic-tool' as const,
      toolName: call.name,
      toolCallId: call.id,
      input: call.args ?? {},
    };
    parts.push(
      call.ok === false
        ? { ...base, state: 'output-error', errorText: String(call.result ?? 'the tool failed') }
        : { ...base, state: 'output-available', output: call.result ?? null },
    );
  }
  for (const call of options.hostCalls ?? [])
    parts.push(
      requestPart(
        {
          id: call.id,
          type: 'host_tool',
          toolName: call.name,
          args: call.args,
          status: call.status,
          ...(call.resolution && { resolution: call.resolution }),
        },
        open,
      ),
    );
  if (message.content) parts.push({ type: 'text', text: message.content, state: 'done' });
  for (const request of message.pending_actions ?? []) parts.push(requestPart(request, open));
  const rating = message.feedback?.rating;
  const metadata: SwitchboardMessageMetadata = {
    ...(message.usage && { usage: message.usage }),
    ...(rating && { rating }),
  };
  return {
    id: message.id,
    role: message.role,
    parts,
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
}

/** A failed turn's error as the log told it, with the messages its run wrote (by the log's ids). */
export interface LoggedError {
  seq: number;
  /** The answer the run wrote to, when it wrote one. */
  answer: string | undefined;
  /** The user message that started the run, when one did. */
  user: string | undefined;
  data: TurnErrorData;
}

/**
 * The loaded messages with each failed turn's errors where the stream showed them: a part of the
 * answer its run wrote, else of an answer of its own (named by the error's seq) right after the
 * user message that started the run, else at the end. A failed answer is not stored, so most
 * failed turns take the second way.
 */
export function withTurnErrors<M extends UIMessage>(messages: M[], errors: LoggedError[]): M[] {
  const out = [...messages];
  const at = (id: string | undefined) => (id === undefined ? -1 : out.findIndex((m) => m.id === id));
  for (const error of errors) {
    const part = errorPart(error.seq, error.data);
    const answer = at(error.answer);
    if (answer !== -1) {
      out[answer] = { ...out[answer]!, parts: [...out[answer]!.parts, part] };
      continue;
    }
    // Its own answer, after the user message (and after an error answer already put there).
    let index = at(error.user);
    if (index === -1) index = out.length - 1;
    while (out[index + 1]?.id.startsWith('error-')) index += 1;
    out.splice(index + 1, 0, { id: `error-${error.seq}`, role: 'assistant', parts: [part] } as unknown as M);
  }
  return out;
}

/** Whether a value is a plain JSON object (a message's `metadata` is sent only then). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The text of a user message and its files: a Switchboard file (its `providerReference`) by its id,
 * any other as an attachment (data URLs inline, other URLs by reference).
 */
export function contentOf(message: UIMessage | undefined): {
  text: string;
  attachments: AttachmentInput[];
  files: Pick<FileRecord, 'id' | 'name' | 'media_type'>[];
} {
  const texts: string[] = [];
  const attachments: AttachmentInput[] = [];
  const files: Pick<FileRecord, 'id' | 'name' | 'media_type'>[] = [];
  for (const part of message?.parts ?? []) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'file') {
      const id = part.providerReference?.[FILE_PROVIDER];
      if (id) {
        files.push({ id, name: part.filename ?? id, media_type: part.mediaType });
        continue;
      }
      const kind = part.mediaType.startsWith('image/') ? 'image' : 'document';
      attachments.push(part.url.startsWith('data:') ? { kind, data_uri: part.url } : { kind, url: part.url });
    }
  }
  return { text: texts.join('\n'), attachments, files };
}
