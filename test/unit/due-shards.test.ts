import { describe, expect, it } from 'vitest';
import { parseSettings, type Runtime } from '../../lib/config/index.ts';
import { newId } from '../../lib/ids/index.ts';
import { dueBucket, dueBucketsOf, dueKeys, dueShard } from '../../lib/store/index.ts';

const AT = Date.parse('2026-12-08T01:30:00.000Z');
const runtime = (dueShards?: number) =>
  ({ settings: parseSettings(dueShards === undefined ? {} : { sweep: { dueShards } }) }) as Runtime;

describe('the due index’s shards', () => {
  it('spreads one hour’s runs evenly over the shards, the same id always to the same shard', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i += 1) {
      const id = newId('run');
      const shard = dueShard(id, 16);
      expect(dueShard(id, 16)).toBe(shard);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1_200);
  });

  it('writes sharded keys for runs, connections and requests, one key an hour for files, and queries the unsharded key too', () => {
    const rt = runtime();
    expect(rt.settings.sweep.dueShards).toBe(16);
    const run = dueKeys(rt, 'run', 'run_1', AT, 's#run_1');
    expect(run).toEqual({
      gsi1pk: `DUE#run#2026-12-08T01#${dueShard('run_1', 16)}`,
      gsi1sk: `${AT}#s#run_1`,
    });
    expect(dueKeys(rt, 'file', 'file_1', AT, '')).toEqual({
      gsi1pk: 'DUE#file#2026-12-08T01',
      gsi1sk: `${AT}`,
    });
    const buckets = dueBucketsOf(rt, 'conn', AT);
    expect(buckets).toHaveLength(17);
    expect(buckets[0]).toBe(dueBucket('conn', AT));
    expect(buckets).toContain('DUE#conn#2026-12-08T01#15');
    expect(dueBucketsOf(rt, 'file', AT)).toEqual(['DUE#file#2026-12-08T01']);
  });

  it('refuses a shard count out of range, naming the setting', () => {
    expect(() => runtime(0)).toThrow(/sweep\.dueShards/);
    expect(() => runtime(129)).toThrow(/sweep\.dueShards/);
    expect(() => parseSettings({ sweep: { dueShards: 2.5 } })).toThrow(/sweep\.dueShards/);
  });
});
