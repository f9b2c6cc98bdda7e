import type { Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { Attachment, ChatRequest } from '../contract/index.ts';
import { type Issue, ValidationError } from '../errors/index.ts';
import { type AttachedFile, ownedFile } from '../files/index.ts';
import { getBlob, INLINE_LIMIT_BYTES, putBlob, type StoredAttachment } from '../store/index.ts';

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
      const file = await ownedFile(rt, identity, attachment.file_id).catch(() => undefined);
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

/** An attachment as the agent gets it: its content back in place. */
export async function loadAttachment(rt: Runtime, stored: StoredAttachment): Promise<Attachment> {
  const { blob_key, content_field, ...attachment } = stored;
  if (!blob_key || !content_field) return attachment;
  return { ...attachment, [content_field]: await getBlob<string>(rt, blob_key) };
}

/** Splits a turn's attachments: references go with the message, screenshots only to look_at_screen. */
export function splitAttachments(all: Attachment[]): { references: Attachment[]; screenshots: Attachment[] } {
  return {
    references: all.filter((a) => a.purpose === 'reference'),
    screenshots: all.filter((a) => a.purpose === 'screenshot'),
  };
}
