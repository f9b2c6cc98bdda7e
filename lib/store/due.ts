import type { Runtime } from '../config/index.ts';
import { dueBucket, dueShard, INDEXES } from './keys.ts';
import { queryAll } from './table.ts';

/**
 * The sweep's due index (`gsi1`): an item due at some time carries `gsi1pk`, its kind's bucket for
 * that UTC hour, and `gsi1sk`, starting with the due time in epoch milliseconds. The buckets of runs,
 * connections and pending requests take a write for every queued run, opened connection and asked
 * request, so each hour's bucket has `sweep.dueShards` shards (`DUE#<kind>#<hour>#<shard>`), an
 * item's shard given by its id. Files, written once an upload, keep one key an hour.
 */
export type DueKind = 'run' | 'conn' | 'act' | 'file';

const SHARDED: ReadonlySet<DueKind> = new Set(['run', 'conn', 'act']);

const HOUR_MS = 3_600_000;

/** The index keys of an item of `kind`, identified by `id`, due at `due` (epoch ms). */
export function dueKeys(
  rt: Runtime,
  kind: DueKind,
  id: string,
  due: number,
  sortSuffix: string,
): { gsi1pk: string; gsi1sk: string } {
  const shard = SHARDED.has(kind) ? dueShard(id, rt.settings.sweep.dueShards) : undefined;
  return { gsi1pk: dueBucket(kind, due, shard), gsi1sk: sortSuffix ? `${due}#${sortSuffix}` : `${due}` };
}

/**
 * Every partition of one hour's bucket of `kind`: each shard, and the unsharded key, where items
 * written before the buckets had shards are (a deployment updated in place with runs, connections
 * and requests in flight keeps them swept; after the sweep's look-back that key is empty, and its
 * Query costs half a read unit).
 */
export function dueBucketsOf(rt: Runtime, kind: DueKind, at: number): string[] {
  const unsharded = dueBucket(kind, at);
  if (!SHARDED.has(kind)) return [unsharded];
  const shards = Array.from({ length: rt.settings.sweep.dueShards }, (_, shard) =>
    dueBucket(kind, at, shard),
  );
  return [unsharded, ...shards];
}

/**
 * The items of `kind` whose due time is before `before`, in the hours from `fromHour` to `toHour`
 * (epoch ms within each hour): every shard of every hour queried at once, so a sweep's time does
 * not grow with the shards. Ordered by due time.
 */
export async function queryDue(
  rt: Runtime,
  kind: DueKind,
  hours: { from: number; to: number },
  before: number,
  projection?: string[],
): Promise<Record<string, unknown>[]> {
  const buckets: string[] = [];
  for (let hour = Math.floor(hours.from / HOUR_MS); hour <= Math.floor(hours.to / HOUR_MS); hour += 1)
    buckets.push(...dueBucketsOf(rt, kind, hour * HOUR_MS));
  const pages = await Promise.all(
    buckets.map((bucket) =>
      queryAll(rt, {
        IndexName: INDEXES.sweep,
        KeyConditionExpression: 'gsi1pk = :bucket AND gsi1sk < :before',
        ExpressionAttributeValues: { ':bucket': bucket, ':before': `${before}` },
        ...(projection && { ProjectionExpression: [...projection, 'gsi1sk'].join(', ') }),
      }),
    ),
  );
  return pages.flat().sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)));
}
