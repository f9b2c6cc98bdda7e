import { createSwitchboard, type Switchboard } from '../../lib/index.ts';
import { type Meter, type MeteredCall, meter } from '../../sandbox/metering.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import { idleAgent, pacedAgent } from '../support/agents.ts';
import { TEST_LIMITS } from '../support/limits.ts';
import { TEST_REF_KEY } from '../support/sandbox-api.ts';
import type { BenchOptions } from './options.ts';

/** The bench's sandbox, its agents and the meter on its functions' AWS calls. */
export interface Bench {
  options: BenchOptions;
  app: Switchboard;
  paced: ReturnType<typeof pacedAgent>;
  idle: ReturnType<typeof idleAgent>;
  sandbox: Sandbox;
  meter: Meter;
  /** Worker job receipts (`performance.now()`), for the worker's billed duration; a phase empties it. */
  receipts: number[];
}

/** Waits `ms`: the bench lets the sandbox settle between phases, so one phase's calls are not the next's. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the bench's sandbox with the paced and idle agents, metered. */
export async function startBench(options: BenchOptions): Promise<Bench> {
  const paced = pacedAgent();
  const idle = idleAgent();
  const app = createSwitchboard();
  app.registerHostAgent(paced.definition);
  app.registerHostAgent(idle.definition);
  const sandbox = await startSandbox({
    // The key refOf keys refs with, so the bench names its sessions by ref as the sandbox stores them.
    refKey: TEST_REF_KEY,
    app,
    port: 0,
    logLevel: 'ERROR',
    // The sweep runs once an hour here: its calls are not a turn's.
    sweepPeriodMs: 3_600_000,
    // Far above what 200 sessions of one (anonymous) user send; the production defaults would refuse them.
    settings: { limits: TEST_LIMITS, stream: { coalesceMs: options.coalesceMs } },
  });
  const bench: Bench = { options, app, paced, idle, sandbox, meter: meter(sandbox.runtimes), receipts: [] };
  bench.meter.onCall = (call: MeteredCall) => {
    if (call.fn === 'worker' && call.kind === 'job-receive') bench.receipts.push(call.at);
  };
  return bench;
}
