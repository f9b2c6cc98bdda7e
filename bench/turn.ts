/**
 * What a turn costs and how fast it streams, on the sandbox, as one table: the AWS calls of the
 * standard turn (500 text chunks at 50 chunks/s, 2 backend tool calls, 1 approval answered, 50 chunks
 * more, 2 connections joined) by service, operation and kind, its request units and post bytes, beside
 * the same turn in a per-token design and at the floor; its cost per million turns by service; emit-to-
 * client latency beside the raw WebSocket and bare PostToConnection floors; 200 sessions streaming at
 * once; bundle sizes and cold imports (bench/bundles.ts); and cancel latency.
 *
 * bench/turn/measure.ts measures; this file prints what it measured, and the goals.
 *
 * Run: `npm run bench` (all of it), `npm run bench:cancel` (the cancel part). TURNS (3), SESSIONS
 * (200) and CANCELS (10) change the counts.
 */
import { performance } from 'node:perf_hooks';
import { fmt, quantile, Table } from './report.ts';
import { measure } from './turn/measure.ts';
import { benchOptions } from './turn/options.ts';
import { printBundles } from './turn/print-bundles.ts';
import { printCalls } from './turn/print-calls.ts';
import { printCancel } from './turn/print-cancel.ts';
import { printLatency } from './turn/print-latency.ts';
import { printMany } from './turn/print-many.ts';

const benchStarted = performance.now();
const options = benchOptions(process.argv, process.env);
const figures = await measure(options);

const table = new Table(['measure', 'Switchboard', 'per-token', 'floor / target', 'ratio', 'goal']);
const goals = new Table(['goal', 'figure', 'floor / target', 'ratio', 'verdict']);
const { turn } = figures;
if (turn) {
  printCalls(table, goals, options, turn.turns, turn.memory);
  printLatency(table, goals, options, turn.turns, turn.floors);
}
printCancel(table, goals, options, figures.cancel, figures.cancelPollMs);
if (turn) {
  printBundles(table, goals, turn.bundles);
  // The standard turn's p99 emit-to-client latency: the many sessions' yardstick.
  const singleP99 = quantile(
    turn.turns.flatMap((t) => t.latencies),
    0.99,
  );
  printMany(table, goals, options, { one: turn.one, many: turn.many, singleP99 });
}

console.log(table.toString());
console.log('\n== Goals ==');
console.log(goals.toString());
console.log(`\nbench took ${fmt((performance.now() - benchStarted) / 1000)} s`);
// A 200-session run cut short leaves its sandbox working on the backlog: the exit ends it.
process.exit(0);
