import { describe, expect, it } from 'vitest';
import { atScale, firstWall, type TurnProfile } from '../../bench/scale/model.ts';
import { runBench } from '../support/bench.ts';

const KNOBS = ['SAMPLE', 'SPEED', 'TENANT_SESSIONS'];

const runScale = () => runBench(['bench/scale.ts', '--smoke', '--json'], KNOBS);

interface Report {
  sample: { sessions: number; requestsPerTurn: number; profile: TurnProfile };
  points: { sessions: number; busiest?: { pattern: string; space: string; share: number } }[];
  verdicts: {
    busiestAt10k: { pattern: string; share: number; met: boolean };
    firstWall: { name: string; at: number; kind: string; met: boolean };
  };
}

describe('the scale bench (npm run bench:scale)', () => {
  it('runs a small sample of standard turns and judges 1,000 / 10,000 / 100,000 sessions: no key of the design the first wall', async () => {
    const { code, out } = await runScale();
    expect(code, out).toBe(0);
    for (const section of [
      'Scale: 3 sessions of the standard turn run for real',
      'Keys of Switchboard’s design, per standard turn',
      'The busiest key at each scale',
      'Each service against its documented quota',
      'First wall',
      'Verdicts',
    ])
      expect(out, section).toContain(`== ${section}`);
    expect(out).not.toMatch(/NaN/);
    const report = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Report;
    const { profile } = report.sample;
    // The hour buckets every session writes are sharded, and the sample wrote each of them.
    const families = new Map(profile.families.map((f) => [`${f.pattern} ${f.space}`, f]));
    for (const kind of ['run', 'conn', 'act']) {
      const family = families.get(`DUE#${kind}#<hour>#<shard> gsi1`);
      expect(family, kind).toMatchObject({ sharing: 'everyone', spread: 16 });
      expect(family?.wruPerTurn, kind).toBeGreaterThan(0);
    }
    // Nothing is written to an hour's unsharded key any more.
    expect([...families.keys()].filter((k) => /^DUE#(run|conn|act)#<hour> /.test(k))).toEqual([]);
    // The rolling-day ledgers were on: a tenant's hour bucket is a key the bench counts.
    expect(families.get('TENANT#<tenant> table')?.wruPerTurn).toBeGreaterThan(0);
    // The sweep's shard queries are counted, per minute.
    expect(profile.sweepRequestsPerMinute).toBeGreaterThanOrEqual(3 * 4 * 17);
    expect(report.points.map((p) => p.sessions)).toEqual([1_000, 10_000, 100_000]);
    expect(report.verdicts.busiestAt10k.met).toBe(true);
    expect(report.verdicts.busiestAt10k.share).toBeLessThanOrEqual(0.5);
    expect(report.verdicts.firstWall).toMatchObject({ kind: 'quota', met: true });
    expect(out).toMatch(
      /at 10,000 sessions no key of Switchboard's design above 50% of a partition's limit: met/,
    );
    expect(out).toMatch(/the first wall is a quota AWS raises on request: met/);
  }, 120_000);

  it('extrapolates linearly: a key every session shares grows with the sessions over its shards, a session’s own does not', () => {
    const profile: TurnProfile = {
      turnSeconds: 10,
      requests: { 'ApiGateway PostToConnection': 100, 'SQS SendMessage': 2, 'EventBridge PutEvents': 2 },
      wru: 100,
      rru: 50,
      families: [
        {
          space: 'gsi1',
          pattern: 'DUE#run#<hour>#<shard>',
          sharing: 'everyone',
          spread: 16,
          wruPerTurn: 4,
          rruPerTurn: 0,
        },
        {
          space: 'table',
          pattern: 'SESSION#<session>',
          sharing: 'session',
          spread: 1,
          wruPerTurn: 70,
          rruPerTurn: 50,
        },
        {
          space: 'table',
          pattern: 'TENANT#<tenant>',
          sharing: 'tenant',
          spread: 1,
          wruPerTurn: 4,
          rruPerTurn: 2,
        },
      ],
      hostMessages: 3,
      connections: 2,
      sweepRequestsPerMinute: 278,
      sweepRruPerMinute: 138,
    };
    const a = { sessionsPerOwner: 1, sessionsPerTenant: 1_000, dueShards: 16, apiInvocationSeconds: 0.05 };
    const [small, large] = [atScale(profile, a, 10_000), atScale(profile, a, 100_000)];
    const due = (p: typeof small) => p.keys.find((k) => k.family.pattern.startsWith('DUE#run'));
    // 10,000 sessions: 1,000 turns a second, 4 WRU each over 16 shards.
    expect(due(small)?.wru).toBeCloseTo(250, 9);
    expect(due(large)?.wru).toBeCloseTo(2_500, 9);
    expect(due(small)?.wallAt).toBeCloseTo(40_000, 6);
    const session = (p: typeof small) => p.keys.find((k) => k.family.pattern.startsWith('SESSION#'));
    expect(session(small)?.wru).toBeCloseTo(7, 9);
    expect(session(large)?.wru).toBeCloseTo(7, 9);
    expect(session(small)?.wallAt).toBe(Number.POSITIVE_INFINITY);
    // A tenant's key: a tenant of 1,000 sessions at 100 turns a second, whatever the deployment's size.
    const tenant = small.keys.find((k) => k.family.pattern.startsWith('TENANT#'));
    expect(tenant?.wru).toBeCloseTo(400, 9);
    // The API Gateway account throttle: 103 requests a turn, 10,000 a second at about 971 sessions.
    expect(firstWall(small)).toMatchObject({ kind: 'quota' });
    expect(small.limits[0]?.wallAt).toBeCloseTo(10_000 * (10_000 / 103_000), 6);
  });
});
