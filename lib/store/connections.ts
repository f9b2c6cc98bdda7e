import { DeleteItem, PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { dueKeys, queryDue } from './due.ts';
import { keys, prefixes, ttlAt } from './keys.ts';
import { queryAll, updateIf } from './table.ts';

/** A WebSocket connection, recorded at `$connect` with the identity its authoriser gave. */
export interface ConnectionRecord {
  connectionId: string;
  user: string;
  connectedAt: string;
  expiresAt: number;
  sessions?: Set<string>;
}

/** Records a new connection; it is due for the sweep when API Gateway would have closed it. */
export async function putConnection(
  rt: Runtime,
  connectionId: string,
  user: string,
  now: number,
): Promise<void> {
  const expiresAt = now + rt.settings.connections.maxLifetimeMs;
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: {
        ...keys.connection(connectionId),
        type: 'connection',
        connectionId,
        user,
        connectedAt: new Date(now).toISOString(),
        expiresAt,
        ttl: ttlAt(expiresAt),
        ...dueKeys(rt, 'conn', connectionId, expiresAt, connectionId),
      },
    }),
  );
}

/** Joins a connection to a session: both directions, since `$disconnect` only knows the connection. */
export async function subscribe(rt: Runtime, sessionId: string, connection: ConnectionRecord): Promise<void> {
  // The connection's own record first, and only while it exists: a connection whose $disconnect
  // already ran does not come back as records nobody sweeps.
  const live = await updateIf(rt, {
    Key: keys.connection(connection.connectionId),
    UpdateExpression: 'ADD sessions :s',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':s': new Set([sessionId]) },
  });
  if (!live) return;
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: {
        ...keys.subscriber(sessionId, connection.connectionId),
        type: 'subscriber',
        connectionId: connection.connectionId,
        ttl: ttlAt(connection.expiresAt),
      },
    }),
  );
}

/** A connection joined to a session; `replayedThrough` once its join's replay was sent. */
export interface Subscriber {
  connectionId: string;
  replayedThrough?: number;
}

/** The connections joined to a session. */
export async function subscribers(rt: Runtime, sessionId: string): Promise<Subscriber[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :conn)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':conn': prefixes.subscriber },
    ProjectionExpression: 'connectionId, replayedThrough',
    // Strongly consistent: a connection that joined a moment ago must get what its replay missed.
    ConsistentRead: true,
  });
  return items.map((item) => ({
    connectionId: String(item.connectionId),
    ...(typeof item.replayedThrough === 'number' && { replayedThrough: item.replayedThrough }),
  }));
}

/**
 * Records how far a join's replay went, so that a streaming turn that finds the connection sends it
 * only what came after; a connection that left meanwhile is not recorded again.
 */
export async function markReplayed(
  rt: Runtime,
  sessionId: string,
  connectionId: string,
  replayedThrough: number,
): Promise<void> {
  await updateIf(rt, {
    Key: keys.subscriber(sessionId, connectionId),
    UpdateExpression: 'SET replayedThrough = :seq',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':seq': replayedThrough },
  });
}

/**
 * Deletes every record of a connection: its own (whose old value names its sessions), then its
 * subscriber record in each. Deleting one that is already gone is fine.
 */
export async function removeConnection(
  rt: Runtime,
  connectionId: string,
  knownSessions: string[] = [],
): Promise<void> {
  const { Attributes } = await rt.db.send(
    new DeleteItem({ TableName: rt.table, Key: keys.connection(connectionId), ReturnValues: 'ALL_OLD' }),
  );
  const record = Attributes as ConnectionRecord | undefined;
  const sessions = new Set([...knownSessions, ...(record?.sessions ?? [])]);
  await Promise.all(
    [...sessions].map((sessionId) =>
      rt.db.send(new DeleteItem({ TableName: rt.table, Key: keys.subscriber(sessionId, connectionId) })),
    ),
  );
}

/** Connections whose lifetime ended before `now`, found through the due index, never a scan. */
export async function dueConnections(rt: Runtime, now: number, lookbackHours: number): Promise<string[]> {
  const items = await queryDue(rt, 'conn', { from: now - lookbackHours * 3_600_000, to: now }, now, [
    'connectionId',
  ]);
  return items.map((item) => String(item.connectionId));
}
