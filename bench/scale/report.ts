import { fmt } from '../report.ts';
import {
  atScale,
  firstWall,
  type KeyUse,
  PARTITION_RRU,
  PARTITION_WRU,
  type ScaleAssumptions,
  type ScalePoint,
} from './model.ts';
import type { ScaleSample } from './run.ts';

/** The session counts the bench extrapolates to. */
export const SCALES = [1_000, 10_000, 100_000] as const;

/** What the bench judges. */
export interface ScaleVerdicts {
  /** At 10,000 sessions, the busiest key of Switchboard's design, and whether it is at most half a partition's limit. */
  busiestAt10k: { pattern: string; space: string; share: number; met: boolean };
  /** The first wall as sessions grow, and whether it is a quota AWS raises (not a key of the design). */
  firstWall: { name: string; at: number; kind: 'quota' | 'key'; met: boolean };
}

/** The sample's profile at each scale, and the verdicts. */
export function judge(
  sample: ScaleSample,
  a: ScaleAssumptions,
): { points: ScalePoint[]; verdicts: ScaleVerdicts } {
  const points = SCALES.map((n) => atScale(sample.profile, a, n));
  const at10k = points[1] as ScalePoint;
  const busiest = at10k.busiest;
  const wall = firstWall(at10k);
  return {
    points,
    verdicts: {
      busiestAt10k: {
        pattern: busiest?.family.pattern ?? 'none',
        space: busiest?.family.space ?? 'table',
        share: busiest?.share ?? 0,
        met: (busiest?.share ?? 0) <= 0.5,
      },
      firstWall: { ...wall, met: wall.kind === 'quota' },
    },
  };
}

const pct = (share: number) => `${fmt(share * 100, share < 0.1 ? 2 : 1)}%`;
const count = (x: number) =>
  Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : x > 0 ? 'never' : '—';
const key = (k: KeyUse | undefined) => (k ? `${k.family.pattern} (${k.family.space})` : 'none');

/** Pads the cells of rows to their columns' widths. */
function columns(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The bench's report, as printed. */
export function printScale(
  sample: ScaleSample,
  a: ScaleAssumptions,
  options: { speed: number; benchRequestsPerTurn?: number },
): string {
  const { points, verdicts } = judge(sample, a);
  const p = sample.profile;
  const out: string[] = [];
  out.push(
    `== Scale: ${sample.sessions} sessions of the standard turn run for real, extrapolated ==`,
    `sample: ${sample.sessions} sessions at once, one standard turn each (2 connections, the approval answered), on a virtual clock ${options.speed}× the turn's pace; ${fmt(sample.wallMs / 1_000)} s here`,
    `per standard turn: ${fmt(sample.requestsPerTurn)} AWS requests (DynamoDB, SQS, PostToConnection), of them ${fmt(sample.ledgerRequestsPerTurn)} the rolling-day ledgers' (limits on, an owner's and a tenant's: ${fmt(sample.requestsPerTurn - sample.ledgerRequestsPerTurn)} without; npm run bench, without: 233); ${fmt(p.wru)} WRU and ${fmt(p.rru)} RRU over the table and its indexes`,
    `extrapolation: N sessions turn back to back, N / ${fmt(p.turnSeconds, 2)} s standard turns a second (the turn's own streaming time); a session's keys take one session's load, an owner's ${a.sessionsPerOwner} session, a tenant's ${a.sessionsPerTenant.toLocaleString('en-US')} (TENANT_SESSIONS), an hour's due bucket every session's over sweep.dueShards = ${a.dueShards}`,
    `the sweep, once a minute: ${fmt(p.sweepRequestsPerMinute, 0)} requests (every shard of 4 hours of 3 kinds at once, and the unsharded keys), ${fmt(p.sweepRruPerMinute)} RRU, ${fmt(sample.sweepMs, 0)} ms here (its function's timeout: 55 s): per minute, not per turn`,
    '',
    '== Keys of Switchboard’s design, per standard turn (busiest key of each pattern) ==',
  );
  out.push(
    columns([
      ['key', 'space', 'shared by', 'WRU/turn', 'RRU/turn'],
      ...p.families
        .filter((f) => f.wruPerTurn + f.rruPerTurn > 0)
        .sort((x, y) => y.wruPerTurn - x.wruPerTurn)
        .map((f) => [
          f.pattern,
          f.space,
          f.sharing === 'everyone'
            ? `every session${f.spread > 1 ? `, ${f.spread} shards` : ''}`
            : `one ${f.sharing}`,
          fmt(f.wruPerTurn, 2),
          fmt(f.rruPerTurn, 2),
        ]),
    ]),
    '',
    `== The busiest key at each scale (a partition: ${PARTITION_WRU.toLocaleString('en-US')} WRU/s, ${PARTITION_RRU.toLocaleString('en-US')} RRU/s) ==`,
  );
  out.push(
    columns([
      ['sessions', 'turns/s', 'busiest key of the design', 'WRU/s', 'RRU/s', 'share of a partition'],
      ...points.map((pt) => [
        pt.sessions.toLocaleString('en-US'),
        fmt(pt.turnsPerSecond, 0),
        key(pt.busiest),
        fmt(pt.busiest?.wru ?? 0),
        fmt(pt.busiest?.rru ?? 0),
        pct(pt.busiest?.share ?? 0),
      ]),
    ]),
    '',
    '== Each service against its documented quota ==',
  );
  const first = points[0] as ScalePoint;
  out.push(
    columns([
      [
        'quota',
        'limit',
        ...points.map((pt) => `at ${pt.sessions.toLocaleString('en-US')}`),
        'reached at (sessions)',
      ],
      ...first.limits.map((l, i) => [
        l.quota.name,
        `${l.quota.limit.toLocaleString('en-US')} ${l.quota.unit}`,
        ...points.map((pt) => {
          const use = pt.limits[i];
          return use ? `${count(use.use)} (${pct(use.share)})` : '—';
        }),
        count(l.wallAt),
      ]),
    ]),
    '',
    '== First wall ==',
  );
  const at10k = points[1] as ScalePoint;
  const walls = [
    ...at10k.limits.map((l) => ({ name: l.quota.name, at: l.wallAt, raise: l.quota.raise })),
    ...at10k.keys
      .filter((k) => Number.isFinite(k.wallAt))
      .map((k) => ({
        name: `partition ${k.family.pattern} (${k.family.space})`,
        at: k.wallAt,
        raise: 'code',
      })),
  ]
    .sort((x, y) => x.at - y.at)
    .slice(0, 4);
  for (const [i, w] of walls.entries())
    out.push(`${i + 1}. ${w.name}: at about ${count(w.at)} sessions; raise: ${w.raise}`);
  out.push(
    '',
    '== Verdicts ==',
    `at 10,000 sessions no key of Switchboard's design above 50% of a partition's limit: ${verdicts.busiestAt10k.met ? 'met' : 'NOT met'} (busiest ${verdicts.busiestAt10k.pattern} (${verdicts.busiestAt10k.space}) ${pct(verdicts.busiestAt10k.share)})`,
    `the first wall is a quota AWS raises on request: ${verdicts.firstWall.met ? 'met' : 'NOT met'} (${verdicts.firstWall.name} at about ${count(verdicts.firstWall.at)} sessions)`,
  );
  return out.join('\n');
}
