/**
 * The scale bench's sample: `sessions` sessions of the standard turn at once, on the sandbox, with
 * the runtime's own code, on a virtual clock `speed` times faster than the standard turn's (the
 * agent's pace, the flush window, the subscriber refresh, the cancel poll and the lease all divided
 * by it, so a turn makes the windows, reads and posts it makes at its own pace), metered by partition
 * key (`partitions.ts`) and by service (`sandbox/metering.ts`). One sweep is metered after it.
 */
import { performance } from 'node:perf_hooks';
import { parseSettings } from '../../lib/config/index.ts';
import type { HostAgentDefinition } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { meter } from '../../sandbox/metering.ts';
import { startSandbox } from '../../sandbox/sandbox.ts';
import { APPROVAL_ID, pacedAgent, STANDARD_TURN, type TurnShape } from '../support/agents.ts';
import { TEST_LIMITS } from '../support/limits.ts';
import { api, TEST_REF_KEY } from '../support/sandbox-api.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';
import { familiesOf, type ScaleAssumptions, type TurnProfile } from './model.ts';
import { meterPartitions } from './partitions.ts';

/** What the scale bench runs, from its arguments and environment. */
export interface ScaleOptions {
  /** Sessions run for real, each one standard turn (SAMPLE, 20). */
  sessions: number;
  /** How much faster than the standard turn's pace the virtual clock runs (SPEED, 2). */
  speed: number;
  /** The turn: the standard one. */
  shape: TurnShape;
  /** Tenants the sample's sessions belong to (each session has its own owner). */
  tenants: number;
  assumptions: ScaleAssumptions;
  turnTimeoutMs: number;
}

export function scaleOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ScaleOptions {
  const smoke = argv.includes('--smoke');
  const number = (name: string, fallback: number, min: number, max: number) => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`${name} must be a whole number from ${min} to ${max}; it is ${env[name]}.`);
    return value;
  };
  return {
    sessions: number('SAMPLE', smoke ? 3 : 20, 1, 200),
    // The smoke run: the standard turn still (its figures are the model's), fewer sessions, faster.
    // Faster than 2× with 20 sessions, this machine's event loop lags the 10 ms chunks: windows
    // stretch and the posts per turn fall below what the turn makes at its pace (`npm run bench`).
    speed: number('SPEED', smoke ? 4 : 2, 1, 10),
    shape: STANDARD_TURN,
    tenants: 1,
    assumptions: {
      sessionsPerOwner: 1,
      sessionsPerTenant: number('TENANT_SESSIONS', 1_000, 1, 1_000_000),
      dueShards: parseSettings(undefined).sweep.dueShards,
      apiInvocationSeconds: 0.05,
    },
    turnTimeoutMs: 120_000,
  };
}

/** What the sample made: its profile per standard turn, and how long it took here. */
export interface ScaleSample {
  profile: TurnProfile;
  sessions: number;
  wallMs: number;
  /** AWS requests per standard turn, all services but EventBridge (`npm run bench` prints the same count). */
  requestsPerTurn: number;
  /** Of them, the rolling-day ledgers' (reads and writes of `OWNER#` and `TENANT#` keys in the table). */
  ledgerRequestsPerTurn: number;
  /** How long the sweep took here, all its shards queried. */
  sweepMs: number;
}

/** Seconds a turn of `shape` streams at its own pace: its chunks and tool events, one interval each. */
export function streamSeconds(shape: TurnShape): number {
  return ((shape.before + shape.after + 2 * shape.toolCalls) * shape.intervalMs) / 1_000;
}

/** The paced agent, each run of it reporting a cost: the rolling-day ledgers are written as in production. */
function pricedAgent(paced: ReturnType<typeof pacedAgent>): HostAgentDefinition {
  const usage = { costUsd: 0.001 };
  const base = paced.definition;
  return {
    ...base,
    async invoke(input, io) {
      return { ...((await base.invoke(input, io)) as object), usage };
    },
    async resolveAction(input, io) {
      return { ...((await base.resolveAction?.(input, io)) as object), usage };
    },
  };
}

export async function sampleScale(o: ScaleOptions): Promise<ScaleSample> {
  const paced = pacedAgent();
  const app = createSwitchboard();
  app.registerHostAgent(pricedAgent(paced));
  const defaults = parseSettings(undefined);
  const fast = (ms: number, min: number) => Math.max(min, Math.round(ms / o.speed));
  const sandbox = await startSandbox({
    refKey: TEST_REF_KEY,
    app,
    port: 0,
    logLevel: 'ERROR',
    sweepPeriodMs: 3_600_000,
    visibilityTimeoutSeconds: 330,
    concurrency: o.sessions,
    // `user<i>@tenant<j>`: each session its own owner, in one of the sample's tenants.
    tokens: (token) => {
      const [user = '', tenant] = token.split('@');
      return user ? { user, ...(tenant && { tenant }) } : null;
    },
    settings: {
      limits: TEST_LIMITS,
      stream: {
        coalesceMs: fast(defaults.stream.coalesceMs, 0),
        subscriberRefreshMs: fast(defaults.stream.subscriberRefreshMs, 100),
      },
      runs: {
        cancelPollMs: fast(defaults.runs.cancelPollMs, 50),
        leaseMs: fast(defaults.runs.leaseMs, 1_000),
      },
      budgets: { perUserDailyUsd: 1_000_000, perTenantDailyUsd: 1_000_000 },
    },
  });
  const partitions = meterPartitions(sandbox.runtimes);
  const services = meter(sandbox.runtimes);
  const shape = { ...o.shape, intervalMs: o.shape.intervalMs / o.speed };
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: o.sessions }, async (_, i) => {
        const token = `user${i}@tenant${i % o.tenants}`;
        const sessionId = `scale-${i}`;
        const url = `${sandbox.wsUrl}?token=${encodeURIComponent(token)}`;
        const [sender, joiner] = [await TestSocket.open(url), await TestSocket.open(url)];
        try {
          const accepted = await sender.request({
            action: 'assistant_message',
            session_id: sessionId,
            agent_id: 'paced',
            content: JSON.stringify(shape),
          });
          if (accepted.type !== 'assistant:accepted')
            throw new Error(`not accepted: ${JSON.stringify(accepted)}`);
          await joiner.request({ action: 'assistant_join_session', session_id: sessionId, after_seq: 0 });
          paced.release(sessionId);
          await sender.waitFor(turnEnded(accepted.run_id), 'the turn to pause', o.turnTimeoutMs);
          let runId = accepted.run_id;
          if (shape.approval) {
            const answer = await api<{ run_id: string }>(
              sandbox.url,
              'POST',
              `/api/sessions/${sessionId}/actions/${APPROVAL_ID}`,
              { decision: 'approve' },
              { token },
            );
            if (answer.status !== 202)
              throw new Error(`the answer was refused: ${answer.status} ${answer.text}`);
            runId = answer.json.run_id;
          }
          await joiner.waitFor(turnEnded(runId), 'the turn to end', o.turnTimeoutMs);
        } finally {
          await Promise.all([sender.close(), joiner.close()]);
          paced.forget(sessionId);
        }
      }),
    );
    const wallMs = performance.now() - started;
    // What is left of the turns' work (a disconnect's deletes) before the meters are read.
    await new Promise((r) => setTimeout(r, 500));
    const loads = partitions.loads();
    const dynamo = partitions.requests();
    const snapshot = services.snapshot();
    const requests: Record<string, number> = {};
    for (const [operation, count] of Object.entries(dynamo))
      requests[`DynamoDB ${operation}`] = count / o.sessions;
    for (const row of snapshot.rows) {
      if (row.service === 'DynamoDB' || row.kind === 'idle-receive') continue;
      const name = `${row.service} ${row.operation}`;
      requests[name] = (requests[name] ?? 0) + row.calls / o.sessions;
    }
    partitions.reset();
    const sweepStarted = performance.now();
    await sandbox.sweep();
    const sweepMs = performance.now() - sweepStarted;
    const sweepLoads = partitions.loads();
    const sweepRequests = Object.values(partitions.requests()).reduce((s, n) => s + n, 0);
    const units = (field: 'wru' | 'rru') => loads.reduce((s, l) => s + l[field], 0) / o.sessions;
    const profile: TurnProfile = {
      turnSeconds: streamSeconds(o.shape),
      requests,
      wru: units('wru'),
      rru: units('rru'),
      families: familiesOf(loads, o.sessions, o.sessions, o.assumptions.dueShards),
      // The message and the join over WebSocket, the answer over HTTP.
      hostMessages: 2 + (shape.approval ? 1 : 0),
      connections: 2,
      sweepRequestsPerMinute: sweepRequests,
      sweepRruPerMinute: sweepLoads.reduce((s, l) => s + l.rru, 0),
    };
    const requestsPerTurn = Object.entries(requests)
      .filter(([name]) => !name.startsWith('EventBridge'))
      .reduce((s, [, n]) => s + n, 0);
    const ledgerRequestsPerTurn =
      loads
        .filter((l) => l.space === 'table' && /^(OWNER|TENANT)#/.test(l.key))
        .reduce((s, l) => s + l.reads + l.writes, 0) / o.sessions;
    return { profile, sessions: o.sessions, wallMs, requestsPerTurn, ledgerRequestsPerTurn, sweepMs };
  } finally {
    partitions.stop();
    services.stop();
    await sandbox.close();
  }
}
