import { UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys } from './keys.ts';
import { batchGet, isConditionFailure } from './table.ts';

/**
 * Takes the orphan sweep's turn, when one is due: one conditional write that puts the next turn
 * `leaseMs` away, so that of two sweeps one lists the bucket, and one that died in the middle is
 * taken over once the lease has passed. Returns the key the last turn reached (a pass that did not
 * finish goes on from there), or undefined when no turn is due.
 */
export async function claimOrphanPass(
  rt: Runtime,
  now: number,
  leaseMs: number,
): Promise<{ after?: string } | undefined> {
  try {
    const { Attributes } = await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.orphanPass(),
        UpdateExpression: 'SET dueAt = :lease',
        ConditionExpression: 'attribute_not_exists(dueAt) OR dueAt <= :now',
        ExpressionAttributeValues: { ':lease': now + leaseMs, ':now': now },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return typeof Attributes?.after === 'string' ? { after: Attributes.after } : {};
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Ends a turn: the next is due at `dueAt`, going on after the key `after` (none: a new pass from the start). */
export async function finishOrphanPass(rt: Runtime, dueAt: number, after: string | undefined): Promise<void> {
  await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      Key: keys.orphanPass(),
      UpdateExpression:
        after === undefined ? 'SET dueAt = :due REMOVE #after' : 'SET dueAt = :due, #after = :after',
      ExpressionAttributeNames: { '#after': 'after' },
      ExpressionAttributeValues: { ':due': dueAt, ...(after !== undefined && { ':after': after }) },
    }),
  );
}

/**
 * Which of some file ids have a record (in any status), read eventually consistent: the orphan sweep
 * asks only about objects far older than any write that made a record. An id whose read DynamoDB left
 * unprocessed counts as having one: what is not known is kept.
 */
export async function recordedFiles(rt: Runtime, fileIds: readonly string[]): Promise<Set<string>> {
  const { items, unprocessed } = await batchGet(rt, fileIds.map(keys.file), 'pk');
  return new Set([...items, ...unprocessed].map((item) => String(item.pk).slice('FILE#'.length)));
}
