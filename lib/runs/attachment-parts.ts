import type { Runtime } from '../config/index.ts';
import { type Attachment, type ContentPart, decodeDataUri, type HostAgentFiles } from '../contract/index.ts';
import { conversationFiles, sessionFiles } from '../files/index.ts';
import { getBlob, getMessage, type MessageRecord, type StoredAttachment } from '../store/index.ts';

/*
 * The worker's side of attachments: what a message stored (see attachments.ts) as the content parts
 * an agent reads, each read only when asked.
 */

/** An attachment as the agent gets it: its content back in place. */
export async function loadAttachment(rt: Runtime, stored: StoredAttachment): Promise<Attachment> {
  const { blob_key, content_field, ...attachment } = stored;
  if (!blob_key || !content_field) return attachment;
  return { ...attachment, [content_field]: await getBlob<string>(rt, blob_key) };
}

/**
 * Which part an attachment becomes. `kind` defaults to `image` when the host leaves it out, so a
 * known media type that is not an image wins over it: a PDF is never sent to the model as an image.
 */
function partType(kind: Attachment['kind'], mediaType: string | undefined): ContentPart['type'] {
  if (kind === 'text') return 'text';
  if (mediaType === undefined) return kind;
  return mediaType.toLowerCase().startsWith('image/') ? 'image' : 'document';
}

const OCTET_STREAM = 'application/octet-stream';

/** Bytes as an inline image or document part, or as text when the attachment is text. */
function bytesPart(
  type: ContentPart['type'],
  bytes: Uint8Array,
  mediaType: string,
  name: string | undefined,
): ContentPart {
  if (type === 'text') return { type: 'text', text: Buffer.from(bytes).toString('utf8') };
  const data = Buffer.from(bytes).toString('base64');
  if (type === 'image') return { type: 'image', mediaType, data };
  return { type: 'document', mediaType, data, ...(name !== undefined && { name }) };
}

/**
 * One reference attachment as native model content (the host contract's binary, image URL,
 * document URL, or text). Text is text; a data URI is decoded; a URL stays a URL for the provider
 * to fetch; a `file_id` is read from the conversation's files (a text attachment as the file's
 * extracted text). A file that has since expired or been deleted cannot be given again: it becomes
 * a text part that says so, so the model does not answer as though it had seen it.
 */
async function contentPartOf(attachment: Attachment, files: HostAgentFiles): Promise<ContentPart> {
  const { kind, name } = attachment;
  if (attachment.text !== undefined) return { type: 'text', text: attachment.text };
  if (attachment.data_uri !== undefined) {
    const { mediaType, bytes } = decodeDataUri(attachment.data_uri);
    const type = partType(kind, mediaType ?? attachment.media_type);
    return bytesPart(type, bytes, mediaType ?? attachment.media_type ?? OCTET_STREAM, name);
  }
  if (attachment.url !== undefined) {
    const mediaType = attachment.media_type ?? (kind === 'text' ? 'text/plain' : undefined);
    const url = attachment.url;
    // A text attachment by URL is a document the provider fetches: the runtime fetches nothing.
    return partType(kind, mediaType) === 'image'
      ? { type: 'image', url, ...(mediaType !== undefined && { mediaType }) }
      : { type: 'document', url, ...(mediaType !== undefined && { mediaType }), ...(name && { name }) };
  }
  const fileId = attachment.file_id ?? '';
  const file = (await files.list()).find((f) => f.id === fileId);
  const mediaType = file?.mimeType ?? attachment.media_type ?? OCTET_STREAM;
  const type = partType(kind, mediaType);
  if (type === 'text') {
    const text = file ? await files.text(fileId) : null;
    if (text !== null) return { type: 'text', text };
  }
  const bytes = file ? await files.read(fileId) : null;
  if (!bytes)
    return {
      type: 'text',
      text: `The attached file "${name ?? file?.name ?? fileId}" is no longer available.`,
    };
  // A text attachment whose file has no text (a scan, an unknown type) goes as the document it is.
  return bytesPart(type === 'text' ? 'document' : type, bytes, mediaType, name ?? file?.name);
}

/**
 * `io.parts`: the reference attachments of a message as content parts, each message's read once
 * per turn and only when asked. Without an id, the turn's own (`own`: the message's, or a
 * continuation's); with one, those of that message of the conversation (a message of `history`, or
 * a steering message the turn took), as first given: they are stored with their message. Screenshots
 * are never among them. Any other id answers `[]`.
 */
export function partsReader(
  rt: Runtime,
  sessionId: string,
  own: StoredAttachment[],
  messages: MessageRecord[],
): (messageId?: string) => Promise<ContentPart[]> {
  // Keyed by the message id, `undefined` for the turn's own.
  const read = new Map<string | undefined, Promise<ContentPart[]>>();
  // Each message's files are the ones it names: a continuation's own file is not on any message.
  const partsOf = async (stored: StoredAttachment[]) => {
    const references = stored.filter((a) => a.purpose === 'reference');
    if (references.length === 0) return [];
    const files = sessionFiles(rt, await conversationFiles(rt, [{ attachments: references }]));
    const loaded = await Promise.all(references.map((a) => loadAttachment(rt, a)));
    return Promise.all(loaded.map((a) => contentPartOf(a, files)));
  };
  const messageParts = async (messageId: string) => {
    // A steering message taken during the turn is not in the history the turn began with.
    const message =
      messages.find((m) => m.messageId === messageId) ?? (await getMessage(rt, sessionId, messageId));
    return message?.role === 'user' ? partsOf(message.attachments ?? []) : [];
  };
  return (messageId) => {
    if (messageId !== undefined && typeof messageId !== 'string') return Promise.resolve([]);
    let parts = read.get(messageId);
    if (!parts) {
      parts = messageId === undefined ? partsOf(own) : messageParts(messageId);
      // A read that failed (the bucket, the table) is tried again when asked again.
      parts.catch(() => read.delete(messageId));
      read.set(messageId, parts);
    }
    return parts;
  };
}
