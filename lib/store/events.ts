import { PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { getBlob, INLINE_LIMIT_BYTES, jsonBytes, putBlob } from './blobs.ts';
import { keys, prefixes, seqKey } from './keys.ts';
import { retentionTtl } from './retention.ts';
import { isConditionFailure, queryAll } from './table.ts';

/** Past this many bytes of events an item is closed and the next one started, well below DynamoDB's 400 KB. */
const ITEM_LIMIT_BYTES = 300 * 1024;

/** Items read per page of the log (each holds a flush window's events, usually a few). */
const READ_PAGE_ITEMS = 100;

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

/** An event as an item holds it: the session is the item's; large data is in the bucket. */
type StoredEvent = Omit<SessionEvent, 'session_id'> & { blobKey?: string };

/** Splits a window's events into items of at most {@link ITEM_LIMIT_BYTES}; one event is never split. */
function itemsOf(events: StoredEvent[]): StoredEvent[][] {
  const items: StoredEvent[][] = [];
  let bytes = 0;
  for (const event of events) {
    const size = jsonBytes(event);
    if (items.length === 0 || bytes + size > ITEM_LIMIT_BYTES) {
      items.push([]);
      bytes = 0;
    }
    items.at(-1)?.push(event);
    bytes += size;
  }
  return items;
}

/**
 * Appends a flush window's events (contiguous seqs, oldest first) as one item keyed by the first
 * seq (more only past {@link ITEM_LIMIT_BYTES}). Each put is conditional on its key being unused,
 * which is also the fence against a stale writer: it returns false when someone else already wrote
 * there. Every writer starts where it read the log's end and continues from its own items, so two
 * writers' items can only collide on their first key, never overlap. `writer` names this writer
 * (one per stream) in its marks and blob keys.
 */
export async function appendEvents(rt: Runtime, events: SessionEvent[], writer: string): Promise<boolean> {
  const [first] = events;
  if (!first) return true;
  const stored = await Promise.all(
    events.map(async ({ session_id, ...event }): Promise<StoredEvent> => {
      if (jsonBytes(event.data) <= INLINE_LIMIT_BYTES) return event;
      // Claim check: the event keeps its place in the log, the bucket keeps the data. The writer in
      // the key: a stale writer's put of the same seq cannot overwrite the owner's data.
      const blobKey = `events/${session_id}/${seqKey(event.seq)}-${writer}.json`;
      await putBlob(rt, blobKey, event.data);
      return { ...event, data: {}, blobKey };
    }),
  );
  for (const item of itemsOf(stored)) {
    const head = item[0] as StoredEvent;
    const tail = item.at(-1) as StoredEvent;
    // The writer's mark makes the put idempotent: when the SDK retries a put whose answer was lost
    // (a timeout after DynamoDB applied it), the item it finds is this very one, not a rival's.
    const mark = `${writer}#${tail.seq}`;
    try {
      await rt.db.send(
        new PutItem({
          TableName: rt.table,
          Item: {
            ...keys.event(first.session_id, head.seq),
            first: head.seq,
            last: tail.seq,
            mark,
            events: JSON.stringify(item),
            ...retentionTtl(rt, 'events'),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR mark = :mark',
          ExpressionAttributeValues: { ':mark': mark },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
  return true;
}

/** The highest seq in a session's log, 0 when it is empty: one Query of one item. */
export async function lastSeq(rt: Runtime, sessionId: string): Promise<number> {
  const [item] = await queryAll(
    rt,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :evt)',
      ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':evt': prefixes.event },
      ScanIndexForward: false,
      ConsistentRead: true,
      ProjectionExpression: '#last',
      ExpressionAttributeNames: { '#last': 'last' },
    },
    1,
  );
  return typeof item?.last === 'number' ? item.last : 0;
}

/** The events of an item with a seq above `after`, at most `max`, their data read back from the bucket where it was moved. */
async function eventsOf(
  rt: Runtime,
  sessionId: string,
  item: Record<string, unknown>,
  after: number,
  max: number,
): Promise<SessionEvent[]> {
  const stored = (JSON.parse(String(item.events)) as StoredEvent[])
    .filter((e) => e.seq > after)
    .slice(0, max);
  return Promise.all(
    stored.map(async ({ blobKey, ...event }) => ({
      ...event,
      session_id: sessionId,
      data: blobKey ? await getBlob<Record<string, unknown>>(rt, blobKey) : event.data,
    })),
  );
}

/**
 * Events with a seq above `after`, oldest first, at most `limit`: the item that holds `after + 1`
 * (found from its first seq, at or before it) and the items after it.
 */
export async function listEvents(
  rt: Runtime,
  sessionId: string,
  after: number,
  limit: number,
): Promise<SessionEvent[]> {
  const pk = keys.session(sessionId).pk;
  const found: SessionEvent[] = [];
  if (after > 0) {
    const [holding] = await queryAll(
      rt,
      {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':from': prefixes.event,
          ':to': keys.event(sessionId, after + 1).sk,
        },
        ScanIndexForward: false,
        ConsistentRead: true,
      },
      1,
    );
    if (holding && Number(holding.last) > after)
      found.push(...(await eventsOf(rt, sessionId, holding, after, limit)));
  }
  // Items are keyed by their first seq: the next one after an item starts at its last seq + 1.
  let from = after + (after > 0 ? 2 : 1);
  while (found.length < limit) {
    // Every item holds at least one event: no more items than events still wanted.
    const requested = Math.min(READ_PAGE_ITEMS, limit - found.length);
    const items = await queryAll(
      rt,
      {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':from': keys.event(sessionId, from).sk,
          ':to': `${prefixes.event}~`,
        },
        ConsistentRead: true,
      },
      requested,
    );
    for (const item of items) {
      if (found.length >= limit) break;
      found.push(...(await eventsOf(rt, sessionId, item, after, limit - found.length)));
    }
    const lastItem = items.at(-1);
    if (items.length < requested || !lastItem) break;
    from = Number(lastItem.last) + 1;
  }
  return found.slice(0, limit);
}
