import { DeleteItem, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, prefixes } from './keys.ts';
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
 * Remembers a tool for a session. Idempotent: a retry of the approval (or a second approval that
 * remembers the same tool) keeps the first record's time and actor.
 */
export async function rememberTool(rt: Runtime, sessionId: string, tool: RememberedTool): Promise<void> {
  await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      Key: keys.rememberedTool(sessionId, tool.name),
      UpdateExpression:
        'SET #type = :type, #name = :name, rememberedAt = if_not_exists(rememberedAt, :at), actor = if_not_exists(actor, :actor)',
      ExpressionAttributeNames: { '#type': 'type', '#name': 'name' },
      ExpressionAttributeValues: {
        ':type': 'remembered_tool',
        ':name': tool.name,
        ':at': tool.rememberedAt,
        ':actor': tool.actor,
      },
    }),
  );
}

/** The tools remembered for a session, in the order they were remembered. */
export async function listRememberedTools(rt: Runtime, sessionId: string): Promise<RememberedTool[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':prefix': prefixes.rememberedTool },
    ConsistentRead: true,
  });
  return items
    .map((item) => ({
      name: String(item.name),
      rememberedAt: String(item.rememberedAt),
      actor: String(item.actor),
    }))
    .sort((a, b) => a.rememberedAt.localeCompare(b.rememberedAt) || a.name.localeCompare(b.name));
}

/** Forgets a remembered tool; false when it was not remembered. */
export async function forgetTool(rt: Runtime, sessionId: string, name: string): Promise<boolean> {
  try {
    await rt.db.send(
      new DeleteItem({
        TableName: rt.table,
        Key: keys.rememberedTool(sessionId, name),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
