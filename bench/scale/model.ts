/**
 * From what a sample of sessions made per standard turn to what N continuously streaming sessions
 * make per second, and where that meets a limit. Pure arithmetic: `bench/scale/run.ts` measures,
 * `bench/scale.ts` prints, `test/bench/scale.test.ts` checks the verdicts.
 *
 * The extrapolation (docs/performance.md, "Scaling on AWS"): every session turns continuously, so N
 * sessions make N / T standard turns a second, T being the standard turn's own streaming time (its
 * chunks and tool events at its pace, 11.08 s), whatever the machine took. A request count or a
 * unit sum per turn is multiplied by that rate. A partition key's load depends on how many sessions
 * share it:
 * - a session's own keys (`SESSION#`, `CONN#`, …): one session's turns, whatever N;
 * - an owner's or a tenant's (`OWNER#`, `TENANT#`, their rate counters): the sessions of one owner
 *   (`sessionsPerOwner`) or one tenant (`sessionsPerTenant`);
 * - an hour's due bucket (`DUE#<kind>#<hour>#<shard>`): every session, spread over the shards by a
 *   hash of the item's id (evenly: `test/unit/due-shards.test.ts`), so N sessions' share divided by
 *   `sweep.dueShards`; the unsharded key (`DUE#file#<hour>`, and items written before shards) all N.
 */
import type { PartitionLoad, Space } from './partitions.ts';

/** A partition's limits, for the table and each index alike. */
export const PARTITION_WRU = 1_000;
export const PARTITION_RRU = 3_000;

/** How a key's load grows with the sessions. */
export type Sharing = 'session' | 'owner' | 'tenant' | 'everyone';

/** Keys of one pattern (ids and hours replaced by their names) in one space, as the sample made them. */
export interface KeyFamily {
  space: Space;
  pattern: string;
  sharing: Sharing;
  /** The keys of the family that every session shares at one time (the shards of an hour); 1 else. */
  spread: number;
  /** Units per standard turn on the busiest key of the family, for one session (or one turn of all). */
  wruPerTurn: number;
  rruPerTurn: number;
}

/** What the sample measured, per standard turn. */
export interface TurnProfile {
  /** Seconds one standard turn streams (the extrapolation's T). */
  turnSeconds: number;
  /** Requests per turn by service and operation (`DynamoDB PutItem`, `ApiGateway PostToConnection`, …). */
  requests: Record<string, number>;
  /** Table units per turn, all keys. */
  wru: number;
  rru: number;
  families: KeyFamily[];
  /** Hosts' frames and HTTP requests per turn (API Gateway messages and requests). */
  hostMessages: number;
  /** Connections per session, opened once a session (API Gateway closes them after 2 hours). */
  connections: number;
  /** The sweep's requests and read units a minute (per sweep, not per turn). */
  sweepRequestsPerMinute: number;
  sweepRruPerMinute: number;
}

/** The assumptions of the extrapolation that are not measured. */
export interface ScaleAssumptions {
  sessionsPerOwner: number;
  sessionsPerTenant: number;
  dueShards: number;
  /** Seconds an API function's invocation takes (its concurrency = requests/s × this). */
  apiInvocationSeconds: number;
}

/** A documented quota (docs/performance.md, "Sources of the limits"). */
export interface Quota {
  name: string;
  limit: number;
  unit: string;
  /** What to raise, and how. */
  raise: string;
}

export const QUOTAS = {
  apiGateway: {
    name: 'API Gateway account throttle (PostToConnection, WebSocket messages, HTTP requests)',
    limit: 10_000,
    unit: 'requests/s',
    raise: 'a quota increase (Service Quotas: API Gateway throttle rate)',
  },
  wsConnects: {
    name: 'WebSocket new connections',
    limit: 500,
    unit: 'connects/s',
    raise: 'a quota increase (new connections per second)',
  },
  tableWrites: {
    name: 'DynamoDB table-level write throughput (on-demand)',
    limit: 40_000,
    unit: 'WRU/s',
    raise: 'Service Quotas: table-level write throughput; warm throughput before launch',
  },
  tableReads: {
    name: 'DynamoDB table-level read throughput (on-demand)',
    limit: 40_000,
    unit: 'RRU/s',
    raise: 'Service Quotas: table-level read throughput',
  },
  lambda: {
    name: 'Lambda concurrent executions (account)',
    limit: 1_000,
    unit: 'concurrent',
    raise: 'Service Quotas: concurrent executions (to "tens of thousands")',
  },
  eventSource: {
    name: 'SQS event source concurrency (one function)',
    limit: 1_250,
    unit: 'concurrent',
    raise: 'AWS Support',
  },
  sqsSends: {
    name: 'SQS FIFO high-throughput SendMessage (us-east-1)',
    limit: 70_000,
    unit: 'TPS',
    raise: 'AWS Support (per Region, per action)',
  },
  sqsInFlight: {
    name: 'SQS FIFO in-flight messages',
    limit: 120_000,
    unit: 'messages',
    raise: 'AWS Support',
  },
  eventBridge: {
    name: 'EventBridge PutEvents (us-east-1)',
    limit: 10_000,
    unit: 'requests/s',
    raise: 'Service Quotas: PutEvents throttle limit',
  },
} satisfies Record<string, Quota>;

/** One limit's use at N sessions. */
export interface LimitUse {
  quota: Quota;
  use: number;
  share: number;
  /** The sessions at which it reaches its limit (linear in N). */
  wallAt: number;
}

/** A key's load at N sessions. */
export interface KeyUse {
  family: KeyFamily;
  wru: number;
  rru: number;
  /** Of a partition's limit, the larger of writes and reads. */
  share: number;
  /** The sessions at which it reaches a partition's limit (Infinity: it does not grow with N). */
  wallAt: number;
}

/** What N sessions make of the sample's turn. */
export interface ScalePoint {
  sessions: number;
  turnsPerSecond: number;
  keys: KeyUse[];
  busiest: KeyUse | undefined;
  limits: LimitUse[];
}

const sessionsSharing = (family: KeyFamily, sessions: number, a: ScaleAssumptions) => {
  switch (family.sharing) {
    case 'session':
      return 1;
    case 'owner':
      return Math.min(a.sessionsPerOwner, sessions);
    case 'tenant':
      return Math.min(a.sessionsPerTenant, sessions);
    case 'everyone':
      return sessions / family.spread;
  }
};

/** The load of every key family, and of every documented quota, at `sessions`. */
export function atScale(profile: TurnProfile, a: ScaleAssumptions, sessions: number): ScalePoint {
  const turnsPerSecond = sessions / profile.turnSeconds;
  const keys = profile.families.map((family) => {
    const sharing = sessionsSharing(family, sessions, a);
    const wru = (family.wruPerTurn * sharing) / profile.turnSeconds;
    const rru = (family.rruPerTurn * sharing) / profile.turnSeconds;
    const share = Math.max(wru / PARTITION_WRU, rru / PARTITION_RRU);
    // Where it meets a partition's limit: a key every session shares at N = spread / one session's
    // share; an owner's or a tenant's only if its sessions (at most the assumption) get it there.
    const perSession = sharing > 0 ? share / sharing : 0;
    const most = family.sharing === 'everyone' ? Infinity : sessionsSharing(family, Infinity, a);
    const spread = family.sharing === 'everyone' ? family.spread : 1;
    const wallAt = perSession > 0 && perSession * most >= 1 ? spread / perSession : Infinity;
    return { family, wru, rru, share, wallAt };
  });
  const busiest = [...keys].sort((x, y) => y.share - x.share)[0];
  const perSecond = (operation: string) => (profile.requests[operation] ?? 0) * turnsPerSecond;
  const posts = perSecond('ApiGateway PostToConnection');
  const limit = (quota: Quota, use: number): LimitUse => ({
    quota,
    use,
    share: use / quota.limit,
    wallAt: use > 0 ? (sessions * quota.limit) / use : Infinity,
  });
  const apiRequests = posts + profile.hostMessages * turnsPerSecond;
  const apiConcurrency = profile.hostMessages * turnsPerSecond * a.apiInvocationSeconds;
  const sweepRru = profile.sweepRruPerMinute / 60;
  const limits = [
    limit(QUOTAS.apiGateway, apiRequests),
    limit(QUOTAS.wsConnects, (sessions * profile.connections) / 7_200),
    limit(QUOTAS.tableWrites, profile.wru * turnsPerSecond),
    limit(QUOTAS.tableReads, profile.rru * turnsPerSecond + sweepRru),
    // A turn holds a worker invocation for its whole length: plan for one per streaming session.
    limit(QUOTAS.lambda, sessions + apiConcurrency),
    limit(QUOTAS.eventSource, sessions),
    limit(QUOTAS.sqsSends, perSecond('SQS SendMessage')),
    limit(QUOTAS.sqsInFlight, sessions),
    limit(QUOTAS.eventBridge, perSecond('EventBridge PutEvents')),
  ];
  return { sessions, turnsPerSecond, keys, busiest, limits };
}

/** The first limit N sessions meet as sessions grow: a quota, or a key of Switchboard's design. */
export function firstWall(point: ScalePoint): { name: string; at: number; kind: 'quota' | 'key' } {
  const walls = [
    ...point.limits.map((l) => ({ name: l.quota.name, at: l.wallAt, kind: 'quota' as const })),
    ...point.keys.map((k) => ({
      name: `partition ${k.family.pattern} (${k.family.space})`,
      at: k.wallAt,
      kind: 'key' as const,
    })),
  ].sort((x, y) => x.at - y.at);
  return walls[0] ?? { name: 'none', at: Infinity, kind: 'quota' };
}

/** A key's pattern: its ids and hours named, its shard kept as `<shard>`. */
export function patternOf(key: string): { pattern: string; sharing: Sharing; sharded: boolean } {
  const due = /^DUE#(\w+)#\d{4}-\d\d-\d\dT\d\d(#\d+)?$/.exec(key);
  if (due)
    return {
      pattern: `DUE#${due[1]}#<hour>${due[2] ? '#<shard>' : ''}`,
      sharing: 'everyone',
      sharded: due[2] !== undefined,
    };
  const rules: [RegExp, string, Sharing][] = [
    [/^SESSION#/, 'SESSION#<session>', 'session'],
    [/^CONN#/, 'CONN#<connection>', 'session'],
    [/^RATE#CONN#/, 'RATE#CONN#<connection>', 'session'],
    [/^RATE#OWNER#/, 'RATE#OWNER#<owner>', 'owner'],
    [/^OWNER#/, 'OWNER#<owner>', 'owner'],
    [/^TENANT#/, 'TENANT#<tenant>', 'tenant'],
    [/^FILE#/, 'FILE#<file>', 'session'],
  ];
  for (const [test, pattern, sharing] of rules)
    if (test.test(key)) return { pattern, sharing, sharded: false };
  return { pattern: key, sharing: 'everyone', sharded: false };
}

/**
 * The key families of a sample's loads: per family, the busiest key's units per turn of one session
 * (a session's, owner's or tenant's key) or all the sample's units per turn (a key every session
 * shares, whose spread is then the shard count).
 */
export function familiesOf(
  loads: PartitionLoad[],
  turns: number,
  sessionsInSample: number,
  shards: number,
): KeyFamily[] {
  const groups = new Map<
    string,
    { space: Space; pattern: string; sharing: Sharing; sharded: boolean; keys: PartitionLoad[] }
  >();
  for (const load of loads) {
    const { pattern, sharing, sharded } = patternOf(load.key);
    const id = `${load.space}|${pattern}`;
    const group = groups.get(id) ?? { space: load.space, pattern, sharing, sharded, keys: [] };
    group.keys.push(load);
    groups.set(id, group);
  }
  const turnsPerSession = turns / sessionsInSample;
  return [...groups.values()].map((g) => {
    if (g.sharing === 'everyone') {
      const wru = g.keys.reduce((s, k) => s + k.wru, 0) / turns;
      const rru = g.keys.reduce((s, k) => s + k.rru, 0) / turns;
      return {
        space: g.space,
        pattern: g.pattern,
        sharing: g.sharing,
        spread: g.sharded ? shards : 1,
        wruPerTurn: wru,
        rruPerTurn: rru,
      };
    }
    // The sample gives every owner and tenant one session of its own or shares them: per session.
    const sessionsPerKey = g.sharing === 'session' ? 1 : sessionsInSample / g.keys.length;
    const per = (field: 'wru' | 'rru') =>
      Math.max(...g.keys.map((k) => k[field])) / sessionsPerKey / turnsPerSession;
    return {
      space: g.space,
      pattern: g.pattern,
      sharing: g.sharing,
      spread: 1,
      wruPerTurn: per('wru'),
      rruPerTurn: per('rru'),
    };
  });
}
