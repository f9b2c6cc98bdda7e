import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../config/index.ts';
import { strip } from './table.ts';

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
  /** `pending` until the bytes are in the bucket (a presigned upload). */
  status: 'pending' | 'stored';
}

const fileKey = (fileId: string) => ({ pk: `FILE#${fileId}`, sk: 'META' });

/** Records a file. */
export async function putFile(rt: Runtime, file: FileRecord): Promise<void> {
  await rt.db.send(
    new PutCommand({ TableName: rt.table, Item: { ...fileKey(file.fileId), type: 'file', ...file } }),
  );
}

/** The file, or undefined when there is none. */
export async function getFile(rt: Runtime, fileId: string): Promise<FileRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetCommand({ TableName: rt.table, Key: fileKey(fileId), ConsistentRead: true }),
  );
  return Item ? (strip(Item) as unknown as FileRecord) : undefined;
}
