import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../config/index.ts';
import type { HostContext } from '../contract/index.ts';
import { keys, prefixes } from './keys.ts';
import type { RunRecord } from './runs.ts';
import { RUN_JSON } from './runs.ts';
import { decodeJson, encodeJson, isConditionFailure, queryAll } from './table.ts';

const SESSION_JSON = ['hostContext', 'metadata'] as const;

/** A session's META item: who owns it and which agent serves it. */
export interface SessionRecord {
  sessionId: string;
  owner: string;
  agentId: string;
  createdAt: string;
  metadata?: Record<string, unknown>;
  /** The last host context received (validated, snake_case, without attachments). */
  hostContext?: HostContext;
}

/** The session, or undefined when there is none. */
export async function getSession(rt: Runtime, sessionId: string): Promise<SessionRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetCommand({ TableName: rt.table, Key: keys.session(sessionId), ConsistentRead: true }),
  );
  return Item ? decodeJson<SessionRecord>(Item, SESSION_JSON) : undefined;
}

/**
 * Creates the session on first use. When two requests race to create it, one conditional put
 * decides and both get the stored record back.
 */
export async function ensureSession(rt: Runtime, session: SessionRecord): Promise<SessionRecord> {
  try {
    await rt.db.send(
      new PutCommand({
        TableName: rt.table,
        Item: { ...keys.session(session.sessionId), type: 'session', ...encodeJson(session, SESSION_JSON) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return session;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await getSession(rt, session.sessionId);
    if (!existing) throw error;
    return existing;
  }
}

/** The newest run of a session (run ids sort in creation order), if any. */
export async function latestRun(rt: Runtime, sessionId: string): Promise<RunRecord | undefined> {
  const [item] = await queryAll(
    rt,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
      ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':run': prefixes.run },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    1,
  );
  return item ? decodeJson<RunRecord>(item, RUN_JSON) : undefined;
}

/** Stores the host context a message or a join carried; later messages without one reuse it. */
export async function setHostContext(rt: Runtime, sessionId: string, context: HostContext): Promise<void> {
  await rt.db.send(
    new UpdateCommand({
      TableName: rt.table,
      Key: keys.session(sessionId),
      UpdateExpression: 'SET hostContext = :c',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':c': JSON.stringify(context) },
    }),
  );
}
