import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../config/index.ts';

/** True when a conditional write was refused because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Runs a Query and follows its pages until `limit` items (or all of them) are read. */
export async function queryAll(
  rt: Runtime,
  input: Omit<QueryCommandInput, 'TableName'>,
  limit = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await rt.db.send(
      new QueryCommand({
        ...input,
        TableName: rt.table,
        ExclusiveStartKey: start,
        ...(Number.isFinite(limit) && { Limit: limit - items.length }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
}

/** Removes the table's own key attributes from an item before it leaves the store. */
export function strip<T extends Record<string, unknown>>(
  item: T,
): Omit<T, 'pk' | 'sk' | 'ttl' | 'gsi1pk' | 'gsi1sk'> {
  const { pk: _pk, sk: _sk, ttl: _ttl, gsi1pk: _g1, gsi1sk: _g2, ...rest } = item;
  return rest;
}
