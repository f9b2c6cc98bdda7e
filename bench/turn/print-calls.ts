import type { MeterRow } from '../../sandbox/metering.ts';
import { type CostPerMillion, PRICES } from '../prices.ts';
import { fmt, mean, type Table, usd, verdict } from '../report.ts';
import type { MemorySizes } from './floors.ts';
import type { BenchOptions } from './options.ts';
import type { TurnResult } from './standard-turn.ts';
import { isEventPost, isEventWrite, isPost, isSubscriberRead, turnUsage } from './usage.ts';

/**
 * The standard turn's calls by row, the three designs side by side and their cost per million turns,
 * with the goals on requests, event-log writes and cost.
 */
export function printCalls(
  table: Table,
  goals: Table,
  o: BenchOptions,
  turns: TurnResult[],
  memory: MemorySizes,
) {
  const usage = turnUsage(o, turns, memory);
  const { per, rows, sumOf, chunks, events, windows, idleReceives } = usage;
  const { lambdaRequests, lambdaGbSeconds, common, fixed, switchboard, perToken, floor, cost } = usage;
  table.section(
    `Standard turn, ${o.turns} runs averaged: ${o.turnShape.before} chunks at ${1000 / o.turnShape.intervalMs}/s, ` +
      `${o.turnShape.toolCalls} tool calls, 1 approval, ${o.turnShape.after} chunks, ${o.connections} connections; ` +
      `stream.coalesceMs ${o.coalesceMs}${o.windowGiven ? '' : ' (default)'}; calls per turn`,
  );
  const perTokenOf = (r: MeterRow) =>
    isEventWrite(r)
      ? 'per event'
      : isSubscriberRead(r)
        ? 'per event'
        : isEventPost(r)
          ? 'per event × conn'
          : '=';
  for (const r of rows.sort((a, b) =>
    `${a.service}${a.operation}${a.kind}`.localeCompare(`${b.service}${b.operation}${b.kind}`),
  )) {
    const floorCalls = isEventWrite(r)
      ? 'per window'
      : isSubscriberRead(r)
        ? '0'
        : isEventPost(r)
          ? 'per window × conn'
          : '=';
    table.row(
      `${r.service} ${r.operation} [${r.kind}] (${r.fn})`,
      fmt(r.calls),
      perTokenOf(r),
      floorCalls,
      '',
      '',
    );
  }
  table.row(
    '  (idle SQS receives of the poller, not counted: per second, not per turn)',
    fmt(idleReceives),
    '',
    '',
    '',
    '',
  );
  table.section('Per turn, the three designs (same fixed calls)');
  table.row(
    'chunks (text emits) / other events / windows of coalesceMs',
    `${fmt(chunks, 0)} / ${fmt(events - chunks, 0)} / ${fmt(windows, 0)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'AWS requests (DynamoDB, SQS, S3, PostToConnection)',
    fmt(switchboard.calls),
    fmt(perToken.calls),
    fmt(floor.calls),
    fmt(switchboard.calls / perToken.calls, 3),
    '≤ 0.1 of per-token',
  );
  table.row(
    '  fixed (not event writes, subscriber reads or event posts)',
    fmt(fixed.calls),
    fmt(fixed.calls),
    fmt(fixed.calls),
    '',
    '',
  );
  table.row('  event-log writes', fmt(sumOf('calls', isEventWrite)), fmt(events), fmt(windows), '', '');
  table.row('  subscriber reads', fmt(sumOf('calls', isSubscriberRead)), fmt(events), '0', '', '');
  table.row(
    '  event posts (all connections)',
    fmt(sumOf('calls', isEventPost)),
    fmt(events * o.connections),
    fmt(windows * o.connections),
    '',
    '',
  );
  table.row(
    '  raw frames received per connection',
    turns[0]?.framesPerConnection.map((f) => fmt(f, 0)).join(' / ') ?? '',
    '',
    '',
    '',
    '',
  );
  table.row(
    'DynamoDB write request units',
    fmt(switchboard.wru),
    fmt(perToken.wru),
    fmt(floor.wru),
    fmt(switchboard.wru / floor.wru, 2),
    '',
  );
  table.row('  of event-log writes', fmt(sumOf('wru', isEventWrite)), fmt(events), fmt(windows), '', '');
  table.row(
    'DynamoDB read request units',
    fmt(switchboard.rru),
    fmt(perToken.rru),
    fmt(floor.rru),
    fmt(switchboard.rru / floor.rru, 2),
    '',
  );
  table.row('PostToConnection bytes', fmt(sumOf('bytes', isPost), 0), '', '', '', '');
  table.row(
    'WebSocket messages billed (posts per 32 KB + host frames + answers)',
    fmt(switchboard.webSocketMessages),
    fmt(perToken.webSocketMessages),
    fmt(floor.webSocketMessages),
    '',
    '',
  );
  table.row('connection minutes', fmt(common.connectionMinutes, 3), '=', '=', '', '');
  table.row(
    'Lambda requests / GB-s (worker, ws, http; arm64)',
    `${fmt(lambdaRequests)} / ${fmt(lambdaGbSeconds, 2)}`,
    '=',
    '=',
    '',
    '',
  );
  table.row(
    `  memory: worker ${memory.worker} MB, others ${memory.other} MB (${memory.note})`,
    '',
    '',
    '',
    '',
    '',
  );
  table.row(
    '  worker ms per invocation, job receipt to end of run (turn / answer, mean)',
    [0, 1].map((i) => fmt(mean(turns.map((t) => t.workerInvocationMs[i] ?? Number.NaN)), 0)).join(' / '),
    '',
    '',
    '',
    '',
  );
  if (turns.some((t) => t.snapshot.sum('estimated') > 0))
    table.row('  some request units computed from item sizes (no ConsumedCapacity)', '', '', '', '', '');

  table.section(
    `Cost per million standard turns, ${PRICES.region} list prices of ${PRICES.checked} (bench/prices.ts)`,
  );
  for (const service of [
    'dynamodb',
    'apiGateway',
    'sqs',
    's3',
    'lambda',
    'total',
  ] as const satisfies readonly (keyof CostPerMillion)[]) {
    table.row(
      service,
      usd(cost.switchboard[service]),
      usd(cost.perToken[service]),
      usd(cost.floor[service]),
      service === 'total' ? fmt(cost.switchboard.total / cost.floor.total, 2) : '',
      service === 'total' ? '≤ 1.5 × floor' : '',
    );
  }

  const requestRatio = switchboard.calls / perToken.calls;
  const eventWru = sumOf('wru', isEventWrite);
  const logWindows = per((t) => t.logWindows);
  goals.row(
    'AWS requests per turn ≤ 1/10 of per-token',
    fmt(switchboard.calls),
    fmt(perToken.calls / 10),
    fmt(requestRatio, 3),
    verdict(requestRatio, 0.1),
  );
  // A run drains its stream twice before a window's time is up: before it stores the answer (the
  // log must still be its own) and at its end. Each writes what was gathered: up to two writes more
  // per run than the windows of the emits' clock.
  const eventWrites = sumOf('calls', isEventWrite);
  const drains = 2 * (o.turnShape.approval ? 2 : 1);
  goals.row(
    'event-log writes per turn ≤ 1 per flush window + 2 per run (its drains)',
    fmt(eventWrites),
    fmt(logWindows + drains),
    fmt(eventWrites / (logWindows + drains), 2),
    verdict(eventWrites, logWindows + drains),
  );
  goals.row(
    'event-log WRU per write ≤ 1.25 (small writes; events over 1 KB need more in any design)',
    fmt(eventWru / eventWrites, 2),
    '1.25',
    fmt(eventWru / eventWrites / 1.25, 2),
    verdict(eventWru / eventWrites, 1.25),
  );
  goals.row(
    'cost per million turns ≤ 1.5 × floor',
    usd(cost.switchboard.total),
    usd(1.5 * cost.floor.total),
    fmt(cost.switchboard.total / cost.floor.total, 2),
    verdict(cost.switchboard.total, 1.5 * cost.floor.total),
  );
}
