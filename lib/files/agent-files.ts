import type { Runtime } from '../config/index.ts';
import type { HostAgentFile, HostAgentFiles } from '../contract/index.ts';
import { type FileRecord, getFile, isMissingObject, type MessageRecord } from '../store/index.ts';
import { isLive } from './lifecycle.ts';
import { extractText, textKindOf } from './text.ts';

/** A file as an agent is handed it. */
export function agentFile(file: FileRecord): HostAgentFile {
  return { id: file.fileId, name: file.name, mimeType: file.mediaType, size: file.size };
}

/** The ids of the files one message carries: what its attachments name, or what an answer produced. */
export function fileIdsOf(message: Pick<MessageRecord, 'attachments' | 'files'>): string[] {
  const attached = (message.attachments ?? []).flatMap((a) => (a.file_id ? [a.file_id] : []));
  return [...new Set([...attached, ...(message.files ?? []).map((f) => f.id)])];
}

/**
 * The files of a conversation: those its messages attached and those its answers produced, in the
 * order they came into it (oldest first), each once. A file that no longer exists, is being
 * deleted or has expired is left out.
 */
export async function conversationFiles(
  rt: Runtime,
  messages: Pick<MessageRecord, 'attachments' | 'files'>[],
): Promise<FileRecord[]> {
  const ids = [...new Set(messages.flatMap(fileIdsOf))];
  const files = await Promise.all(ids.map((id) => getFile(rt, id)));
  const now = rt.clock();
  return files.filter((f): f is FileRecord => f !== undefined && f.status === 'stored' && isLive(f, now));
}

/**
 * `io.files`: the conversation's files, and only those. `read` and `text` look each file up again,
 * so one deleted or expired since the turn began answers null too. `text` answers null for a type
 * with no text (see `textKindOf`), a file over `files.textMaxBytes`, and a document that cannot be
 * parsed (logged); its text is cut at `files.textMaxChars`. A read the table or the bucket failed
 * (past the SDK's retries) rejects: it says nothing about the file.
 */
export function sessionFiles(rt: Runtime, files: FileRecord[]): HostAgentFiles {
  const ids = new Set(files.map((f) => f.fileId));
  const current = async (fileId: string) => {
    if (typeof fileId !== 'string' || !ids.has(fileId)) return undefined;
    const file = await getFile(rt, fileId);
    return file && file.status === 'stored' && isLive(file, rt.clock()) ? file : undefined;
  };
  const bytesOf = async (file: FileRecord) => {
    const [s3, { GetObjectCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/read.ts')]);
    // A file whose bytes are gone answers null; a failed read (past the SDK's retries) throws, so
    // that the agent never takes a busy bucket for a missing file.
    const { Body } = await s3
      .send(new GetObjectCommand({ Bucket: rt.bucket, Key: file.s3Key }))
      .catch((error: unknown) => {
        if (isMissingObject(error)) return { Body: undefined };
        throw error;
      });
    return Body
      ? await (Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()
      : null;
  };
  return {
    list: async () => files.map(agentFile),
    async read(fileId) {
      const file = await current(fileId);
      return file ? bytesOf(file) : null;
    },
    async text(fileId) {
      const file = await current(fileId);
      const kind = file && textKindOf(file.mediaType, file.name);
      if (!file || !kind || file.size > rt.settings.files.textMaxBytes) return null;
      const bytes = await bytesOf(file);
      if (!bytes) return null;
      try {
        return (await extractText(bytes, kind)).slice(0, rt.settings.files.textMaxChars);
      } catch (error) {
        rt.logger.warn('Could not read the text of a file', { fileId, kind, error: String(error) });
        return null;
      }
    },
  };
}
