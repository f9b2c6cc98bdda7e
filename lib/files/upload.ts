import { type Identity, isOwner, ownerOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { UploadRequestSchema } from '../contract/index.ts';
import { NotFoundError, PayloadTooLargeError, parseOrThrow, ValidationError } from '../errors/index.ts';
import { newId } from '../ids/index.ts';
import {
  type FileRecord,
  getFile,
  isMissingObject,
  markFileStored,
  putFile,
  releaseFileBytes,
  reserveFileBytes,
} from '../store/index.ts';
import { isLive } from './lifecycle.ts';
import { checkDirectUpload } from './limits.ts';

/** The wire form of a file. */
export function fileView(file: FileRecord) {
  return {
    id: file.fileId,
    name: file.name,
    media_type: file.mediaType,
    size: file.size,
    status: file.status,
    created_at: file.createdAt,
    expires_at: file.expiresAt ?? null,
  };
}

function tooLarge(size: number, limit: number, path: string[]): void {
  if (size > limit) {
    throw new ValidationError(`The file is ${size} bytes; at most ${limit} are accepted.`, [
      { path, message: `at most ${limit} bytes` },
    ]);
  }
}

/**
 * Counts the file against its owner's quota, or refuses it (413 `file_quota_exceeded`) at `path`,
 * then stores it with `store`; a store that fails gives the bytes back.
 */
async function withinQuota<T>(
  rt: Runtime,
  file: FileRecord,
  path: string[],
  store: () => Promise<T>,
): Promise<T> {
  const limit = rt.settings.files.quotaBytesPerUser;
  if (await reserveFileBytes(rt, file, limit)) {
    try {
      return await store();
    } catch (error) {
      await releaseFileBytes(rt, file).catch((e: unknown) =>
        rt.logger.warn('Could not give a file quota back', { fileId: file.fileId, error: String(e) }),
      );
      throw error;
    }
  }
  throw new PayloadTooLargeError(
    'file_quota_exceeded',
    `This file (${file.size} bytes) would take your uploads past ${limit} bytes.`,
    [{ path, message: `at most ${limit} bytes in all` }],
  );
}

const record = (
  rt: Runtime,
  identity: Identity,
  name: string,
  mediaType: string,
  size: number,
  status: FileRecord['status'],
): FileRecord => {
  const fileId = newId('file');
  const now = rt.clock();
  const days = rt.settings.files.retentionDays;
  return {
    ...(days !== undefined && { expiresAt: new Date(now + days * 86_400_000).toISOString() }),
    fileId,
    ...ownerOf(identity),
    name,
    mediaType,
    size,
    s3Key: `files/${fileId}`,
    createdAt: new Date(now).toISOString(),
    status,
  };
};

/**
 * Stores bytes sent in the request itself (up to what fits a Lambda event: see {@link checkDirectUpload}).
 * `maxBytes` is the upload limit (`uploadLimit`: the setting, or a larger one an agent accepts).
 */
export async function storeUpload(
  rt: Runtime,
  identity: Identity,
  bytes: Buffer,
  name: string,
  mediaType: string,
  maxBytes = rt.settings.files.maxBytes,
) {
  if (bytes.length === 0)
    throw new ValidationError('The file is empty.', [{ path: ['body'], message: 'empty' }]);
  checkDirectUpload(bytes.length);
  tooLarge(bytes.length, maxBytes, ['body']);
  const file = record(rt, identity, name, mediaType, bytes.length, 'stored');
  const [s3, { PutObjectCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/write.ts')]);
  await withinQuota(rt, file, ['body'], async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: rt.bucket, Key: file.s3Key, Body: bytes, ContentType: mediaType }),
    );
    await putFile(rt, file);
  });
  return fileView(file);
}

/**
 * Answers a presigned PUT URL: the bytes go straight to the bucket, past every transport limit. The
 * URL is bound to its record: it signs the size, the media type and the bytes' SHA-256 (S3 refuses
 * any other), and `If-None-Match: *`, so it writes the object once and never over another; deleting
 * the file leaves a tombstone at its key (`deleteFile`) on which the URL's PUT fails.
 */
export async function createUpload(
  rt: Runtime,
  identity: Identity,
  body: unknown,
  maxBytes = rt.settings.files.maxBytes,
) {
  const request = parseOrThrow(UploadRequestSchema, body, 'upload request');
  tooLarge(request.size, maxBytes, ['size']);
  const expiresIn = rt.settings.files.uploadUrlSeconds;
  const file: FileRecord = {
    ...record(rt, identity, request.name, request.media_type, request.size, 'pending'),
    sha256: request.sha256,
    uploadExpiresAt: new Date(rt.clock() + expiresIn * 1000).toISOString(),
  };
  // The declared size is counted: the presigned URL takes no other (S3 refuses a different length).
  await withinQuota(rt, file, ['size'], () => putFile(rt, file));
  const [s3, { PutObjectCommand }, { getSignedUrl }] = await Promise.all([
    rt.s3(),
    import('../aws/sdk/s3/write.ts'),
    import('../aws/sdk/s3/presign.ts'),
  ]);
  const headers = {
    'content-type': file.mediaType,
    'if-none-match': '*',
    'x-amz-checksum-sha256': request.sha256,
  };
  const url = await getSignedUrl(
    s3,
    new PutObjectCommand({
      Bucket: rt.bucket,
      Key: file.s3Key,
      ContentType: file.mediaType,
      ContentLength: file.size,
      ChecksumSHA256: request.sha256,
      IfNoneMatch: '*',
    }),
    {
      expiresIn,
      // The presigner leaves content-type unsigned and moves x-amz- headers into the query, where
      // S3 does not check a checksum: both are kept as headers the request must carry.
      signableHeaders: new Set(['content-type']),
      unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
    },
  );
  return {
    ...fileView(file),
    upload: { method: 'PUT', url, headers, expires_at: file.uploadExpiresAt },
  };
}

/**
 * The caller's file; a pending upload is checked against the bucket and marked stored once its
 * bytes are there. A file being deleted or past its expiry is as good as missing.
 */
export async function ownedFile(rt: Runtime, identity: Identity, fileId: string): Promise<FileRecord> {
  const file = await getFile(rt, fileId);
  if (!file || !isOwner(file, identity) || !isLive(file, rt.clock()))
    throw new NotFoundError('file_not_found', `File "${fileId}" does not exist.`);
  if (file.status === 'stored') return file;
  const [s3, { HeadObjectCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/read.ts')]);
  // Not there yet: the upload has not happened. The HTTP function may read `files/` but not list the
  // bucket, so S3 answers a missing key 403, not 404. A failed HEAD (a 5xx or throttling past the
  // SDK's retries) is no answer about the object: it rejects, and the caller answers 5xx for a retry.
  const head = await s3
    .send(new HeadObjectCommand({ Bucket: rt.bucket, Key: file.s3Key }))
    .catch((error: unknown) => {
      if (isMissingObject(error, { canList: false })) return undefined;
      throw error;
    });
  if (!head) return file;
  await markFileStored(rt, fileId, head.ContentLength ?? file.size);
  return { ...file, status: 'stored', size: head.ContentLength ?? file.size };
}
