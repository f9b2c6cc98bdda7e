import { type Identity, isOwner } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { NotFoundError } from '../errors/index.ts';
import {
  deleteFileRecord,
  dueFiles,
  type FileRecord,
  getFile,
  markFileDeleting,
  releaseFileBytes,
} from '../store/index.ts';

/** Whether a file may still be read: not being deleted, and not past its expiry (checked when read, not only when swept). */
export function isLive(file: FileRecord, now: number): boolean {
  if (file.status === 'deleting') return false;
  return file.expiresAt === undefined || Date.parse(file.expiresAt) > now;
}

/**
 * How long past the expiry the runtime's clock gave an upload URL it may still work: S3 reads the
 * expiry on its own clock, and takes requests signed up to 15 minutes ahead of it.
 */
export const UPLOAD_URL_MARGIN_MS = 15 * 60_000;

/** Whether the file's upload URL may still store bytes. */
export function uploadMayCome(file: Pick<FileRecord, 'uploadExpiresAt'>, now: number): boolean {
  return file.uploadExpiresAt !== undefined && Date.parse(file.uploadExpiresAt) + UPLOAD_URL_MARGIN_MS > now;
}

/**
 * Takes a file's bytes out of the bucket. While its upload URL may still work, a zero-byte tombstone
 * replaces them instead of nothing: the URL's `If-None-Match: *` PUT fails (412) on a key that holds
 * an object, and would store its bytes again, uncounted, on an empty one. Being unconditional, the
 * tombstone also replaces bytes the URL stored while the file was being deleted. The orphan sweep
 * (`sweepOrphanFiles`) removes it once no URL for it can work.
 */
async function removeBytes(rt: Runtime, file: FileRecord): Promise<void> {
  const s3 = await rt.s3();
  if (uploadMayCome(file, rt.clock())) {
    const { PutObjectCommand } = await import('../aws/sdk/s3/write.ts');
    await s3.send(new PutObjectCommand({ Bucket: rt.bucket, Key: file.s3Key, Body: new Uint8Array(0) }));
    return;
  }
  const { DeleteObjectCommand } = await import('../aws/sdk/s3/remove.ts');
  await s3.send(new DeleteObjectCommand({ Bucket: rt.bucket, Key: file.s3Key }));
}

/**
 * Deletes a file, in an order a retry repairs: the record is marked `deleting` first (nobody reads it
 * from then on), then its bytes leave the bucket (or a tombstone takes their place: see
 * {@link removeBytes}), its size goes back to the owner's quota, and the record goes last. A delete
 * that stopped half-way is finished by the next one: every step may run twice.
 */
export async function deleteFile(rt: Runtime, fileId: string): Promise<boolean> {
  const file = await markFileDeleting(rt, fileId);
  if (!file) return false;
  await removeBytes(rt, file);
  await releaseFileBytes(rt, file);
  await deleteFileRecord(rt, fileId);
  return true;
}

/**
 * `DELETE /api/files/{id}`: the owner deletes a file they uploaded. Anyone else's, a missing one and
 * one already deleted are `404 file_not_found`; an expired one that the sweep has not reached yet is
 * deleted all the same (its bytes and quota are given back).
 */
export async function deleteOwnedFile(rt: Runtime, identity: Identity, fileId: string) {
  const file = await getFile(rt, fileId);
  if (!file || !isOwner(file, identity) || !(await deleteFile(rt, fileId)))
    throw new NotFoundError('file_not_found', `File "${fileId}" does not exist.`);
  return { id: fileId, status: 'deleted' as const };
}

/**
 * The sweep's part: files past their expiry (`files.retentionDays`) are deleted and their bytes given
 * back. Expiry is read on the runtime's clock, as every reader of a file reads it.
 */
export async function sweepExpiredFiles(rt: Runtime, lookbackHours: number): Promise<number> {
  const now = rt.clock();
  let deleted = 0;
  for (const fileId of await dueFiles(rt, now, lookbackHours)) {
    if (await deleteFile(rt, fileId)) deleted += 1;
  }
  return deleted;
}
