import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadAgentsModule } from './agents-module.ts';
import { faultReportText, parseFaults } from './aws/index.ts';
import { DEV_AUDIENCE } from './dev-key.ts';
import { chooseModel, startDevModel } from './dev-model.ts';
import { devTokensText } from './dev-tokens.ts';
import { eventLine } from './event-bus.ts';
import { formatError } from './readable-log.ts';
import { startSandbox } from './sandbox.ts';
import { parseTtl, UsageError } from './token-command.ts';
import { packageFile } from './web.ts';

/**
 * Where a page of the docs is, as the person who runs the command can open it: the package ships
 * its docs/ (`node_modules/switchboard/docs/…` in a team's project, `docs/…` in this repository).
 */
export function docsPath(page = ''): string {
  const found = packageFile(`docs/${page}`);
  if (!found) return `docs/${page}`;
  const absolute = fileURLToPath(found);
  const path = relative(process.cwd(), absolute);
  const shown = path.startsWith('..') || isAbsolute(path) ? absolute : path;
  return page === '' ? `${shown.replace(/\/$/, '')}/` : shown;
}

/**
 * `switchboard dev`: the sandbox with the demo host page, serving the agents module given by
 * `--agents`. This repository's `npm start` runs it with its demo agent (`--agents demo/agents.ts`).
 */
export const DEV_USAGE = `Usage: switchboard dev --agents FILE [options]

  --agents FILE    a module whose default export is a Switchboard server (createSwitchboard()); a .ts
                   module is loaded with tsx. It is loaded again when it, or a local file it imports,
                   changes: sessions and everything else the sandbox holds stay
  --no-watch       do not reload the agents module when it changes
  --settings FILE  a JSON file of runtime settings (${docsPath('configuration.md')}), as the construct's settings
                   prop; a bad one stops the sandbox at start-up with the field it names
  --port N         port of the page, the HTTP API and the WebSocket API (default 3000, or PORT; 0 picks
                   a free one). A port in use stops it at start-up with what to do
  --host ADDR      the address it listens on (default 127.0.0.1)
  --allow-host NAME
                   answer requests for NAME too (e.g. 10.0.2.2, the Android emulator's name for this
                   computer); repeat it for more. Only localhost, 127.0.0.1, [::1] and the --host
                   address are answered otherwise: a request naming another host gets 403
  --data DIR       keep DynamoDB's data in DIR across restarts (in memory without it)
  --persist        the same, in .sandbox-data
  --sweep-ms N     how often the sweep runs (default 60000, the EventBridge rule's rate)
  --faults SEED[:heavy]
                   throttle, fail and time out the functions' AWS calls now and then (2% each), drawn
                   from SEED; :heavy adds bursts of throttled or timed-out calls past the SDK's
                   retries. What was injected is at GET /sandbox/faults, and printed on exit
  --anonymous      no authentication: every caller is the same anonymous user (default: JWTs of the
                   development key, as the stack's built-in auth)
  --user NAME      print a token of the development key for NAME at start-up, with a curl and a wscat
                   command that use it; repeat it for more users (or: switchboard token --user NAME)
  --tenant NAME    the tenant claim of those tokens
  --token-ttl T    how long those tokens are valid: seconds, or a number with s, m, h or d (default 12h)
  --json-logs      print the functions' log as the JSON lines Lambda writes, instead of readable lines
  --model KIND     the model the agents call: scripted (the sandbox's scripted OpenAI-compatible
                   endpoint; the default without OPENAI_API_KEY) or endpoint (a real one: the default
                   with OPENAI_API_KEY). The agents find it in SWITCHBOARD_MODEL_BASE_URL and
                   SWITCHBOARD_MODEL_API_KEY (${docsPath('models.md')})
  --model-script FILE
                   the scripted model's rules: a JSON file, or a module whose default export they are;
                   read again when it changes; not used when OPENAI_API_KEY alone chose a real endpoint
  --model-base-url URL
                   the real endpoint (default OPENAI_BASE_URL, else https://api.openai.com/v1), called
                   with the key in OPENAI_API_KEY

The agents' errors and warnings (a throw, an invalid result or event, a retried job, a lapsed request,
a budget reached) are printed on standard error with the agent, session and run, and the stack frames
of the agent's own files. LOG_LEVEL (default WARN) sets how much is printed.`;

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

/** The command line, parsed: a mistake is a {@link UsageError}. */
function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowNegative: true,
      options: {
        port: { type: 'string', default: process.env.PORT ?? '3000' },
        host: { type: 'string', default: '127.0.0.1' },
        'allow-host': { type: 'string', multiple: true, default: [] },
        data: { type: 'string' },
        persist: { type: 'boolean', default: false },
        agents: { type: 'string' },
        watch: { type: 'boolean', default: true },
        'sweep-ms': { type: 'string', default: '60000' },
        faults: { type: 'string' },
        anonymous: { type: 'boolean', default: false },
        user: { type: 'string', multiple: true, default: [] },
        tenant: { type: 'string' },
        'token-ttl': { type: 'string', default: '12h' },
        'json-logs': { type: 'boolean', default: false },
        settings: { type: 'string' },
        model: { type: 'string' },
        'model-script': { type: 'string' },
        'model-base-url': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message, DEV_USAGE);
  }
}

/** `--user`, `--tenant` and `--token-ttl`, checked before anything starts. */
function tokenOptions(values: ReturnType<typeof parse>) {
  const users = values.user.map((user) => user.trim());
  if (users.some((user) => user === ''))
    throw new UsageError('--user must name someone (got an empty name).', DEV_USAGE);
  if (users.length > 0 && values.anonymous)
    throw new UsageError(
      '--user makes tokens, and --anonymous takes none: give one or the other.',
      DEV_USAGE,
    );
  const tenant = values.tenant?.trim();
  if (tenant === '') throw new UsageError('--tenant must not be empty when given.', DEV_USAGE);
  let ttlSeconds: number;
  try {
    ttlSeconds = parseTtl(values['token-ttl']);
  } catch (error) {
    throw new UsageError((error as Error).message.replace('--ttl', '--token-ttl'), DEV_USAGE);
  }
  return { users, ...(tenant && { tenant }), ttlSeconds };
}

/** `--allow-host`: host names (or addresses), without a scheme, path or port. */
function allowHosts(values: ReturnType<typeof parse>): string[] {
  const names = values['allow-host'].map((name) => name.trim());
  const bad = names.find(
    (name) => isIP(name.replace(/^\[(.*)\]$/, '$1')) === 0 && !/^[^:/?#@[\]\s]+$/.test(name),
  );
  if (bad !== undefined)
    throw new UsageError(
      `--allow-host takes a host name or address, without a scheme, path or port (got "${bad}").`,
      DEV_USAGE,
    );
  return names;
}

/** The agents module's file: `--agents` names a file that must exist. */
function agentsFile(file: string | undefined): string {
  if (file === undefined)
    throw new UsageError('--agents FILE is required: the module that registers your agents.', DEV_USAGE);
  if (!existsSync(resolve(file))) throw new UsageError(`--agents: ${file} does not exist.`, DEV_USAGE);
  return file;
}

/**
 * A port or address the sandbox could not listen on, said with the flag that picks another (instead
 * of Node's bare `listen EADDRINUSE`); undefined for any other error.
 */
export function listenProblem(error: unknown): Error | undefined {
  const failed = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (failed?.syscall !== 'listen') return undefined;
  const { address, port } = failed;
  switch (failed.code) {
    case 'EADDRINUSE':
      return new Error(
        `Port ${port} on ${address} is in use: another sandbox or server listens there. ` +
          'Stop it, or pick another port with --port N (--port 0 picks a free one).',
      );
    case 'EACCES':
      return new Error(
        `Port ${port} on ${address} needs privileges this user lacks: pick a port above 1023 with --port N.`,
      );
    case 'EADDRNOTAVAIL':
      return new Error(
        `--host ${address} is not an address of this machine: pick one of its own with --host ADDR (default 127.0.0.1).`,
      );
    default:
      return undefined;
  }
}

/** Starts the sandbox from the command line's arguments and stops it on SIGINT or SIGTERM. */
export async function devCommand(args: string[]): Promise<void> {
  const values = parse(args);
  if (values.help) {
    console.log(DEV_USAGE);
    return;
  }
  const faults = values.faults === undefined ? undefined : parseFaults(values.faults);
  if (values.faults !== undefined && !faults) {
    throw new UsageError(
      `--faults takes a seed, a whole number, and :heavy for bursts (got "${values.faults}").`,
      DEV_USAGE,
    );
  }
  const tokens = tokenOptions(values);
  const allowHost = allowHosts(values);
  const dataDir =
    values.data !== undefined
      ? resolve(values.data || '.sandbox-data')
      : values.persist
        ? resolve('.sandbox-data')
        : undefined;
  const settings = values.settings === undefined ? undefined : readSettings(values.settings);
  const modelChoice = chooseModel(values, process.env, DEV_USAGE);
  const file = agentsFile(values.agents);
  // Before the agents module loads: it may read where its model is as it registers its agents.
  const model = await startDevModel(modelChoice, DEV_USAGE);
  const agents = await loadAgentsModule(file, { reloadable: values.watch });
  const sandbox = await startSandbox({
    app: agents.app,
    ...(settings && { settings }),
    port: Number(values.port),
    host: values.host,
    ...(allowHost.length > 0 && { allowHosts: allowHost }),
    dataDir,
    sweepPeriodMs: Number(values['sweep-ms']),
    jwt: !values.anonymous,
    // The functions' spans go to the sandbox's own OTLP receiver: `inspect --trace`, /sandbox/inspect.
    traces: { receiver: true },
    readableLogs: !values['json-logs'],
    // Domain events, one line each, as a rule on the bus would see them.
    onEvent: (event) => console.log(eventLine(event)),
    ...(faults && { faults }),
  }).catch(async (error: unknown) => {
    agents.close();
    await model.close();
    throw listenProblem(error) ?? error;
  });
  console.log(`Switchboard sandbox is running.
  Page:       ${sandbox.url}/
  HTTP API:   ${sandbox.url}/api
  WebSocket:  ${sandbox.wsUrl}
  AG-UI:      ${sandbox.aguiUrl} (${docsPath('ag-ui.md')})
  Inspector:  ${sandbox.url}/sandbox/inspect (each turn's trace; switchboard inspect SESSION --trace)
  Agents:     ${values.agents}${values.watch ? ' (reloaded when it changes)' : ''}
  Model:      ${model.line}
  Auth:       ${values.anonymous ? 'none: every caller is anonymous' : `JWTs of the development key, audience ${DEV_AUDIENCE} (switchboard token --user NAME); the page gets its own`}
  Data:       ${dataDir ?? 'in memory (pass --data to keep it)'}
  Docs:       ${docsPath()} (agents.md: writing an agent; hosts.md: the client)${faults ? `\n  Faults:     injected, seed ${faults.seed} (${faults.profile}); what so far: ${sandbox.url}/sandbox/faults` : ''}`);
  if (tokens.users.length > 0)
    console.log(await devTokensText({ ...tokens, url: sandbox.url, wsUrl: sandbox.wsUrl }));
  console.log('Press Ctrl+C to stop.');
  if (values.watch) {
    model.watch();
    agents.watch({
      reloaded(app) {
        sandbox.reload(app);
        console.log(`Reloaded agents from ${values.agents}`);
      },
      failed(error) {
        console.error(
          `Could not reload agents from ${values.agents}; the agents loaded before keep serving.\n${formatError(error)}`,
        );
      },
    });
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    if (sandbox.faults) console.log(faultReportText(sandbox.faults.report()));
    agents.close();
    await sandbox.close();
    await model.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
