import type { Runtime } from '../config/index.ts';
import { type Attachment, type ChatRequest, collectAttachments } from '../contract/index.ts';
import { INLINE_LIMIT_BYTES, putBlob, type StoredAttachment } from '../store/index.ts';

/*
 * The request's side of attachments, shared by a new message, a rewrite and a continuation: its
 * attachments split and stored (the files it names are checked before, in request-checks.ts). What
 * the worker reads back is in attachment-parts.ts.
 */

/** Moves an attachment's large content to the bucket; small ones stay inline. */
export async function storeAttachment(
  rt: Runtime,
  key: string,
  attachment: Attachment,
  inlineLimit = INLINE_LIMIT_BYTES,
): Promise<StoredAttachment> {
  const field =
    attachment.data_uri !== undefined ? 'data_uri' : attachment.text !== undefined ? 'text' : undefined;
  const content = field ? attachment[field] : undefined;
  if (!field || content === undefined || Buffer.byteLength(content) <= inlineLimit) return attachment;
  await putBlob(rt, key, content);
  const { [field]: _moved, ...rest } = attachment;
  return { ...rest, blob_key: key, content_field: field };
}

/** The fields of a message or a continuation that carry attachments. */
type Carrying = Pick<ChatRequest, 'attachments' | 'images' | 'screenshot' | 'host_context'>;

/**
 * A request's attachments, split: references go with the message (or the continuation's run),
 * screenshots only to `look_at_screen`.
 */
export function attachmentsOf(request: Carrying): { references: Attachment[]; screenshots: Attachment[] } {
  const all = collectAttachments({
    attachments: request.attachments,
    images: request.images,
    screenshot: request.screenshot,
    contextAttachments: request.host_context?.attachments,
  });
  return {
    references: all.filter((a) => a.purpose === 'reference'),
    screenshots: all.filter((a) => a.purpose === 'screenshot'),
  };
}

/**
 * Puts a run's screenshots in the bucket, one object each, and answers their keys for the run item:
 * however many there are, the run item stays small. The keys depend on the run only, so a retry
 * writes the same objects again.
 */
export async function storeScreenshots(
  rt: Runtime,
  sessionId: string,
  runId: string,
  screenshots: unknown[],
): Promise<string[]> {
  const keys = screenshots.map((_, i) => `screenshots/${sessionId}/${runId}/${i}.json`);
  await Promise.all(screenshots.map((shot, i) => putBlob(rt, keys[i] as string, shot)));
  return keys;
}
