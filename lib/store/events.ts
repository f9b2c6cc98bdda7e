import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../config/index.ts';
import { getBlob, jsonBytes, putBlob } from './blobs.ts';
import { keys, prefixes, seqKey } from './keys.ts';

/** Past this size an event's data moves to the bucket, well below DynamoDB's 400 KB. */
const EVENT_ITEM_LIMIT_BYTES = 300 * 1024;

import { decodeJson, encodeJson, isConditionFailure, queryAll } from './table.ts';

const EVENT_JSON = ['data'] as const;

/**
 * One entry of a session's event log: what the socket carries and what a host that reconnects
 * reads back. `seq` is contiguous per session.
 */
export interface SessionEvent {
  seq: number;
  type: string;
  session_id: string;
  run_id?: string;
  at: string;
  data: Record<string, unknown>;
}

/**
 * Appends an event at `seq`. The put is conditional on the seq being unused, which is also the
 * fence against a stale writer: it returns false when someone else already wrote that seq.
 */
export async function appendEvent(rt: Runtime, event: SessionEvent): Promise<boolean> {
  let stored: SessionEvent & { blobKey?: string } = event;
  if (jsonBytes(event) > EVENT_ITEM_LIMIT_BYTES) {
    // Claim check: the item keeps its place in the log, the bucket keeps the data.
    // The writer's run in the key: a stale writer's put of the same seq cannot overwrite the owner's data.
    const blobKey = `events/${event.session_id}/${seqKey(event.seq)}-${event.run_id ?? 'session'}.json`;
    await putBlob(rt, blobKey, event.data);
    stored = { ...event, data: {}, blobKey };
  }
  try {
    await rt.db.send(
      new PutCommand({
        TableName: rt.table,
        Item: { ...keys.event(event.session_id, event.seq), ...encodeJson(stored, EVENT_JSON) },
        // The second clause makes the put idempotent: when the SDK retries a put whose answer was
        // lost (a timeout after DynamoDB applied it), the item it finds is this very event, not a
        // rival writer's, and the retry succeeds instead of reading as a lost fence.
        ConditionExpression: 'attribute_not_exists(pk) OR (run_id = :run AND #at = :at AND #type = :type)',
        ExpressionAttributeNames: { '#at': 'at', '#type': 'type' },
        ExpressionAttributeValues: { ':run': event.run_id ?? '', ':at': event.at, ':type': event.type },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The highest seq in a session's log, 0 when it is empty. */
export async function lastSeq(rt: Runtime, sessionId: string): Promise<number> {
  const [item] = await queryAll(
    rt,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :evt)',
      ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':evt': prefixes.event },
      ScanIndexForward: false,
      ConsistentRead: true,
      ProjectionExpression: 'seq',
    },
    1,
  );
  return typeof item?.seq === 'number' ? item.seq : 0;
}

/** Events with a seq above `after`, oldest first, at most `limit`. */
export async function listEvents(
  rt: Runtime,
  sessionId: string,
  after: number,
  limit: number,
): Promise<SessionEvent[]> {
  const items = await queryAll(
    rt,
    {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.session(sessionId).pk,
        ':from': keys.event(sessionId, after + 1).sk,
        ':to': `${prefixes.event}~`,
      },
      ConsistentRead: true,
    },
    limit,
  );
  return Promise.all(
    items.map(async (item) => {
      const { blobKey, ...event } = decodeJson<SessionEvent & { blobKey?: string }>(item, EVENT_JSON);
      return blobKey ? { ...event, data: await getBlob<Record<string, unknown>>(rt, blobKey) } : event;
    }),
  );
}
