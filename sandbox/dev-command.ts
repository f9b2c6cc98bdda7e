import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Switchboard } from '../lib/agents/index.ts';
import { jsonSchemasReady } from '../lib/contract/index.ts';
import { eventLine } from './event-bus.ts';
import { startSandbox } from './sandbox.ts';
import { UsageError } from './token-command.ts';

/**
 * `switchboard dev`: the sandbox with the demo host page, serving the agents module given by
 * `--agents`. This repository's `npm start` runs it with its demo agent (`--agents demo/agents.ts`).
 */
export const DEV_USAGE = `Usage: switchboard dev --agents FILE [--settings FILE] [--port 3000] [--host 127.0.0.1] [--data DIR | --persist] [--sweep-ms 60000] [--faults SEED] [--anonymous]

  --agents    a module whose default export is a Switchboard server (createSwitchboard()); a .ts
              module is loaded with tsx
  --settings  a JSON file of runtime settings (docs/configuration.md), as the construct's settings prop;
              a bad one stops the sandbox at start-up with the field it names
  --port      port of the page, the HTTP API and the WebSocket API (default 3000; 0 picks one)
  --data DIR  keep DynamoDB's data in DIR across restarts (in memory without it)
  --persist   the same, in .sandbox-data
  --sweep-ms  how often the sweep runs (default 60000, the EventBridge rule's rate)
  --faults    throttle, fail and time out the functions' AWS calls now and then (2% each), drawn from SEED
  --anonymous no authentication: every caller is the same anonymous user (default: JWTs of the
              development key, as the stack's built-in auth; mint one with switchboard token --user NAME)`;

/** The rates `--faults` injects on every service, each per call. */
const DEMO_FAULT_RATES = { throttle: 0.02, error: 0.02, timeout: 0.02 };

/** The `--settings` file: a JSON object (its fields are checked by startSandbox, before anything starts). */
function readSettings(file: string): Record<string, unknown> {
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`--settings: ${file} does not exist.`, DEV_USAGE);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--settings: ${file} is not valid JSON (${(error as Error).message}).`, DEV_USAGE);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`--settings: ${file} must hold a JSON object.`, DEV_USAGE);
  }
  // startSandbox checks every field, once the JSON Schema checker the settings need is loaded.
  return value as Record<string, unknown>;
}

/** Imports the agents module; TypeScript through tsx (a dependency), when Node is not already loading it. */
async function loadApp(file: string): Promise<Switchboard> {
  // Loaded first, so that a JSON Schema ajv cannot use fails where the agents module registers it.
  await jsonSchemasReady();
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`--agents: ${file} does not exist.`, DEV_USAGE);
  // From the sources (this repository's npm start) a TypeScript loader is already there.
  if (/\.[cm]?tsx?$/.test(path) && !import.meta.url.endsWith('.ts')) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  const module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  if (!(module.default instanceof Switchboard)) {
    throw new Error(
      `${file} must export a Switchboard server (createSwitchboard() from 'switchboard') as its default.`,
    );
  }
  return module.default;
}

/** Starts the sandbox from the command line's arguments and stops it on SIGINT or SIGTERM. */
export async function devCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string' },
      persist: { type: 'boolean', default: false },
      agents: { type: 'string' },
      'sweep-ms': { type: 'string', default: '60000' },
      faults: { type: 'string' },
      anonymous: { type: 'boolean', default: false },
      settings: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(DEV_USAGE);
    return;
  }
  if (values.agents === undefined) {
    throw new UsageError('--agents FILE is required: the module that registers your agents.', DEV_USAGE);
  }
  if (values.faults !== undefined && !/^\d+$/.test(values.faults)) {
    throw new Error(`--faults takes a seed, a whole number (got "${values.faults}").`);
  }
  const dataDir =
    values.data !== undefined
      ? resolve(values.data || '.sandbox-data')
      : values.persist
        ? resolve('.sandbox-data')
        : undefined;
  const settings = values.settings === undefined ? undefined : readSettings(values.settings);
  const sandbox = await startSandbox({
    app: await loadApp(values.agents),
    ...(settings && { settings }),
    port: Number(values.port),
    host: values.host,
    dataDir,
    sweepPeriodMs: Number(values['sweep-ms']),
    jwt: !values.anonymous,
    // Domain events, one line each, as a rule on the bus would see them.
    onEvent: (event) => console.log(eventLine(event)),
    ...(values.faults !== undefined && {
      faults: {
        seed: Number(values.faults),
        rates: {
          dynamodb: DEMO_FAULT_RATES,
          sqs: DEMO_FAULT_RATES,
          s3: DEMO_FAULT_RATES,
          connections: DEMO_FAULT_RATES,
        },
      },
    }),
  });
  console.log(`Switchboard sandbox is running.
  Page:       ${sandbox.url}/
  HTTP API:   ${sandbox.url}/api
  WebSocket:  ${sandbox.wsUrl}
  Auth:       ${values.anonymous ? 'none: every caller is anonymous' : 'JWTs of the development key (switchboard token --user NAME); the page gets its own'}
  Data:       ${dataDir ?? 'in memory (pass --data to keep it)'}${values.faults !== undefined ? `\n  Faults:     injected, seed ${values.faults}` : ''}
Press Ctrl+C to stop.`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    await sandbox.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
