import { DeleteItem, PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, prefixes } from './keys.ts';
import type { SessionRecord } from './sessions.ts';
import { isConditionFailure, queryAll } from './table.ts';

/**
 * A tool remembered for a session: an approval of it was answered with `remember_for_session: true`,
 * and its later calls in the session run without asking. An item in the session's partition
 * (`TOOL#<digest of the name>`), so it goes with the session.
 */
export interface RememberedTool {
  name: string;
  /** When the approval that remembered it was recorded. */
  rememberedAt: string;
  /** Who answered that approval. */
  actor: string;
}

/**
 * The session an item belongs to: its id, and its creation time. An item also holds the time, so
 * that one left behind by a session that expired (DynamoDB's TTL removes the session's item, not
 * this one) is never taken for the tool of a new session of the same id.
 */
type Owner = Pick<SessionRecord, 'sessionId' | 'createdAt'>;

/**
 * Remembers a tool for a session. Idempotent: a retry of the approval (or a second approval that
 * remembers the same tool) keeps the first record's time and actor.
 */
export async function rememberTool(rt: Runtime, session: Owner, tool: RememberedTool): Promise<void> {
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...keys.rememberedTool(session.sessionId, tool.name),
          type: 'remembered_tool',
          name: tool.name,
          rememberedAt: tool.rememberedAt,
          actor: tool.actor,
          sessionCreatedAt: session.createdAt,
        },
        // A new one, or over one a former session of the same id left behind.
        ConditionExpression: 'attribute_not_exists(pk) OR sessionCreatedAt <> :created',
        ExpressionAttributeValues: { ':created': session.createdAt },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The tools remembered for a session, in the order they were remembered. */
export async function listRememberedTools(rt: Runtime, session: Owner): Promise<RememberedTool[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keys.session(session.sessionId).pk,
      ':prefix': prefixes.rememberedTool,
    },
    ConsistentRead: true,
  });
  return items
    .filter((item) => item.sessionCreatedAt === session.createdAt)
    .map((item) => ({
      name: String(item.name),
      rememberedAt: String(item.rememberedAt),
      actor: String(item.actor),
    }))
    .sort((a, b) => a.rememberedAt.localeCompare(b.rememberedAt) || a.name.localeCompare(b.name));
}

/** Forgets a remembered tool; false when the session does not remember it. */
export async function forgetTool(rt: Runtime, session: Owner, name: string): Promise<boolean> {
  try {
    await rt.db.send(
      new DeleteItem({
        TableName: rt.table,
        Key: keys.rememberedTool(session.sessionId, name),
        ConditionExpression: 'sessionCreatedAt = :created',
        ExpressionAttributeValues: { ':created': session.createdAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
