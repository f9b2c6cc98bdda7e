import { describe, expect, it } from 'vitest';
import { runBench } from '../support/bench.ts';

/** Every section the bench prints, and every goal it judges: a phase that stops printing fails here. */
const SECTIONS = [
  'Standard turn, 1 runs averaged',
  'Per turn, the three designs',
  'Cost per million standard turns',
  'Emit-to-client latency',
  'Cancel: an agent waiting on its backend',
  'Lambda bundles (bench/bundles.ts)',
  '2 sessions at once',
  'Goals',
];
const GOALS = [
  'AWS requests per turn ≤ 1/10 of per-token',
  'event-log writes per turn ≤ 1 per flush window + 2 per run',
  'event-log WRU per write ≤ 1.25',
  'cost per million turns ≤ 1.5 × floor',
  "a run's first chunk p50 ≤ one event-log write + one post + 5 ms",
  'chunk latency p50 ≤ coalesceMs / 2 + 2 × bare post p50',
  'cancel p99 < 1 s',
  'bundle http < 500 KB minified',
  'bundle http cold import < 2 × empty node',
  '2 sessions: nothing lost, duplicated or out of order',
  "2 sessions: Switchboard's CPU per turn ≤ 1.5 × one session's",
  '2 sessions: p99 ≤ 10 × single-session p99',
];

/** The environment variables that change what the bench measures. */
const BENCH_KNOBS = ['TURNS', 'SESSIONS', 'CANCELS', 'WINDOW_MS', 'MANY_DEADLINE_MS', 'RUNS'];

/** Runs a bench script in its smoke configuration; its output and exit code. */
const runSmoke = (args = ['bench/turn.ts', '--smoke'], env: Record<string, string> = {}) =>
  runBench(args, BENCH_KNOBS, env);

describe('the bench', () => {
  it('runs every phase to the end in its smoke configuration and prints every section and goal', async () => {
    const { code, out } = await runSmoke();
    expect(code, out).toBe(0);
    for (const section of SECTIONS) expect(out, section).toContain(`== ${section}`);
    for (const goal of GOALS) expect(out, goal).toContain(goal);
    // A cold start as Lambda runs it: the HTTP bundle's import and its first request, timed.
    expect(out).toMatch(/http: import \+ first request ms \(a session read, local table\)\s+[\d.]+/);
    // A figure the bench could not compute prints as NaN: a phase that measured nothing.
    expect(out).not.toMatch(/NaN/);
    expect(out).toMatch(/bench took [\d.]+ s/);
  }, 240_000);

  it('measures trace export (npm run bench:traces) with one turn per row: every row and the X-Ray exporter', async () => {
    const { code, out } = await runSmoke(['bench/traces.ts'], { TURNS: '1' });
    expect(code, out).toBe(0);
    expect(out).toContain('== Trace export in the sandbox');
    expect(out).toContain('== The X-Ray exporter');
    // Four rows: a flush at each invocation's end and the batch, each with and without a slow receiver.
    expect(
      out.match(
        /^(flush at the end of each invocation|batched \(background\))\s+\d+ ms\s+[\d.]+ \/ [\d.]+/gm,
      ),
    ).toHaveLength(4);
    expect(out).toMatch(/^\d+\s+[\d.]+\s+[\d.]+\s+\d+$/m);
    expect(out).not.toMatch(/NaN/);
  }, 120_000);
});
