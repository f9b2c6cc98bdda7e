/**
 * The sandbox's side of its worker process (`sandbox/worker-process.ts`): starts the child, waits
 * until it polls, starts a fresh one when an invocation's timeout ended it (as Lambda replaces an
 * execution environment), and stops it with the sandbox.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RuntimeConfig } from '../lib/boot/index.ts';
import type { EmfDocument, MetricsSink } from '../lib/telemetry/index.ts';
import type { EventSourceOptions } from './sqs-poller.ts';

/** The exit code of a child whose invocation timed out: the sandbox starts a fresh child. */
export const TIMED_OUT_EXIT = 75;

/** What the child is configured with. */
export type ChildConfig = RuntimeConfig & { queueArn?: string; eventSource?: EventSourceOptions };

/** The worker child as the sandbox sees it. */
export interface WorkerProcess {
  /** The current child's process id. */
  readonly pid: number;
  /** Sends a signal to the child; resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Starts a fresh child (stopping the current one first if it still runs); resolves once it polls. */
  restart(): Promise<void>;
}

/** Options of {@link startWorkerProcess}. */
export interface WorkerProcessOptions {
  config: ChildConfig;
  /** The agents module the child serves (default export = a Switchboard server). */
  agents: string;
  /** More environment for the child (the agents module may read it). */
  env?: Record<string, string>;
  /** How long to wait for `worker ready`. Default 20 000. */
  readyTimeoutMs?: number;
  /** Told each metrics document (EMF) the child prints; without it they are printed here as they come. */
  onMetrics?: MetricsSink;
  /**
   * Where the child exports its spans (the sandbox's OTLP receiver) and the share of traces it keeps:
   * it reads them as a deployed function reads its `SWITCHBOARD_TRACES_*`. Without it the child does
   * not trace (an in-memory exporter of the sandbox's process cannot reach it).
   */
  traces?: { endpoint: string; sampleRatio?: number };
}

/** The child's tracing as a deployed function's environment names it (lib/telemetry/export.ts). */
function tracesEnv(traces: WorkerProcessOptions['traces']): Record<string, string> {
  if (!traces) return { SWITCHBOARD_TRACING: 'false' };
  return {
    SWITCHBOARD_TRACING: 'true',
    SWITCHBOARD_TRACES_ENDPOINT: traces.endpoint,
    ...(traces.sampleRatio !== undefined && { SWITCHBOARD_TRACES_SAMPLE_RATIO: String(traces.sampleRatio) }),
  };
}

/** An EMF document the child printed, or undefined for any other line. */
function metricsIn(line: string): EmfDocument | undefined {
  if (!line.startsWith('{"_aws"')) return undefined;
  try {
    return JSON.parse(line) as EmfDocument;
  } catch {
    return undefined;
  }
}

/**
 * The child's script, run with `--import tsx` (for a TypeScript agents module) from the package's
 * root: the built one beside this file when the sandbox runs from the build (`dist/sandbox/`).
 */
const SCRIPT = [
  new URL('./worker-process.js', import.meta.url),
  new URL('./worker-process.ts', import.meta.url),
]
  .map((url) => fileURLToPath(url))
  .find((path) => existsSync(path)) as string;
const ROOT = resolve(dirname(SCRIPT), '..');

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function spawnChild(options: WorkerProcessOptions): Promise<ChildProcess> {
  // `--import tsx` (resolved from the repository's root) loads the TypeScript sources as the
  // sandbox runs them, without the extra process the tsx CLI would start.
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...options.env,
      ...tracesEnv(options.traces),
      SWITCHBOARD_SANDBOX_WORKER: JSON.stringify(options.config),
      SWITCHBOARD_SANDBOX_AGENTS: resolve(options.agents),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const forward = (chunk: Buffer) => {
    stderr = (stderr + String(chunk)).slice(-4_000);
    process.stderr.write(chunk);
  };
  // Both pipes are always read: a child whose pipe fills up would block in the middle of a write.
  child.stderr?.on('data', forward);
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`The worker process was not ready in ${options.readyTimeoutMs ?? 20_000} ms.\n${stderr}`),
      );
    }, options.readyTimeoutMs ?? 20_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`The worker process exited before it was ready (${signal ?? code}).\n${stderr}`));
    };
    child.once('exit', onExit);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    lines.on('line', (line) => {
      const metrics = options.onMetrics && metricsIn(line);
      if (line === 'worker ready') {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolveReady();
      } else if (metrics) {
        options.onMetrics?.(metrics);
      } else {
        process.stdout.write(`${line}\n`);
      }
    });
  });
  return child;
}

/**
 * Runs the sandbox's poller and worker in a child process, so that it can really die: a SIGKILL
 * leaves its messages in flight until their visibility timeout, as a lost Lambda does.
 */
export async function startWorkerProcess(
  options: WorkerProcessOptions,
): Promise<WorkerProcess & { stop(): Promise<void> }> {
  let child = await spawnChild(options);
  let respawning: Promise<void> | undefined;
  let stopped = false;
  // A child whose invocation timed out ended itself: like Lambda, start a fresh one for what comes next.
  const watch = (current: ChildProcess) =>
    current.once('exit', (code) => {
      if (code !== TIMED_OUT_EXIT || stopped || current !== child) return;
      respawning = spawnChild(options)
        .then((fresh) => {
          child = fresh;
          watch(fresh);
        })
        .catch((error: unknown) => console.error('[worker-process] could not start a fresh worker:', error))
        .finally(() => {
          respawning = undefined;
        });
    });
  watch(child);
  const stop = async () => {
    await respawning;
    const current = child;
    if (current.exitCode !== null || current.signalCode !== null) return;
    const done = exited(current);
    current.kill('SIGTERM');
    // A child that does not stop in time is not allowed to outlive the sandbox.
    const timer = setTimeout(() => current.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
  };
  return {
    get pid() {
      return child.pid ?? -1;
    },
    async kill(signal) {
      const done = exited(child);
      child.kill(signal);
      await done;
    },
    async restart() {
      await stop();
      child = await spawnChild(options);
      watch(child);
    },
    async stop() {
      stopped = true;
      await stop();
    },
  };
}
