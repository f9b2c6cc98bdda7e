import { GetItem, PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, ttlAt } from './keys.ts';
import { isConditionFailure, strip } from './table.ts';

/** What a request id was applied as: the ids it was given the first time. */
export interface RequestRecord {
  requestId: string;
  sessionId: string;
  runId: string;
  userMessageId: string;
  assistantMessageId: string;
  createdAt: string;
}

/**
 * Records that a request id was applied. The first caller wins the conditional put and gets
 * `{ first: true }`; a retry gets the ids the first one stored, so it can finish the same work.
 */
export async function recordRequest(
  rt: Runtime,
  request: RequestRecord,
  now: number,
): Promise<{ first: boolean; record: RequestRecord }> {
  const key = keys.request(request.sessionId, request.requestId);
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...key,
          type: 'request',
          ...request,
          ttl: ttlAt(now + rt.settings.requests.retentionHours * 3_600_000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { first: true, record: request };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await rt.db.send(new GetItem({ TableName: rt.table, Key: key, ConsistentRead: true }));
    if (!Item) throw error;
    const record = strip(Item) as unknown as RequestRecord;
    // The same run id: this very put, applied already, whose answer was lost and which the SDK sent again.
    return { first: record.runId === request.runId, record };
  }
}

/** What a request id was applied as, if it was: read consistently, written never. */
export async function findRequest(
  rt: Runtime,
  sessionId: string,
  requestId: string,
): Promise<RequestRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.request(sessionId, requestId), ConsistentRead: true }),
  );
  return Item ? (strip(Item) as unknown as RequestRecord) : undefined;
}
