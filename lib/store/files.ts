import { DeleteItem, GetItem, PutItem, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { dueKeys, queryDue } from './due.ts';
import { keys, ownerIndexKeys, ttlAt } from './keys.ts';
import { isConditionFailure, strip } from './table.ts';

/** A file a host uploaded (POST /api/files), which attachments reference by id. */
export interface FileRecord {
  fileId: string;
  owner: string;
  /** The owner's tenant, when the authoriser names one. */
  tenant?: string;
  name: string;
  mediaType: string;
  size: number;
  s3Key: string;
  createdAt: string;
  /**
   * `pending` until the bytes are in the bucket (a presigned upload); `deleting` once its owner (or
   * the sweep, when it expired) began deleting it: from then on nobody reads it.
   */
  status: 'pending' | 'stored' | 'deleting';
  /** When the file expires (`files.retentionDays` after its upload); absent: kept until deleted. */
  expiresAt?: string;
  /** The bytes' SHA-256 (base64) that its upload URL signs; absent for bytes sent in the request. */
  sha256?: string;
  /** When its upload URL stops working; absent for a file that never had one. */
  uploadExpiresAt?: string;
}

/** Kept this long past its expiry before DynamoDB's TTL removes the record: the sweep deletes it first. */
const TTL_GRACE_MS = 24 * 3_600_000;

/** Records a file. */
export async function putFile(rt: Runtime, file: FileRecord): Promise<void> {
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: {
        ...keys.file(file.fileId),
        ...ownerIndexKeys(file, 'FILE', file.createdAt, file.fileId),
        type: 'file',
        ...file,
        // An expiring file is due for the sweep (which deletes its bytes and gives its quota back).
        ...(file.expiresAt && {
          ...dueKeys(rt, 'file', file.fileId, Date.parse(file.expiresAt), ''),
          ttl: ttlAt(Date.parse(file.expiresAt) + TTL_GRACE_MS),
        }),
      },
    }),
  );
}

/**
 * Marks a file `deleting`, the first step of deleting it: one conditional update, so that a file
 * already gone stays gone. Returns the file as it was, or undefined when there is none.
 */
export async function markFileDeleting(rt: Runtime, fileId: string): Promise<FileRecord | undefined> {
  try {
    const { Attributes } = await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.file(fileId),
        UpdateExpression: 'SET #status = :deleting',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':deleting': 'deleting' },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes ? (strip(Attributes) as unknown as FileRecord) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Removes a file's record, the last step of deleting it. */
export async function deleteFileRecord(rt: Runtime, fileId: string): Promise<void> {
  await rt.db.send(new DeleteItem({ TableName: rt.table, Key: keys.file(fileId) }));
}

/** Ids of files whose expiry passed, found through the due index in the last `lookbackHours` hours. */
export async function dueFiles(rt: Runtime, now: number, lookbackHours: number): Promise<string[]> {
  const items = await queryDue(rt, 'file', { from: now - lookbackHours * 3_600_000, to: now }, now, [
    'fileId',
  ]);
  return items.map((item) => String(item.fileId));
}

/** The file, or undefined when there is none. */
export async function getFile(rt: Runtime, fileId: string): Promise<FileRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.file(fileId), ConsistentRead: true }),
  );
  return Item ? (strip(Item) as unknown as FileRecord) : undefined;
}

/** Marks a pending upload stored once its bytes are in the bucket, with the size S3 reports. */
export async function markFileStored(rt: Runtime, fileId: string, size: number): Promise<void> {
  await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      Key: keys.file(fileId),
      UpdateExpression: 'SET #status = :stored, #size = :size',
      ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
      ExpressionAttributeValues: { ':stored': 'stored', ':size': size },
    }),
  );
}

/**
 * Adds a file's bytes to what its owner has uploaded, unless that would pass `limit`: one
 * conditional update. It names the file it counted last, so that when the SDK sends the update again
 * after its answer was lost, the retry recognises its own write instead of counting the file twice.
 * Returns false when the file does not fit.
 */
export async function reserveFileBytes(
  rt: Runtime,
  file: Pick<FileRecord, 'fileId' | 'owner' | 'tenant' | 'size'>,
  limit: number,
): Promise<boolean> {
  const key = keys.ownerFiles(file.tenant, file.owner);
  if (file.size > limit) return false;
  try {
    await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: key,
        UpdateExpression: 'SET lastFile = :file ADD #bytes :size',
        // Not this file again: a resend of a write whose answer was lost must not count it twice.
        ConditionExpression:
          '(attribute_not_exists(#bytes) OR #bytes <= :room) AND (attribute_not_exists(lastFile) OR lastFile <> :file)',
        ExpressionAttributeNames: { '#bytes': 'bytes' },
        ExpressionAttributeValues: { ':file': file.fileId, ':size': file.size, ':room': limit - file.size },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await rt.db.send(new GetItem({ TableName: rt.table, Key: key, ConsistentRead: true }));
    return Item?.lastFile === file.fileId;
  }
}

/**
 * Gives a file's bytes back to its owner's quota: when storing the file failed after they were
 * counted, or when the file is deleted. Marked with the file, so that a resend of this write gives
 * them back once.
 */
export async function releaseFileBytes(
  rt: Runtime,
  file: Pick<FileRecord, 'fileId' | 'owner' | 'tenant' | 'size'>,
): Promise<void> {
  const mark = `released:${file.fileId}`;
  try {
    await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.ownerFiles(file.tenant, file.owner),
        UpdateExpression: 'SET lastFile = :mark ADD #bytes :minus',
        ConditionExpression: 'attribute_exists(#bytes) AND lastFile <> :mark',
        ExpressionAttributeNames: { '#bytes': 'bytes' },
        ExpressionAttributeValues: { ':mark': mark, ':minus': -file.size },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** What the messages of one session have attached so far, each file counted once. */
export interface SessionFiles {
  fileIds: Set<string>;
  bytes: number;
}

/** The files a session's messages have attached (none when nothing was attached yet). */
export async function getSessionFiles(rt: Runtime, sessionId: string): Promise<SessionFiles> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.sessionFiles(sessionId), ConsistentRead: true }),
  );
  const ids = Item?.fileIds;
  return {
    fileIds: ids instanceof Set ? new Set([...ids].map(String)) : new Set(),
    bytes: typeof Item?.bytes === 'number' ? Item.bytes : 0,
  };
}

/**
 * Adds files to a session's attached files, unless one of them is there already or the session
 * would pass `limits`: one conditional update on the session's `FILES` item, in its partition (so
 * deleting the session deletes it). Returns false, having written nothing, when the condition failed.
 */
export async function addSessionFiles(
  rt: Runtime,
  sessionId: string,
  files: readonly Pick<FileRecord, 'fileId' | 'size'>[],
  limits: { files: number; bytes: number },
): Promise<boolean> {
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  const values: Record<string, unknown> = {
    ':ids': new Set(files.map((f) => f.fileId)),
    ':count': files.length,
    ':bytes': bytes,
    ':countRoom': limits.files - files.length,
    ':bytesRoom': limits.bytes - bytes,
  };
  const absent = files.map((f, i) => {
    values[`:f${i}`] = f.fileId;
    return `NOT contains(fileIds, :f${i})`;
  });
  try {
    await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.sessionFiles(sessionId),
        UpdateExpression: 'ADD fileIds :ids, #count :count, #bytes :bytes',
        ConditionExpression: [
          '(attribute_not_exists(#count) OR #count <= :countRoom)',
          '(attribute_not_exists(#bytes) OR #bytes <= :bytesRoom)',
          ...absent,
        ].join(' AND '),
        ExpressionAttributeNames: { '#count': 'count', '#bytes': 'bytes' },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
