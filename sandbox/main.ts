import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Switchboard } from '../lib/agents/index.ts';
import { jsonSchemasReady } from '../lib/contract/index.ts';
import { startSandbox } from './sandbox.ts';

const USAGE = `Usage: npm start -- [--port 3000] [--host 127.0.0.1] [--data DIR | --persist] [--agents FILE] [--sweep-ms 60000] [--faults SEED] [--anonymous]

  --port      port of the page, the HTTP API and the WebSocket API (default 3000; 0 picks one)
  --data DIR  keep DynamoDB's data in DIR across restarts (in memory without it)
  --persist   the same, in .sandbox-data
  --agents    a module whose default export is a Switchboard server (default: the demo agent)
  --sweep-ms  how often the sweep runs (default 60000, the EventBridge rule's rate)
  --faults    throttle, fail and time out the functions' AWS calls now and then (2% each), drawn from SEED
  --anonymous no authentication: every caller is the same anonymous user (default: JWTs of the
              development key, as the stack's built-in auth; mint one with npm run token -- --user NAME)`;

/** The rates `--faults` injects on every service, each per call. */
const DEMO_FAULT_RATES = { throttle: 0.02, error: 0.02, timeout: 0.02 };

async function loadApp(file: string | undefined): Promise<Switchboard> {
  // Loaded first, so that a JSON Schema ajv cannot use fails where the agents module registers it.
  await jsonSchemasReady();
  const module = (await (file ? import(pathToFileURL(resolve(file)).href) : import('#agents'))) as {
    default?: unknown;
  };
  if (!(module.default instanceof Switchboard)) {
    throw new Error(
      `${file ?? 'the agents module'} must export a Switchboard server (createSwitchboard()) as its default.`,
    );
  }
  return module.default;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string' },
      persist: { type: 'boolean', default: false },
      agents: { type: 'string' },
      'sweep-ms': { type: 'string', default: '60000' },
      faults: { type: 'string' },
      anonymous: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
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
  const sandbox = await startSandbox({
    app: await loadApp(values.agents),
    port: Number(values.port),
    host: values.host,
    dataDir,
    sweepPeriodMs: Number(values['sweep-ms']),
    jwt: !values.anonymous,
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
  Auth:       ${values.anonymous ? 'none: every caller is anonymous' : 'JWTs of the development key (npm run token -- --user NAME); the page gets its own'}
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

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
