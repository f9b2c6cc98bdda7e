import { PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import type { Attachment, HostContext, PendingAction, StopReason, Usage } from '../contract/index.ts';
import { getBlob, jsonBytes, putBlob } from './blobs.ts';
import { keys, prefixes } from './keys.ts';
import { retentionTtl } from './retention.ts';
import { decodeJson, encodeJson, isConditionFailure, queryAll } from './table.ts';

const MESSAGE_JSON = [
  'metadata',
  'toolCalls',
  'pendingActions',
  'usage',
  'hostContext',
  'attachments',
  'files',
] as const;

/** A stored message of a session. */
export interface MessageRecord {
  messageId: string;
  sessionId: string;
  runId: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  metadata?: Record<string, unknown>;
  toolCalls?: { id: string; name: string; args?: unknown; result?: unknown; error?: unknown; ok?: boolean }[];
  pendingActions?: PendingAction[];
  stopReason?: StopReason;
  usage?: Usage;
  /** The rendered `<host_context>` block the message started with, frozen when it was sent. */
  contextBlock?: string;
  /** The host context in force for this message (without attachments), as validated. */
  hostContext?: HostContext;
  /** Reference attachments, as first seen; large contents are in the bucket (`blob_key`). */
  attachments?: StoredAttachment[];
  /** Where the heavy fields are when the item would not fit DynamoDB's 400 KB. */
  blobKey?: string;
  /** The files an answer produced (the result's `files`, already stored), as the agent described them. */
  files?: { id: string; name: string; mimeType?: string; size?: number }[];
  /** Set when a regenerate or an edit cut the conversation back past this message: kept, no longer current. */
  replaced?: Replacement;
}

/** Which run replaced a message, how, and when. */
export interface Replacement {
  by: string;
  mode: 'regenerate' | 'edit';
  at: string;
}

/** An attachment as stored: its content inline, or moved to the bucket. */
export type StoredAttachment = Attachment & { blob_key?: string; content_field?: 'data_uri' | 'text' };

/** Past this size a message's heavy fields move to the bucket, well below DynamoDB's 400 KB. */
const MESSAGE_ITEM_LIMIT_BYTES = 300 * 1024;
const HEAVY_FIELDS = [
  'content',
  'contextBlock',
  'hostContext',
  'attachments',
  'toolCalls',
  'pendingActions',
  'metadata',
] as const;

/**
 * Message ids carry their run's ULID and their place in it, so that a session's messages sort in
 * conversation order even when the next user message was stored before this turn's answer.
 */
export function messageId(runId: string, position: number): string {
  return `msg_${runId.replace(/^run_/, '')}_${position.toString().padStart(3, '0')}`;
}

/** Stores a message once; storing the same message again (a retry) changes nothing. */
export async function putMessage(
  rt: Runtime,
  message: MessageRecord,
  options: { replace?: boolean } = {},
): Promise<void> {
  let item: MessageRecord = message;
  if (jsonBytes(message) > MESSAGE_ITEM_LIMIT_BYTES) {
    const blobKey = `messages/${message.sessionId}/${message.messageId}.json`;
    await putBlob(rt, blobKey, Object.fromEntries(HEAVY_FIELDS.map((f) => [f, message[f]])));
    item = { ...message, content: '', blobKey };
    for (const field of HEAVY_FIELDS.slice(1)) delete item[field];
  }
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...keys.message(message.sessionId, message.messageId),
          type: 'message',
          ...encodeJson(item, MESSAGE_JSON),
          ...retentionTtl(rt, 'messages'),
        },
        // A run that resumes on its message (a host tool continuation) replaces it: it holds the session's lease.
        ...(!options.replace && { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** One message, or undefined. */
export async function getMessage(
  rt: Runtime,
  sessionId: string,
  messageId: string,
): Promise<MessageRecord | undefined> {
  const [message] = await listMessages(rt, sessionId, { from: messageId, through: messageId });
  return message;
}

/**
 * A session's messages in order: optionally only those up to and including `through`, or only
 * those after `after` (exclusive), at most `limit` of them; with `current`, only those no
 * regenerate or edit replaced.
 */
export async function listMessages(
  rt: Runtime,
  sessionId: string,
  options: { from?: string; through?: string; after?: string; limit?: number; current?: boolean } = {},
): Promise<MessageRecord[]> {
  const pk = keys.session(sessionId).pk;
  const sk = (messageId: string) => keys.message(sessionId, messageId).sk;
  const afterSk = options.after === undefined ? undefined : sk(options.after);
  const from = afterSk ?? (options.from ? sk(options.from) : prefixes.message);
  // BETWEEN is inclusive: one item more is read in case the first is `after` itself.
  const read = options.limit === undefined ? undefined : options.limit + (afterSk ? 1 : 0);
  const found = await queryAll(
    rt,
    {
      KeyConditionExpression: options.through
        ? 'pk = :pk AND sk BETWEEN :from AND :to'
        : afterSk
          ? 'pk = :pk AND sk BETWEEN :from AND :last'
          : 'pk = :pk AND begins_with(sk, :from)',
      ExpressionAttributeValues: {
        ':pk': pk,
        ':from': from,
        ...(options.through && { ':to': sk(options.through) }),
        // Past every message id: they are ASCII.
        ...(!options.through && afterSk && { ':last': `${prefixes.message}\uffff` }),
      },
      ...(options.current && { FilterExpression: 'attribute_not_exists(replaced)' }),
      ConsistentRead: true,
    },
    read,
  );
  const items = found.filter((item) => item.sk !== afterSk).slice(0, options.limit);
  return Promise.all(
    items.map(async (item) => {
      const message = decodeJson<MessageRecord>(item, MESSAGE_JSON);
      return message.blobKey
        ? { ...message, ...(await getBlob<Partial<MessageRecord>>(rt, message.blobKey)) }
        : message;
    }),
  );
}
