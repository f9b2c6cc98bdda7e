import type { MeterRow } from '../../sandbox/metering.ts';
import { costPerMillion, type TurnUsage } from '../prices.ts';
import { mean } from '../report.ts';
import type { MemorySizes } from './floors.ts';
import type { BenchOptions } from './options.ts';
import type { TurnResult } from './standard-turn.ts';

/** A metered row of the event log's writes. */
export const isEventWrite = (r: MeterRow) => r.kind === 'event-write';
/** A metered row of the reads of a session's subscribers. */
export const isSubscriberRead = (r: MeterRow) => r.kind === 'subscriber-read';
/** A metered row of the posts of events to the hosts. */
export const isEventPost = (r: MeterRow) => r.kind === 'event-post';
/** A metered row of the calls a turn makes whatever it streams. */
export const isFixed = (r: MeterRow) => !isEventWrite(r) && !isSubscriberRead(r) && !isEventPost(r);
/** A metered row of PostToConnection. */
export const isPost = (r: MeterRow) => r.service === 'ApiGateway' && r.operation === 'PostToConnection';

/** A design's usage per turn, and its AWS requests. */
export type DesignUsage = TurnUsage & { calls: number };

/**
 * The standard turn's usage, averaged over its runs: the metered calls by row, and the same turn in
 * three designs (Switchboard's, one write, read and post per event, and the floor of one write and
 * one post per window), with their cost per million turns.
 */
export function turnUsage(o: BenchOptions, turns: TurnResult[], memory: MemorySizes) {
  const per = (f: (t: TurnResult) => number) => mean(turns.map(f));
  const rowsPerTurn = new Map<string, MeterRow & { perTurn: number }>();
  for (const t of turns) {
    for (const r of t.snapshot.rows) {
      if (r.kind === 'idle-receive') continue;
      const key = `${r.service} ${r.operation} ${r.kind} ${r.fn}`;
      const acc = rowsPerTurn.get(key) ?? {
        ...r,
        calls: 0,
        rru: 0,
        wru: 0,
        bytes: 0,
        requestUnits: 0,
        perTurn: 0,
      };
      acc.calls += r.calls / o.turns;
      acc.rru += r.rru / o.turns;
      acc.wru += r.wru / o.turns;
      acc.bytes += r.bytes / o.turns;
      acc.requestUnits += r.requestUnits / o.turns;
      rowsPerTurn.set(key, acc);
    }
  }
  const rows = [...rowsPerTurn.values()];
  const sumOf = (field: 'calls' | 'rru' | 'wru' | 'bytes' | 'requestUnits', f: (r: MeterRow) => boolean) =>
    rows.filter(f).reduce((s, r) => s + r[field], 0);
  const all = () => true;

  const chunks = per((t) => t.chunks);
  const events = chunks + per((t) => t.otherEvents);
  const windows = per((t) => t.emitWindows);
  const idleReceives = mean(turns.map((t) => t.snapshot.count((r) => r.kind === 'idle-receive')));

  // Usage common to all three designs: Lambda, connection minutes, SQS, S3, HTTP, host frames.
  const lambdaGbSeconds = per(
    (t) =>
      ((memory.worker / 1024) * t.workerInvocationMs.reduce((a, b) => a + Math.ceil(b), 0)) / 1000 +
      ((memory.other / 1024) *
        [...t.wsInvocationMs, ...t.httpInvocationMs].reduce((a, b) => a + Math.ceil(b), 0)) /
        1000,
  );
  const lambdaRequests = per(
    (t) => t.workerInvocationMs.length + t.wsInvocationMs.length + t.httpInvocationMs.length,
  );
  const hostMessages = per((t) => 2 * t.hostFrames); // each frame a host sends, and its route answer
  const common = {
    connectionMinutes: per((t) => t.connectionMinutes),
    httpRequests: per((t) => t.httpInvocationMs.length),
    sqsRequests: sumOf('requestUnits', (r) => r.service === 'SQS'),
    s3Puts: sumOf(
      'calls',
      (r) => r.service === 'S3' && /^(Put|Copy|Post|List|Create|Upload)/.test(r.operation),
    ),
    s3Gets: sumOf(
      'calls',
      (r) => r.service === 'S3' && !/^(Put|Copy|Post|List|Create|Upload)/.test(r.operation),
    ),
    lambdaRequests,
    lambdaGbSeconds,
  };
  const fixed = {
    calls: sumOf('calls', isFixed),
    wru: sumOf('wru', isFixed),
    rru: sumOf('rru', isFixed),
    wsMessages: sumOf('requestUnits', (r) => isFixed(r) && isPost(r)) + hostMessages,
  };
  const switchboard: DesignUsage = {
    calls: sumOf('calls', all),
    wru: sumOf('wru', all),
    rru: sumOf('rru', all),
    webSocketMessages: sumOf('requestUnits', isPost) + hostMessages,
    ...common,
  };
  // Per-token: every chunk and every other event is one item written, one subscriber Query (1 RRU,
  // strongly consistent, a few small items) and one post (one 32 KB unit) per connection.
  const perToken: DesignUsage = {
    calls: fixed.calls + events * (2 + o.connections),
    wru: fixed.wru + events,
    rru: fixed.rru + events,
    webSocketMessages: fixed.wsMessages + events * o.connections,
    ...common,
  };
  // The floor: one small write per storage window, one post per connection per live window (both windows
  // are coalesceMs), no subscriber read.
  const floor: DesignUsage = {
    calls: fixed.calls + windows * (1 + o.connections),
    wru: fixed.wru + windows,
    rru: fixed.rru,
    webSocketMessages: fixed.wsMessages + windows * o.connections,
    ...common,
  };
  const cost = {
    switchboard: costPerMillion(switchboard),
    perToken: costPerMillion(perToken),
    floor: costPerMillion(floor),
  };
  return {
    per,
    rows,
    sumOf,
    chunks,
    events,
    windows,
    idleReceives,
    lambdaRequests,
    lambdaGbSeconds,
    common,
    fixed,
    switchboard,
    perToken,
    floor,
    cost,
  };
}
