/**
 * A meter of the table's load by partition key: an SDK middleware on every function's table client
 * that gives each call's write and read units to the partition keys it touched, in the table and in
 * each index, by DynamoDB's rules:
 *
 * - a write costs its table partition 1 WRU per KB of the larger of the item before and after
 *   (rounded up; a refused conditional write 1 WRU); an index whose key the item gains, loses or
 *   changes takes a put and/or a delete of the projected item on that key's partition, one whose
 *   projected attributes changed under the same key one write;
 * - a read costs 1 RRU per 4 KB (half, eventually consistent) on the partition it reads: a Query
 *   the sum of the items it returned, a BatchGetItem each key's item.
 *
 * The item before and after each write is read with a consistent GetItem beside it, not counted
 * (a put on an unused key has nothing before it). The tables' own `ConsumedCapacity` holds no index
 * units, which is why the images are read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { GetItem } from '../../lib/aws/index.ts';
import type { Runtime } from '../../lib/config/index.ts';
import { INDEXES, OWNER_INDEX_ATTRIBUTES } from '../../lib/store/index.ts';
import { itemBytes, stackOf } from '../../sandbox/metering.ts';

/** Where a partition is: the table or one of its indexes. */
export type Space = 'table' | typeof INDEXES.sweep | typeof INDEXES.owner;

/** The load one partition key took. */
export interface PartitionLoad {
  space: Space;
  key: string;
  wru: number;
  rru: number;
  writes: number;
  reads: number;
}

type Item = Record<string, unknown>;
type Json = Record<string, unknown>;

/** The index key attributes of each index, and what it projects besides its keys (ALL: everything). */
const INDEX_SHAPES: { space: Space; pk: string; sk: string; projects: readonly string[] | 'ALL' }[] = [
  { space: INDEXES.sweep, pk: 'gsi1pk', sk: 'gsi1sk', projects: 'ALL' },
  { space: INDEXES.owner, pk: 'gsi2pk', sk: 'gsi2sk', projects: OWNER_INDEX_ATTRIBUTES },
];

const KB = 1024;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));
const readUnits = (bytes: number, consistent: boolean) =>
  Math.max(1, Math.ceil(bytes / (4 * KB))) * (consistent ? 1 : 0.5);

function projected(item: Item, shape: (typeof INDEX_SHAPES)[number]): Item {
  if (shape.projects === 'ALL') return item;
  const names = new Set(['pk', 'sk', shape.pk, shape.sk, ...shape.projects]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));
}

/** The partition key value a Query's key condition names (`pk = :x`, `gsi1pk = :x`). */
function queriedKey(input: Json): string | undefined {
  const condition = typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '';
  const match = /\b(?:pk|gsi1pk|gsi2pk)\s*=\s*(:\w+)/.exec(condition);
  const values = isObject(input.ExpressionAttributeValues) ? input.ExpressionAttributeValues : {};
  const value = match?.[1] ? values[match[1]] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A running meter of partition loads; `stop()` takes it off. */
export interface PartitionMeter {
  loads(): PartitionLoad[];
  /** DynamoDB requests by operation (the images it reads itself not among them). */
  requests(): Record<string, number>;
  reset(): void;
  stop(): void;
}

/** Meters the table clients of the given runtimes (a sandbox's `runtimes`) by partition key. */
export function meterPartitions(runtimes: Record<string, Runtime>): PartitionMeter {
  const loads = new Map<string, PartitionLoad>();
  const requests = new Map<string, number>();
  const shadow = new AsyncLocalStorage<boolean>();
  const name = 'switchboard-partition-meter';
  const stacks: { remove(name: string): boolean }[] = [];
  let stopped = false;

  const charge = (space: Space, key: string, units: { wru?: number; rru?: number }) => {
    const id = `${space}|${key}`;
    let load = loads.get(id);
    if (!load) {
      load = { space, key, wru: 0, rru: 0, writes: 0, reads: 0 };
      loads.set(id, load);
    }
    if (units.wru !== undefined) {
      load.wru += units.wru;
      load.writes += 1;
    }
    if (units.rru !== undefined) {
      load.rru += units.rru;
      load.reads += 1;
    }
  };

  const chargeIndexes = (before: Item | undefined, after: Item | undefined) => {
    for (const shape of INDEX_SHAPES) {
      const oldKey = before?.[shape.pk];
      const newKey = after?.[shape.pk];
      const oldEntry = before && typeof oldKey === 'string' ? projected(before, shape) : undefined;
      const newEntry = after && typeof newKey === 'string' ? projected(after, shape) : undefined;
      if (oldEntry && newEntry && oldKey === newKey) {
        if (JSON.stringify(oldEntry) !== JSON.stringify(newEntry))
          charge(shape.space, String(newKey), {
            wru: writeUnits(Math.max(itemBytes(oldEntry), itemBytes(newEntry))),
          });
        continue;
      }
      if (oldEntry) charge(shape.space, String(oldKey), { wru: writeUnits(itemBytes(oldEntry)) });
      if (newEntry) charge(shape.space, String(newKey), { wru: writeUnits(itemBytes(newEntry)) });
    }
  };

  for (const runtime of Object.values(runtimes)) {
    runtime.onClient((service, client) => {
      if (stopped || service !== 'dynamodb') return;
      const read = async (table: string, key: Item): Promise<Item | undefined> =>
        shadow.run(true, async () => {
          const { Item } = await runtime.db.send(
            new GetItem({ TableName: table, Key: key, ConsistentRead: true }),
          );
          return Item as Item | undefined;
        });
      const stack = stackOf(client);
      stack.add(
        (next, context) => async (args) => {
          if (shadow.getStore()) return next(args);
          const operation = (context.commandName ?? '').replace(/Command$/, '');
          requests.set(operation, (requests.get(operation) ?? 0) + 1);
          const input = args.input as Json;
          const table = String(input.TableName);
          if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') {
            const item = isObject(input.Item) ? input.Item : undefined;
            const key = (operation === 'PutItem' ? { pk: item?.pk, sk: item?.sk } : input.Key) as Item;
            const fresh =
              operation === 'PutItem' &&
              typeof input.ConditionExpression === 'string' &&
              input.ConditionExpression.startsWith('attribute_not_exists(pk)');
            const before = fresh ? undefined : await read(table, key);
            try {
              const result = await next(args);
              const after =
                operation === 'DeleteItem'
                  ? undefined
                  : operation === 'PutItem'
                    ? item
                    : await read(table, key);
              charge('table', String(key.pk), {
                wru: writeUnits(Math.max(itemBytes(before), itemBytes(after))),
              });
              chargeIndexes(before, after);
              return result;
            } catch (error) {
              if (isObject(error) && error.name === 'ConditionalCheckFailedException')
                charge('table', String(key.pk), { wru: 1 });
              throw error;
            }
          }
          const result = await next(args);
          const output = result.output as Json;
          const consistent = input.ConsistentRead === true;
          if (operation === 'GetItem' && isObject(input.Key))
            charge('table', String(input.Key.pk), { rru: readUnits(itemBytes(output.Item), consistent) });
          if (operation === 'Query') {
            const space = (typeof input.IndexName === 'string' ? input.IndexName : 'table') as Space;
            const items = Array.isArray(output.Items) ? output.Items : [];
            const bytes = items.reduce((sum: number, item) => sum + itemBytes(item), 0);
            charge(space, queriedKey(input) ?? '?', { rru: readUnits(bytes, consistent) });
          }
          if (operation === 'BatchGetItem' && isObject(input.RequestItems)) {
            const responses = isObject(output.Responses) ? output.Responses : {};
            for (const [tableName, request] of Object.entries(input.RequestItems)) {
              const got = Array.isArray(responses[tableName]) ? (responses[tableName] as Item[]) : [];
              const wanted = isObject(request) && Array.isArray(request.Keys) ? (request.Keys as Item[]) : [];
              const batchConsistent = isObject(request) && request.ConsistentRead === true;
              for (const key of wanted) {
                const found = got.find((item) => item.pk === key.pk && item.sk === key.sk);
                charge('table', String(key.pk), { rru: readUnits(itemBytes(found), batchConsistent) });
              }
            }
          }
          return result;
        },
        { step: 'initialize', name },
      );
      stacks.push(stack);
    });
  }

  return {
    loads: () => [...loads.values()].map((load) => ({ ...load })),
    requests: () => Object.fromEntries(requests),
    reset: () => {
      loads.clear();
      requests.clear();
    },
    stop() {
      stopped = true;
      for (const stack of stacks) stack.remove(name);
    },
  };
}
