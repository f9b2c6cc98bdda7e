import { describe, expect, it } from 'vitest';
import { entrySize, PUT_EVENTS_LIMITS, putEventsCalls } from '../../lib/events/index.ts';

const entry = (detailBytes: number) => ({
  Source: 'switchboard',
  DetailType: 'Pause Opened',
  Detail: JSON.stringify({ note: 'x'.repeat(Math.max(0, detailBytes - 11)) }),
  Time: new Date(0),
});

describe('PutEvents calls', () => {
  it('sends at most ten entries a call', () => {
    const calls = putEventsCalls(Array.from({ length: 23 }, () => entry(100)));
    expect(calls.map((c) => c.length)).toEqual([10, 10, 3]);
  });

  it('keeps each call within 256 KB, in order, and gives an entry over it a call of its own', () => {
    const entries = [entry(100_000), entry(100_000), entry(100_000), entry(300_000), entry(10)];
    const calls = putEventsCalls(entries);
    expect(calls.map((c) => c.length)).toEqual([2, 1, 1, 1]);
    expect(calls.flat()).toEqual(entries);
    for (const call of calls.filter((c) => c.length > 1)) {
      expect(call.reduce((sum, e) => sum + entrySize(e), 0)).toBeLessThanOrEqual(PUT_EVENTS_LIMITS.bytes);
    }
  });
});
