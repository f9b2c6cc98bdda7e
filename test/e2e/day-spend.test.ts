import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem, PutItem } from '../../lib/aws/index.ts';
import { newId } from '../../lib/ids/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { addDaySpend, daySpend, keys, settleDaySpend, tenantPartition } from '../../lib/store/index.ts';
import { meter } from '../../sandbox/metering.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testSandbox } from '../support/sandbox.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Half past an hour: the tests place runs relative to it. */
const NOW = Date.parse('2026-12-08T12:30:00.000Z');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({ app: createSwitchboard(), sweepPeriodMs: 3_600_000 });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Counts a run's cost in a ledger as a turn's end does: the bucket's add, then (the session counted it) its settling. */
async function spend(partition: string, acceptedAt: number, costUsd: number, runId = newId('run')) {
  const run = { runId, createdAt: new Date(acceptedAt).toISOString() };
  const added = await addDaySpend(sandbox.runtime, partition, run, costUsd);
  await settleDaySpend(sandbox.runtime, partition, run);
  return added;
}

/** The ledger's day spend, with the requests and items its read took. */
async function readDay(partition: string, now = NOW) {
  const m = meter({ test: sandbox.runtime });
  let items = 0;
  m.onCall = (call) => {
    items += call.items;
  };
  try {
    const usd = await daySpend(sandbox.runtime, partition, now);
    return { usd, requests: m.snapshot().count(), items, rru: m.snapshot().sum('rru') };
  } finally {
    m.stop();
  }
}

describe('a rolling-day ledger in hour buckets', () => {
  it('reads as many items for a tenant with 1,000 turns in the day as for a tenant with one: one request, at most 25', async () => {
    const tenant = (name: string) => tenantPartition(`${name}-${newId('t')}`);
    const [busy, one, spread, hourly] = [tenant('busy'), tenant('one'), tenant('spread'), tenant('hourly')];
    // 1,000 turns in the last hour against one; 1,000 over the last day against one in each hour.
    for (let i = 0; i < 1_000; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => [
          spend(busy, NOW - (i + j) * 1_000, 0.001),
          spend(spread, NOW - ((i + j) * DAY_MS) / 1_000, 0.001),
        ]).flat(),
      );
    await spend(one, NOW, 0.25);
    for (let h = 0; h <= 24; h += 1) await spend(hourly, NOW - h * HOUR_MS, 0.01);
    const [b, o, s, h] = [
      await readDay(busy),
      await readDay(one),
      await readDay(spread),
      await readDay(hourly),
    ];
    expect([b.usd, o.usd, s.usd, h.usd].map((usd) => usd.toFixed(6))).toEqual([
      '1.000000',
      '0.250000',
      '1.000000',
      '0.250000',
    ]);
    // One request each, and the items (and read units) of the tenant with one turn.
    expect([b, o, s, h].map((r) => r.requests)).toEqual([1, 1, 1, 1]);
    expect(b.items).toBe(o.items);
    expect(b.rru).toBe(o.rru);
    expect(b.items).toBe(1);
    expect(s.items).toBe(h.items);
    expect(s.rru).toBe(h.rru);
    expect(s.items).toBe(25);
    // The bucket stays small: the runs it remembers until their session counted them are settled.
    const bucket = (
      await sandbox.runtime.db.send(
        new GetItem({
          TableName: sandbox.runtime.table,
          Key: keys.spendHour(busy, '2026-12-08T12'),
          ConsistentRead: true,
        }),
      )
    ).Item;
    expect(bucket?.counting).toBeUndefined();
  });

  it('counts a run once, whatever the retries between the bucket’s write and its session’s', async () => {
    const ledger = tenantPartition(`once-${newId('t')}`);
    const run = { runId: newId('run'), createdAt: new Date(NOW - 60_000).toISOString() };
    expect(await addDaySpend(sandbox.runtime, ledger, run, 0.5)).toBe(true);
    // A retry before the session counted it: the bucket remembers the run.
    expect(await addDaySpend(sandbox.runtime, ledger, run, 0.5)).toBe(false);
    expect((await readDay(ledger)).usd).toBeCloseTo(0.5, 9);
    // Another run of the same hour still counts.
    expect(await spend(ledger, NOW - 120_000, 0.25)).toBe(true);
    expect((await readDay(ledger)).usd).toBeCloseTo(0.75, 9);
  });

  it('leaves a run’s cost out of the day at the end of the hour 24 hours after the hour it was accepted in', async () => {
    const ledger = tenantPartition(`edge-${newId('t')}`);
    // Accepted at 12:30 the day before NOW's day.
    const accepted = NOW - DAY_MS;
    await spend(ledger, accepted, 1);
    expect((await readDay(ledger, accepted)).usd).toBe(1);
    // 24 hours later, and until the end of that hour (12:59:59.999), it is still counted.
    expect((await readDay(ledger, NOW)).usd).toBe(1);
    expect((await readDay(ledger, Date.parse('2026-12-08T12:59:59.999Z'))).usd).toBe(1);
    // From the next hour it is not.
    expect((await readDay(ledger, Date.parse('2026-12-08T13:00:00.000Z'))).usd).toBe(0);
  });

  it('keeps counting the items of the ledger before hour buckets, for the day after an in-place update', async () => {
    const ledger = tenantPartition(`old-${newId('t')}`);
    // What the code before buckets wrote, an item a run: one two hours ago, one 26 hours ago.
    for (const [at, costUsd] of [
      [NOW - 2 * HOUR_MS, 0.5],
      [NOW - DAY_MS - 2 * HOUR_MS, 4],
    ] as const) {
      const runId = newId('run');
      const createdAt = new Date(at).toISOString();
      await sandbox.runtime.db.send(
        new PutItem({
          TableName: sandbox.runtime.table,
          Item: { pk: ledger, sk: `SPEND#${createdAt}#${runId}`, type: 'spend', runId, costUsd },
        }),
      );
    }
    await spend(ledger, NOW - 2 * HOUR_MS, 0.25);
    const day = await readDay(ledger);
    expect(day.usd).toBeCloseTo(0.75, 9);
    expect(day.requests).toBe(1);
  });
});
