import { hostSessionId } from '../auth/index.ts';
import { DeleteItem, GetItem, PutItem, Query, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostContext } from '../contract/index.ts';
import { SessionNotFoundError } from '../errors/index.ts';
import { INDEXES, keys, ownerIndexKeys, ownerPartition, prefixes } from './keys.ts';
import { retentionTtl } from './retention.ts';
import type { RunRecord } from './runs.ts';
import { RUN_JSON } from './runs.ts';
import { batchWrite, decodeJson, encodeJson, isConditionFailure, queryAll, updateIf } from './table.ts';

const SESSION_JSON = ['hostContext', 'metadata'] as const;

/** A session's META item: who owns it and which agent serves it. */
export interface SessionRecord {
  sessionId: string;
  owner: string;
  /** The owner's tenant, when the authoriser names one: a session belongs to (tenant, user). */
  tenant?: string;
  agentId: string;
  createdAt: string;
  metadata?: Record<string, unknown>;
  /**
   * The session's title in a list: the start of the message that made it (`SESSION_TITLE_LENGTH`
   * characters). Kept as `name`, an attribute the owner index already projects (for files), so that
   * listing it changes no index of a deployed table.
   */
  name?: string;
  /** The last host context received (validated, snake_case, without attachments). */
  hostContext?: HostContext;
  /** Set when the session was deleted: it answers 404 while its items are removed. */
  deletedAt?: string;
  /** The run that removes a deleted session's items, named by the same write that marks it. */
  deleteRunId?: string;
  /** What the session's turns cost in all, in US dollars (the seed's `spentUsd`). */
  spentUsd?: number;
  /** The runs counted last into `spentUsd`, so that none is counted twice (see store/spend.ts). */
  spentRuns?: string[];
  /** How often `spentUsd` was written: the condition of the next write. */
  spendVersion?: number;
  /**
   * What operators gave this session beyond its agent's budget (`switchboard budget --add-usd`), in
   * US dollars: its budget is the agent's plus this. Nothing for an agent without a budget.
   */
  budgetAddedUsd?: number;
}

/** The session, or undefined when there is none. */
export async function getSession(
  rt: Runtime,
  sessionId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<SessionRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.session(sessionId), ConsistentRead: true }),
  );
  const session = Item ? decodeJson<SessionRecord>(Item, SESSION_JSON) : undefined;
  // A deleted session is gone for every request at once, while its items are being removed.
  return session?.deletedAt && !options.includeDeleted ? undefined : session;
}

/**
 * Marks a session deleted and names the run that removes its items (one conditional write); false
 * when it already was, or is gone.
 */
export async function markDeleted(
  rt: Runtime,
  sessionId: string,
  now: number,
  runId: string,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.session(sessionId),
    UpdateExpression: 'SET deletedAt = :at, deleteRunId = :run REMOVE gsi2pk, gsi2sk',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
    ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':run': runId },
  });
}

/** Every run of a session, oldest first. */
export async function listRuns(rt: Runtime, sessionId: string): Promise<RunRecord[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':run': prefixes.run },
    ConsistentRead: true,
  });
  return items.map((item) => decodeJson<RunRecord>(item, RUN_JSON));
}

/**
 * Deletes every item of a deleted session's partition, its META item last and only while it is
 * still the deleted one: until then the id cannot be taken again, so a new session never sees an
 * old item and the old delete never removes a new session. The deleting run's own item goes after
 * the META item: while the session is marked, its run is there (a later delete that finds no run
 * finishes the work of one that stopped before queueing it).
 */
export async function deletePartition(rt: Runtime, sessionId: string, runId?: string): Promise<number> {
  const own = runId === undefined ? undefined : keys.run(sessionId, runId).sk;
  const items = (
    await queryAll(rt, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk },
      ProjectionExpression: 'pk, sk',
    })
  ).filter((item) => item.sk !== 'META' && item.sk !== own);
  for (let i = 0; i < items.length; i += 25) {
    await batchWrite(
      rt,
      items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })),
    );
  }
  await rt.db
    .send(
      new DeleteItem({
        TableName: rt.table,
        Key: keys.session(sessionId),
        ConditionExpression: 'attribute_exists(deletedAt)',
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  if (runId !== undefined) {
    await rt.db.send(new DeleteItem({ TableName: rt.table, Key: keys.run(sessionId, runId) }));
  }
  return items.length + (runId === undefined ? 1 : 2);
}

/**
 * Creates the session on first use. When two requests race to create it, one conditional put
 * decides and both get the stored record back.
 */
export async function ensureSession(rt: Runtime, session: SessionRecord): Promise<SessionRecord> {
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...keys.session(session.sessionId),
          ...ownerIndexKeys(session, 'SESSION', session.createdAt, session.sessionId),
          type: 'session',
          ...encodeJson(session, SESSION_JSON),
          ...retentionTtl(rt, 'sessions'),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return session;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await getSession(rt, session.sessionId, { includeDeleted: true });
    if (!existing) throw error;
    if (existing.deletedAt) {
      // Its items are still being removed; the id is free again once they are.
      throw new SessionNotFoundError(hostSessionId(session.sessionId));
    }
    return existing;
  }
}

/** The newest run of a session that is a turn of its own (a message taken as steering is not), if any. */
export async function latestRun(rt: Runtime, sessionId: string): Promise<RunRecord | undefined> {
  const [item] = await queryAll(
    rt,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
      ScanIndexForward: false,
      ConsistentRead: true,
      FilterExpression: '#status <> :steered',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pk': keys.session(sessionId).pk,
        ':run': prefixes.run,
        ':steered': 'steered',
      },
    },
    1,
  );
  return item ? decodeJson<RunRecord>(item, RUN_JSON) : undefined;
}

/** Stores the host context a message or a join carried; later messages without one reuse it. */
export async function setHostContext(rt: Runtime, sessionId: string, context: HostContext): Promise<void> {
  await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      Key: keys.session(sessionId),
      UpdateExpression: 'SET hostContext = :c',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':c': JSON.stringify(context) },
    }),
  );
}

/** One page of an owner's sessions, newest first, from the owner index (no scan). */
export async function listOwnedSessions(
  rt: Runtime,
  owner: { owner: string; tenant?: string },
  options: { limit: number; before?: { createdAt: string; sessionId: string } },
): Promise<{ sessions: SessionRecord[]; more: boolean }> {
  const partition = ownerPartition(owner.tenant, owner.owner);
  const before = options.before;
  const { Items = [], LastEvaluatedKey } = await rt.db.send(
    new Query({
      TableName: rt.table,
      IndexName: INDEXES.owner,
      KeyConditionExpression: 'gsi2pk = :owner AND begins_with(gsi2sk, :kind)',
      ExpressionAttributeValues: { ':owner': partition, ':kind': 'SESSION#' },
      ScanIndexForward: false,
      Limit: options.limit,
      ...(before && {
        ExclusiveStartKey: {
          ...keys.session(before.sessionId),
          ...ownerIndexKeys(owner, 'SESSION', before.createdAt, before.sessionId),
        },
      }),
    }),
  );
  return {
    sessions: Items.map((item) => decodeJson<SessionRecord>(item, SESSION_JSON)),
    more: LastEvaluatedKey !== undefined,
  };
}

/**
 * Keeps a session `retention.sessionsDays` from now (a message was accepted); nothing when sessions
 * do not expire. A session already deleted or gone is left as it is.
 */
export async function touchSession(rt: Runtime, sessionId: string): Promise<void> {
  const { ttl } = retentionTtl(rt, 'sessions');
  if (ttl === undefined) return;
  await updateIf(rt, {
    Key: keys.session(sessionId),
    UpdateExpression: 'SET #ttl = :ttl',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':ttl': ttl },
  });
}
