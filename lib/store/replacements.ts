import type { Runtime } from '../config/index.ts';
import { keys } from './keys.ts';
import type { Replacement } from './messages.ts';
import { updateIf } from './table.ts';

/**
 * Marks a message replaced by a regenerate or an edit: one conditional write, which keeps the
 * first replacement when a retry (or a later cut) comes again. False when it was replaced already.
 */
export async function markReplaced(
  rt: Runtime,
  sessionId: string,
  messageId: string,
  replacement: Replacement,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.message(sessionId, messageId),
    UpdateExpression: 'SET replaced = :r',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(replaced)',
    ExpressionAttributeValues: { ':r': replacement },
  });
}
