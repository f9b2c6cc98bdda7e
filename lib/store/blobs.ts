import { createHash } from 'node:crypto';
import type { Runtime } from '../config/index.ts';
import { newId } from '../ids/index.ts';

/**
 * What does not fit a DynamoDB item (400 KB) or an SQS message (1 MiB) goes to the file bucket
 * and travels as its key (a claim check). Values past this many bytes of JSON are moved there.
 */
export const INLINE_LIMIT_BYTES = 64 * 1024;

/** Stores a JSON value under `key`. */
export async function putBlob(rt: Runtime, key: string, value: unknown): Promise<void> {
  const [s3, { PutObjectCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/write.ts')]);
  await s3.send(
    new PutObjectCommand({
      Bucket: rt.bucket,
      Key: key,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
    }),
  );
}

/** The JSON value stored under `key`. */
export async function getBlob<T>(rt: Runtime, key: string): Promise<T> {
  const [s3, { GetObjectCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/read.ts')]);
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: rt.bucket, Key: key }));
  return JSON.parse(await (Body as { transformToString(): Promise<string> }).transformToString()) as T;
}

/**
 * Whether an S3 error says the object is not there (GetObject's `NoSuchKey`, HeadObject's bodiless
 * 404; a 403 too for a caller that may read the key but not list the bucket, `canList: false`, to
 * which S3 answers a missing key so). Anything else (throttling, a 5xx, a reset connection past the
 * SDK's retries) is not an answer about the object and must not be taken for one.
 */
export function isMissingObject(error: unknown, options: { canList?: boolean } = {}): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return (
    e?.name === 'NoSuchKey' ||
    e?.name === 'NotFound' ||
    status === 404 ||
    (options.canList === false && status === 403)
  );
}

/** Deletes objects; keys already gone are fine. */
export async function deleteBlobs(rt: Runtime, keys: string[]): Promise<void> {
  const [s3, { DeleteObjectsCommand }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/remove.ts')]);
  for (let i = 0; i < keys.length; i += 1000) {
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: rt.bucket,
        Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }
}

/** The UTF-8 size of a value's JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * Where a session's linked copies are kept (an export, a message or an event too large for an
 * answer): `exports/<digest>/`, the digest 32 characters of a SHA-256 of the session's ref. A copy is
 * read through a link handed out with its key in it, so the key names neither the owner's scope nor
 * the session's id; the session's deletion still finds its copies, and the bucket's lifecycle rule
 * expires them after a day.
 */
export function exportsFolder(sessionId: string): string {
  return `exports/${createHash('sha256').update(sessionId).digest('base64url').slice(0, 32)}/`;
}

/** How long a link to a linked copy works. */
export const LINK_SECONDS = 15 * 60;

/**
 * Stores a JSON value as one of a session's linked copies ({@link exportsFolder}) and answers a
 * presigned GET of it, valid {@link LINK_SECONDS}: how what is too large for a Lambda answer (6 MB)
 * is handed to the one caller who asked for it.
 */
export async function linkedCopy(rt: Runtime, sessionId: string, value: unknown): Promise<string> {
  const key = `${exportsFolder(sessionId)}${newId('copy')}.json`;
  await putBlob(rt, key, value);
  const [s3, { GetObjectCommand }, { getSignedUrl }] = await Promise.all([
    rt.s3(),
    import('../aws/sdk/s3/read.ts'),
    import('../aws/sdk/s3/presign.ts'),
  ]);
  return getSignedUrl(s3, new GetObjectCommand({ Bucket: rt.bucket, Key: key }), { expiresIn: LINK_SECONDS });
}

/** Deletes a session's objects: its attachments, moved messages, events and requests, leftover screenshots, exports. */
export async function deleteSessionObjects(rt: Runtime, sessionId: string): Promise<void> {
  const [s3, { ListObjectsV2Command }] = await Promise.all([rt.s3(), import('../aws/sdk/s3/list.ts')]);
  const folders = ['attachments', 'messages', 'events', 'actions', 'screenshots'].map(
    (p) => `${p}/${sessionId}/`,
  );
  for (const folder of [...folders, exportsFolder(sessionId)]) {
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: rt.bucket,
          Prefix: folder,
          ContinuationToken: token,
        }),
      );
      const objectKeys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      if (objectKeys.length > 0) await deleteBlobs(rt, objectKeys);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
