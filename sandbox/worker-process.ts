/**
 * The sandbox's worker in a process of its own: the SQS poller feeding the turn worker's handler,
 * so that a test can kill it with SIGKILL mid-turn and watch the queue redeliver its job.
 *
 * Started by {@link startSandbox} with `workerProcess` (see `worker-child.ts`); configured by two
 * environment variables:
 * - SWITCHBOARD_SANDBOX_WORKER: JSON of `{ ...RuntimeConfig, queueArn, eventSource }`
 * - SWITCHBOARD_SANDBOX_AGENTS: the path of a module whose default export is a Switchboard server
 * and traces as a deployed worker's (`SWITCHBOARD_TRACING`, `SWITCHBOARD_TRACES_*`): exported over
 * OTLP to the sandbox's receiver, each invocation's spans sent before it ends.
 *
 * Prints `worker ready` on stdout once it polls; SIGTERM stops its turns (reason shutdown) and the
 * poller, then exits 0. An invocation that reaches its function timeout ends the process at once, as
 * Lambda ends an execution environment whose invocation timed out; the sandbox starts a fresh one.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Switchboard } from '../lib/agents/index.ts';
import { createRuntime } from '../lib/boot/index.ts';
import { parseSettings } from '../lib/config/index.ts';
import { jsonSchemasReady } from '../lib/contract/index.ts';
import { createWorkerHandler } from '../lib/handlers/index.ts';
import { stopAllRuns } from '../lib/runs/index.ts';
import { ExportProcessor, traceExportFromEnv } from '../lib/telemetry/export.ts';
import { flushTraces } from '../lib/telemetry/index.ts';
import { startSqsPoller } from './sqs-poller.ts';
import { type ChildConfig, TIMED_OUT_EXIT } from './worker-child.ts';

const SCRIPT = fileURLToPath(import.meta.url);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set.`);
  return value;
}

async function loadApp(file: string): Promise<Switchboard> {
  // Loaded first, so that a JSON Schema ajv cannot use fails where the agents module registers it.
  await jsonSchemasReady();
  const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  if (!(module.default instanceof Switchboard)) {
    throw new Error(`${file} must export a Switchboard server (createSwitchboard()) as its default.`);
  }
  return module.default;
}

async function main(): Promise<void> {
  const config = JSON.parse(required('SWITCHBOARD_SANDBOX_WORKER')) as ChildConfig;
  const app = await loadApp(required('SWITCHBOARD_SANDBOX_AGENTS'));
  // Spans leave as a deployed worker's do: at the end of each invocation, which waits for them.
  const exported = traceExportFromEnv(process.env, 'invocation');
  // The settings crossed a process boundary as plain JSON: parse them again so defaults and checks apply.
  const runtime = createRuntime({
    ...config,
    settings: parseSettings(config.settings as Record<string, unknown> | undefined),
    ...(exported && {
      tracing: true,
      traces: {
        processors: [new ExportProcessor(exported, { secret: (secretId) => runtime.secret(secretId) })],
        sampleRatio: exported.sampleRatio,
      },
    }),
  });
  const poller = await startSqsPoller({
    sqs: await runtime.sqs(),
    queueUrl: config.queueUrl,
    queueArn: config.queueArn,
    handler: createWorkerHandler(app, runtime),
    ...config.eventSource,
    // Killed mid-work like Lambda's timed-out environment: no turn is closed, nothing is deleted,
    // and every batch in flight here comes back after its visibility timeout.
    onTimeout: () => process.exit(TIMED_OUT_EXIT),
  });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Like the in-process sandbox's close: running turns end cleanly instead of holding stop() up.
    stopAllRuns('shutdown', runtime);
    await poller.stop().catch(() => undefined);
    // The spans of the turns it stopped go out before the process does.
    await flushTraces(runtime);
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  // stdin is a pipe from the sandbox: its end means the sandbox's process is gone, and an orphan
  // would poll a queue that no longer exists for ever.
  process.stdin.on('end', () => void stop(0));
  process.stdin.resume();
  process.stdout.write('worker ready\n');
}

// Run as a script (the sandbox starts it through startWorkerProcess in worker-child.ts).
if (process.argv[1] && resolve(process.argv[1]) === SCRIPT) {
  main().catch((error: unknown) => {
    console.error('[worker-process] could not start:', error);
    process.exit(1);
  });
}
