import type { Runtime } from '../config/index.ts';
import { PayloadTooLargeError } from '../errors/index.ts';
import { addSessionFiles, type FileRecord, getSessionFiles, type SessionFiles } from '../store/index.ts';

/** A file a message attaches, with where in the message it is named. */
export interface AttachedFile {
  file: Pick<FileRecord, 'fileId' | 'size' | 'mediaType' | 'name'>;
  path: (string | number)[];
}

/** Attempts at the conditional write before giving up on a session whose files keep changing. */
const ATTEMPTS = 5;

/** The files not yet attached to the session, each once. */
function newFiles(attached: readonly AttachedFile[], seen: SessionFiles): AttachedFile[] {
  const fresh = new Map<string, AttachedFile>();
  for (const a of attached) {
    if (!seen.fileIds.has(a.file.fileId) && !fresh.has(a.file.fileId)) fresh.set(a.file.fileId, a);
  }
  return [...fresh.values()];
}

/** Refuses (413 `file_quota_exceeded`) files that would take the session past its limits. */
function checkRoom(rt: Runtime, sessionId: string, seen: SessionFiles, added: AttachedFile[]): void {
  const { maxFilesPerSession: maxFiles, quotaBytesPerSession: maxBytes } = rt.settings.files;
  const count = seen.fileIds.size + added.length;
  const bytes = seen.bytes + added.reduce((sum, a) => sum + a.file.size, 0);
  if (count <= maxFiles && bytes <= maxBytes) return;
  const path = added[0]?.path ?? ['attachments'];
  throw new PayloadTooLargeError(
    'file_quota_exceeded',
    `This message would attach ${count} files (${bytes} bytes) to session "${sessionId}"; ` +
      `a session may have at most ${maxFiles} files and ${maxBytes} bytes of files.`,
    [{ path, message: `at most ${maxFiles} files and ${maxBytes} bytes in one session` }],
  );
}

/**
 * Checks a new session's first message against the per-session file limits before the session is
 * made, so that a refused message leaves no session behind.
 */
export function checkNewSessionFiles(
  rt: Runtime,
  sessionId: string,
  attached: readonly AttachedFile[],
): void {
  const none: SessionFiles = { fileIds: new Set(), bytes: 0 };
  checkRoom(rt, sessionId, none, newFiles(attached, none));
}

/**
 * Counts the files a message attaches against its session's limits (`files.maxFilesPerSession`,
 * `files.quotaBytesPerSession`), each file once however often it is attached: one consistent read,
 * then one conditional write. A file already counted (an earlier message, or this request sent
 * again) costs nothing; past a limit the message is refused with 413 `file_quota_exceeded`.
 */
export async function countSessionFiles(
  rt: Runtime,
  sessionId: string,
  attached: readonly AttachedFile[],
): Promise<void> {
  if (attached.length === 0) return;
  const { maxFilesPerSession: files, quotaBytesPerSession: bytes } = rt.settings.files;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const seen = await getSessionFiles(rt, sessionId);
    const added = newFiles(attached, seen);
    if (added.length === 0) return;
    checkRoom(rt, sessionId, seen, added);
    // Refused only when another message changed the session's files meanwhile: look again.
    if (
      await addSessionFiles(
        rt,
        sessionId,
        added.map((a) => a.file),
        { files, bytes },
      )
    )
      return;
  }
  throw new Error(`The files of session "${sessionId}" kept changing; not counted.`);
}
