import type { QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { BatchGetItem, BatchWriteItem, Query, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { UnprocessedItemsError } from '../errors/index.ts';
import type { Transition } from './types.ts';

/** How often a batch write's unprocessed items are sent again before the caller is told to retry. */
export const BATCH_WRITE_ATTEMPTS = 8;

/** Full-jitter exponential backoff (AWS's advice for unprocessed items): 0 to 50 ms × 2^attempt, at most 2 s. */
const backoffMs = (attempt: number) => Math.random() * Math.min(2_000, 50 * 2 ** attempt);

/**
 * Writes up to 25 requests with BatchWriteItem, sending the items DynamoDB hands back unprocessed
 * again after a growing, jittered pause, as AWS advises (at once would meet the same throttling).
 * Throws {@link UnprocessedItemsError} when some are still unprocessed after
 * {@link BATCH_WRITE_ATTEMPTS} attempts.
 */
export async function batchWrite(rt: Runtime, requests: Record<string, unknown>[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt === BATCH_WRITE_ATTEMPTS) throw new UnprocessedItemsError(pending.length);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    const { UnprocessedItems } = await rt.db.send(
      new BatchWriteItem({ RequestItems: { [rt.table]: pending as never } }),
    );
    pending = (UnprocessedItems?.[rt.table] ?? []) as Record<string, unknown>[];
  }
}

/** At most this many keys go in one BatchGetItem. */
const BATCH_GET_KEYS = 100;

/**
 * Reads items by key, 100 in one BatchGetItem, eventually consistent (half a read unit each), only
 * the attributes `projection` names. Also returns the keys DynamoDB left unprocessed: what not
 * knowing them means is the caller's to say.
 */
export async function batchGet(
  rt: Runtime,
  itemKeys: readonly Record<string, unknown>[],
  projection: string,
): Promise<{ items: Record<string, unknown>[]; unprocessed: Record<string, unknown>[] }> {
  const items: Record<string, unknown>[] = [];
  const unprocessed: Record<string, unknown>[] = [];
  for (let i = 0; i < itemKeys.length; i += BATCH_GET_KEYS) {
    const { Responses, UnprocessedKeys } = await rt.db.send(
      new BatchGetItem({
        RequestItems: {
          [rt.table]: { Keys: itemKeys.slice(i, i + BATCH_GET_KEYS), ProjectionExpression: projection },
        },
      }),
    );
    items.push(...(Responses?.[rt.table] ?? []));
    unprocessed.push(...(UnprocessedKeys?.[rt.table]?.Keys ?? []));
  }
  return { items, unprocessed };
}

/** True when a conditional write was refused because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
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
      new Query({
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
): Omit<T, 'pk' | 'sk' | 'ttl' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk'> {
  const { pk: _pk, sk: _sk, ttl: _ttl, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _o1, gsi2sk: _o2, ...rest } = item;
  return rest;
}

/**
 * Fields that hold the host's or the agent's own JSON are stored as JSON text, not as DynamoDB
 * maps: DynamoDB numbers cannot hold every JSON number (1e-200, integers past 2^53) and the
 * marshaller refuses objects with a `constructor` key, and neither is the host's mistake.
 */
export function encodeJson<T extends object>(record: T, fields: readonly string[]): Record<string, unknown> {
  const out = { ...record } as Record<string, unknown>;
  for (const field of fields) {
    if (out[field] !== undefined && out[field] !== null) out[field] = JSON.stringify(out[field]);
  }
  return out;
}

/** The record with its JSON-text fields parsed back. */
export function decodeJson<T>(item: Record<string, unknown>, fields: readonly string[]): T {
  const out = strip(item) as Record<string, unknown>;
  for (const field of fields) {
    if (typeof out[field] === 'string') out[field] = JSON.parse(out[field] as string);
  }
  return out as T;
}

/** What a conditional write did, and the item: as it left it (applied), or as it found it (refused). */
export interface Written {
  applied: boolean;
  /** Absent when the write was refused because there was no item. */
  item?: Record<string, unknown>;
}

/**
 * One conditional UpdateItem. A refused one tells the writer what it lost to without a read: it asks
 * for the item as it was (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), which DynamoDB hands
 * back in the refusal, as DynamoDB JSON (the document client converts only answers).
 */
export async function conditionalUpdate(
  rt: Runtime,
  input: Omit<UpdateCommandInput, 'TableName'>,
): Promise<Written> {
  try {
    const { Attributes } = await rt.db.send(new UpdateItem({ TableName: rt.table, ...input }));
    return { applied: true, item: Attributes };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const found = (error as { Item?: Record<string, never> }).Item;
    return { applied: false, item: found && unmarshall(found) };
  }
}

/** One conditional UpdateItem: true when it was applied, false when its condition did not hold. */
export async function updateIf(rt: Runtime, input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  return (await conditionalUpdate(rt, input)).applied;
}

/**
 * The UpdateItem of a {@link Transition}: sets the status it enters (`to`, default its first) and
 * its attributes from `values`, removes what it removes, on the condition that the item is in one
 * of the statuses it leaves (`from`, default all of them) and meets its guard, or that this very
 * write was applied already (`again`). It answers the item as it left it or, refused, as it was.
 * Every state change of a run and of a request is built here.
 */
export function transitionUpdate<S extends string, A extends string>(
  transition: Transition<S, A>,
  Key: Record<string, unknown>,
  values: Record<NoInfer<A>, unknown> & Record<string, unknown>,
  { to = transition.to?.[0], from = transition.from }: { to?: S; from?: readonly S[] } = {},
): Omit<UpdateCommandInput, 'TableName'> {
  const { set, remove, guard, again } = transition;
  // A status it leaves is its own placeholder (`:queued`): no attribute is named as a status.
  const known: Record<string, unknown> = { ...values, status: to };
  for (const status of from) known[status] = status;
  const equal = (names: readonly string[]) => names.map((name) => `#${name} = :${name}`);
  const state = `#status IN (:${from.join(', :')})`;
  const UpdateExpression = `SET ${equal(to ? ['status', ...set] : set)}${remove ? ` REMOVE ${remove}` : ''}`;
  const ConditionExpression = `(${state}${guard ? ` AND (${guard})` : ''})${
    again ? ` OR (${[to ? '#status = :status' : state, ...equal(again)].join(' AND ')})` : ''
  }`;
  const ExpressionAttributeNames: Record<string, string> = {};
  const ExpressionAttributeValues: Record<string, unknown> = {};
  for (const [token, name = ''] of (UpdateExpression + ConditionExpression).matchAll(/[#:](\w+)/g)) {
    if (token[0] === '#') ExpressionAttributeNames[token] = name;
    else ExpressionAttributeValues[token] = known[name];
  }
  return {
    Key,
    UpdateExpression,
    ConditionExpression,
    ExpressionAttributeNames,
    ExpressionAttributeValues,
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** Applies a {@link Transition} (see {@link transitionUpdate}) to the item at `key`. */
export function applyTransition<S extends string, A extends string>(
  rt: Runtime,
  transition: Transition<S, A>,
  key: Record<string, unknown>,
  values: Record<NoInfer<A>, unknown> & Record<string, unknown>,
  change?: { to?: S; from?: readonly S[] },
): Promise<Written> {
  return conditionalUpdate(rt, transitionUpdate(transition, key, values, change));
}
