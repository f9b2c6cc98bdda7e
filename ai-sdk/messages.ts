import type { UIMessage } from 'ai';
import type { AttachmentInput } from '../client/index.ts';
import type { SwitchboardMessageMetadata } from './options.ts';

/** A message of `GET /api/sessions/{id}/messages`, as far as the transport reads it. */
export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  tool_calls?: { id: string; name: string; args?: unknown; result?: unknown; ok?: boolean }[];
  usage?: SwitchboardMessageMetadata['usage'];
  /** Set on a message too large for a page: it is read whole at `content_ref`. */
  truncated?: boolean;
  content_ref?: string;
}

/** A stored message as a UI message: its tool calls (backend tools) and its text. */
export function uiMessageOf(message: StoredMessage): UIMessage {
  const parts: UIMessage['parts'] = [];
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
  if (message.content) parts.push({ type: 'text', text: message.content, state: 'done' });
  return {
    id: message.id,
    role: message.role,
    parts,
    ...(message.usage && { metadata: { usage: message.usage } }),
  };
}

/** Whether a value is a plain JSON object (a message's `metadata` is sent only then). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text of a user message, and its files as attachments (data URLs inline, other URLs by reference). */
export function contentOf(message: UIMessage | undefined): { text: string; attachments: AttachmentInput[] } {
  const texts: string[] = [];
  const attachments: AttachmentInput[] = [];
  for (const part of message?.parts ?? []) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'file') {
      const kind = part.mediaType.startsWith('image/') ? 'image' : 'document';
      attachments.push(part.url.startsWith('data:') ? { kind, data_uri: part.url } : { kind, url: part.url });
    }
  }
  return { text: texts.join('\n'), attachments };
}
