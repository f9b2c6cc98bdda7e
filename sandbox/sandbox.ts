import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { WEBSOCKET_IDENTITY_SOURCES } from '../infra/routes.ts';
import type { Switchboard } from '../lib/agents/index.ts';
import { type AguiAuthenticate, createAguiHandler, jwtAuthentication } from '../lib/agui/index.ts';
import {
  type AuthConfig,
  bearerToken,
  createConnectAuthorizer,
  type JwtVerifier,
} from '../lib/auth/index.ts';
import { createJwtVerifier } from '../lib/auth/jwt.ts';
import { createRuntime } from '../lib/boot/index.ts';
import {
  allows,
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  type FunctionName,
  type Permissions,
  parseSettings,
  type Runtime,
  type TraceSettings,
} from '../lib/config/index.ts';
import {
  AGUI_CORS,
  HTTP_API_CORS,
  HTTP_ROUTES,
  jsonSchemasReady,
  WEBSOCKET_ROUTES,
} from '../lib/contract/index.ts';
import { UnauthorizedError } from '../lib/errors/index.ts';
import {
  createHttpHandler,
  createSweepHandler,
  createWebSocketHandler,
  createWorkerHandler,
} from '../lib/handlers/index.ts';
import { closeMcpConnections } from '../lib/models/mcp/client.ts';
import { stopAllRuns, stopRunsOf } from '../lib/runs/index.ts';
import { ContextLogFormatter } from '../lib/telemetry/index.ts';
import { type FaultOptions, type FaultPlan, secretArn, startFronts } from './aws/index.ts';
import { serveContract } from './contract.ts';
import { DISCOVERY_PATH, serveDevAuth } from './dev-auth.ts';
import { DEV_AUDIENCE, DEV_ISSUER } from './dev-key.ts';
import { type ReceivedEvent, startEventBus } from './event-bus.ts';
import {
  type HttpApiOptions,
  lambdaPolicyAuthorizer,
  startGateway,
  type WebSocketApiOptions,
} from './gateway/index.ts';
import { serveInspector } from './inspector-page.ts';
import { MetricsCollector } from './metrics.ts';
import { sandboxResources, serveFaults, serveOperate } from './operate.ts';
import { ReadableLogger, type ReadableOutput } from './readable-log.ts';
import { startSchedule } from './schedule.ts';
import { startSecretsManager } from './secrets-manager.ts';
import { SANDBOX_CREDENTIALS, SANDBOX_NAMES, SANDBOX_REGION, startLocalServices } from './services.ts';
import { type EventSourceOptions, type SqsPoller, startSqsPoller } from './sqs-poller.ts';
import { OTLP_TRACES_PATH, TraceReceiver } from './trace-receiver.ts';
import { serveDemoPage } from './web.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-child.ts';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** The server whose agents are served. */
  app: Switchboard;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The address it listens on. Default '127.0.0.1'. */
  host?: string;
  /**
   * Host names it answers to besides the loopback ones (`localhost`, `127.0.0.1`, `[::1]`) and
   * `host`, e.g. `10.0.2.2`, as the Android emulator reaches this machine. Any route (and WebSocket
   * upgrade) a request names another host for is answered 403: a page that rebinds its own name to
   * this machine's address reaches nothing. `/sandbox/*` (its tokens, the operator endpoint) also
   * refuses a browser request whose `Origin` is on none of those names.
   */
  allowHosts?: readonly string[];
  /** Keep DynamoDB's data in this directory across restarts; in memory when absent. */
  dataDir?: string;
  /**
   * The session-ref key (at least 32 bytes): what the construct's secret holds on AWS. Default: the
   * one kept in `dataDir` (made on the first start), or a new one for a sandbox in memory.
   */
  refKey?: string;
  /** Runtime settings, as SWITCHBOARD_SETTINGS would carry them. */
  settings?: Record<string, unknown>;
  /** How often the sweep runs (the EventBridge rule's rate). Default 60 000. */
  sweepPeriodMs?: number;
  /** The turns queue's visibility timeout: how long a failed job waits before it comes back. Default 30. */
  visibilityTimeoutSeconds?: number;
  /** WebSocket limits, shortened by tests. */
  idleTimeoutMs?: number;
  maxConnectionMs?: number;
  logLevel?: string;
  /**
   * Trace the functions (OpenTelemetry). With `receiver: true` (as `switchboard dev` starts it) they
   * export with the OTLP/HTTP exporter (JSON, batched) to the sandbox's own receiver
   * (`POST /sandbox/otlp/v1/traces`), as a deployed stack's export to X-Ray or a team's backend;
   * `switchboard inspect <session> --trace` and the inspector page (`/sandbox/inspect`) read what it
   * kept. `processors` send them to a test's own (an in-memory exporter) too, with their share of
   * traces kept. Absent or `false`, the functions do not trace (a test's default: spans cost time).
   * A worker in a child process (`workerProcess`) exports to the receiver only (with `receiver: true`):
   * `processors` live in this process.
   */
  traces?: (TraceSettings & { receiver?: boolean }) | false;
  /**
   * Who a bearer token is (HTTP `Authorization: Bearer …`, WebSocket `?token=…`), as an API Gateway
   * authoriser would say; null refuses the request (403). Without it every caller is `anonymous`.
   */
  tokens?: (token: string) => { user: string; tenant?: string } | null;
  /**
   * Verify JWTs as a stack with built-in `auth` does: the HTTP API as API Gateway's JWT authoriser
   * (401 for a missing or refused token, the claims in `requestContext.authorizer.jwt.claims`), the
   * WebSocket API with the same `$connect` authoriser the stack deploys. Tokens are those of the
   * development key (sandbox/dev-key.ts: `mintDevToken`, `switchboard token`), for `audience`
   * (default `['switchboard-sandbox']`); the sandbox serves the key's discovery document and key set,
   * and the demo page's token at `/sandbox/token`. Not with `tokens`.
   */
  jwt?: boolean | { audience?: string[] };
  /**
   * Run the SQS poller and the worker in a child process instead of in this one, so that a test
   * can kill it mid-turn. `agents` is the absolute path of a module whose default export is a
   * Switchboard server serving the same agents as `app`; `env` is added to the child's environment.
   */
  workerProcess?: { agents: string; env?: Record<string, string> };
  /**
   * How the queue feeds the worker, as the stack configures its event source: `batchSize`
   * (`workerBatchSize`, default 10), `maxConcurrency` (`workerMaxConcurrency`, default 1000) and the
   * function's `timeoutMs` (`workerTimeout`, default 300 000), at which an invocation is abandoned.
   */
  worker?: EventSourceOptions;
  /**
   * Fault injection: throttling, 5xx answers and timeouts on the functions' DynamoDB, SQS, S3 and
   * `@connections` calls, each at a rate per service, drawn from a seed (see sandbox/aws/faults.ts).
   */
  faults?: FaultOptions;
  /** The grants each function's calls are checked against. Default: what the stack deploys. */
  permissions?: Permissions;
  /**
   * Endpoint keys for model agents' `apiKeyFromSecret`, by secret name: the sandbox's Secrets Manager
   * holds them (ARN: `secretArn(name, SANDBOX_REGION)`), and the worker may read them as the
   * construct's `models.secrets` lets it, no other function.
   */
  modelSecrets?: Readonly<Record<string, string>>;
  /** The functions' clock (every time they read), so that a test can hold time still or move it on. Default `Date.now`. */
  clock?: () => number;
  /** The AG-UI function's timeout, at which its stream is cut off. Default 900 000, the stack's. */
  aguiTimeoutMs?: number;
  /**
   * How many invocations of the HTTP function, and of the WebSocket function, run at once. Past it the
   * gateway answers as API Gateway past its throttling, before the function runs (so nothing of the
   * request is stored): `429 {"message":"Too Many Requests"}`, on WebSocket a frame
   * `{"message": "Too Many Requests", …}` (a `$connect` refused with 429). Default 64.
   */
  concurrency?: number;
  /**
   * Print the functions' log for a person (see sandbox/readable-log.ts) instead of Powertools'
   * JSON lines: `true` on standard error, or to the output given. `switchboard dev` turns it on.
   * Not for the worker's child process (`workerProcess`), which keeps the JSON lines.
   */
  readableLogs?: boolean | ReadableOutput;
  /** Told of each domain event the sandbox's EventBridge bus takes, as it arrives (`switchboard dev` prints them). */
  onEvent?: (event: ReceivedEvent) => void;
}

/** Where the sandbox serves the AG-UI endpoint (on AWS, a function URL of its own). */
export const AGUI_PATH = '/agui';

/** A running sandbox. */
export interface Sandbox {
  url: string;
  wsUrl: string;
  /** The AG-UI endpoint: `${url}/agui` (POST, or `/agui/{agentId}` for one agent). */
  aguiUrl: string;
  /** What tokens the sandbox takes, with the `jwt` option. */
  auth?: AuthConfig;
  runtime: Runtime;
  /** Each function's runtime: its clients sign as its role and go through the sandbox's checks. */
  runtimes: Record<FunctionName, Runtime>;
  /** The faults injected so far, with the `faults` option. */
  faults?: FaultPlan;
  /**
   * What the functions published as CloudWatch metrics (EMF), read back; also served at
   * `GET /sandbox/metrics`. With `workerProcess`, the worker child's too: it prints them, the sandbox reads them.
   */
  metrics: MetricsCollector;
  /**
   * The traces the functions exported to the sandbox's OTLP receiver (with `traces.receiver`, as
   * `switchboard dev` sets it), also served at `GET /sandbox/traces`.
   */
  traces: TraceReceiver;
  /** Runs the sweep now, as the schedule would. */
  sweep(): Promise<void>;
  /**
   * The domain events published so far on the sandbox's EventBridge bus (docs/operations.md,
   * "Domain events"), oldest first, as a rule's target would receive them.
   */
  events(): ReceivedEvent[];
  /** Ids of the WebSocket connections open now (for `DeleteConnection`, as an operator or API Gateway's limits would cut them). */
  connections(): string[];
  /**
   * Serves another server's agents from now on (a reloaded agents module), keeping everything the
   * sandbox holds: sessions, connections, queued jobs. A turn already running finishes with the
   * agent it started with. Not with `workerProcess`, whose child loaded the agents itself.
   */
  reload(app: Switchboard): void;
  close(): Promise<void>;
  /** The worker's child process; only with the `workerProcess` option. */
  worker?: WorkerProcess;
}

type Authorizers = {
  http: Pick<HttpApiOptions, 'authorizer' | 'identityHeaders' | 'jwtAuthorizer'>;
  websocket: Pick<WebSocketApiOptions, 'authorizer' | 'identitySource'>;
  /** The AG-UI function checks the caller itself, as the deployed one does. */
  agui?: AguiAuthenticate;
};

/** The `jwt` option with its default applied; undefined without it. */
function jwtConfig(options: SandboxOptions): { audience: string[] } | undefined {
  if (!options.jwt) return undefined;
  if (options.tokens) throw new Error('startSandbox: give either tokens or jwt, not both.');
  const audience = options.jwt === true ? undefined : options.jwt.audience;
  return { audience: audience ?? [DEV_AUDIENCE] };
}

/**
 * The stack's built-in authentication: the HTTP API's JWT authoriser, and the `$connect` Lambda
 * authoriser the stack deploys (the same handler, answering with an IAM policy) behind the identity
 * source the stack gives it by default (`webSocketTokenSource: 'either'`).
 */
function jwtAuthorizers(verify: JwtVerifier, logger: Logger): Authorizers {
  return {
    http: { jwtAuthorizer: { verify } },
    websocket: {
      authorizer: lambdaPolicyAuthorizer(createConnectAuthorizer({ verifier: verify, logger })),
      identitySource: WEBSOCKET_IDENTITY_SOURCES.either,
    },
    agui: jwtAuthentication(verify),
  };
}

/** The functions' logger with `readableLogs`; without it each runtime has its own JSON logger. */
function readableLogger(readable: SandboxOptions['readableLogs'], logLevel: string): Logger | undefined {
  if (!readable) return undefined;
  // The ids in force (session, run, agent, request: lib/telemetry) are on every line, as in Lambda.
  const options = {
    serviceName: 'switchboard',
    logLevel: logLevel as 'WARN',
    logFormatter: new ContextLogFormatter(),
  };
  return new ReadableLogger(options, readable === true ? undefined : readable);
}

/** The context an authoriser hands on for an opaque token, or null (403). */
function identityOf(
  tokens: NonNullable<SandboxOptions['tokens']>,
  token: string | undefined,
): Record<string, unknown> | null {
  const who = token ? tokens(token) : null;
  return who ? { user: who.user, ...(who.tenant && { tenant: who.tenant }) } : null;
}

/** Opaque tokens (`tokens`): Lambda authorisers that ask the function who a token is. */
function opaqueAuthorizers(tokens: NonNullable<SandboxOptions['tokens']>): Authorizers {
  return {
    http: {
      // As a JWT authoriser on `$request.header.Authorization`: no header is a 401; the token
      // may come alone or after `Bearer `.
      identityHeaders: ['authorization'],
      authorizer: async (event) => identityOf(tokens, bearerToken(event.headers?.authorization)),
    },
    websocket: {
      authorizer: async (event) =>
        identityOf(tokens, event.queryStringParameters?.token ?? bearerToken(event.headers?.authorization)),
    },
    agui: async (event) => {
      const who = identityOf(tokens, bearerToken(event.headers?.authorization));
      if (!who) throw new UnauthorizedError('An AG-UI request needs a token the sandbox knows.');
      return { lambda: who };
    },
  };
}

/**
 * The whole system on one machine: dynalite, fauxqs, the API Gateway emulator, the SQS poller and
 * the schedule, feeding the same handler factories the Lambda functions use with the same events.
 */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  // The JSON Schema checker, and the checks of the app's tool schemas that waited for it: a schema
  // ajv cannot use fails here, before anything starts. The settings below need it too.
  await jsonSchemasReady();
  const services = await startLocalServices({
    dataDir: options.dataDir,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
  });
  const refKey = options.refKey ?? (await sandboxRefKey(options.dataDir));
  let handlers:
    | {
        http: ReturnType<typeof createHttpHandler>;
        ws: ReturnType<typeof createWebSocketHandler>;
        agui: ReturnType<typeof createAguiHandler>;
      }
    | undefined;
  const bus = await startEventBus({ bus: SANDBOX_NAMES.eventBus, onEvent: options.onEvent });
  const resources = sandboxResources(services, refKey, bus.url, options.settings);
  const refKeySecret = secretArn(SANDBOX_NAMES.refKeySecret, SANDBOX_REGION);
  const modelSecrets = Object.entries(options.modelSecrets ?? {});
  const secrets = await startSecretsManager([
    { name: SANDBOX_NAMES.refKeySecret, arn: refKeySecret, value: refKey },
    ...modelSecrets.map(([name, value]) => ({ name, arn: secretArn(name, SANDBOX_REGION), value })),
  ]);
  const jwt = jwtConfig(options);
  const logLevel = options.logLevel ?? process.env.LOG_LEVEL ?? 'WARN';
  const logger = readableLogger(options.readableLogs, logLevel);
  // The verifier finds the key set through the discovery document the gateway serves, once it listens.
  let auth: AuthConfig | undefined;
  let verifier: JwtVerifier | undefined;
  const verify: JwtVerifier = (token) => {
    if (!auth) throw new Error('The sandbox is not listening yet.');
    verifier ??= createJwtVerifier(auth);
    return verifier(token);
  };
  const authorizers = jwt
    ? jwtAuthorizers(
        verify,
        logger ?? new Logger({ serviceName: 'switchboard', logLevel: logLevel as 'WARN' }),
      )
    : options.tokens
      ? opaqueAuthorizers(options.tokens)
      : { http: {}, websocket: {} };
  // At INFO and DEBUG each published document is also printed, as one readable line.
  const metrics = new MetricsCollector(
    logLevel === 'INFO' || logLevel === 'DEBUG' ? (line) => process.stdout.write(`${line}\n`) : undefined,
  );
  const receiver = new TraceReceiver();
  const gateway = await startGateway({
    port: options.port ?? 0,
    host: options.host,
    allowHosts: options.allowHosts,
    sameHostOrigin: ['/sandbox/'],
    static: (req, res) =>
      (jwt !== undefined && serveDevAuth(req, res, jwt.audience[0] ?? DEV_AUDIENCE)) ||
      serveContract(req, res) ||
      metrics.serve(req, res) ||
      serveOperate(req, res, resources) ||
      serveFaults(req, res, fronts.faults) ||
      receiver.serve(req, res) ||
      serveInspector(req, res) ||
      serveDemoPage(req, res),
    http: {
      routes: [...HTTP_ROUTES],
      cors: HTTP_API_CORS,
      handler: (event, context) => handlers!.http(event, context),
      concurrency: options.concurrency,
      ...authorizers.http,
    },
    functionUrls: [
      {
        prefix: AGUI_PATH,
        cors: AGUI_CORS,
        handler: (event, sink, context) => handlers!.agui(event, sink, context),
        timeoutMs: options.aguiTimeoutMs,
      },
    ],
    websocket: {
      routes: [...WEBSOCKET_ROUTES],
      handler: (event, context) => handlers!.ws(event, context),
      idleTimeoutMs: options.idleTimeoutMs,
      maxConnectionMs: options.maxConnectionMs,
      concurrency: options.concurrency,
      ...authorizers.websocket,
    },
  });
  if (jwt)
    auth = { issuer: DEV_ISSUER, audience: jwt.audience, discoveryUrl: `${gateway.url}${DISCOVERY_PATH}` };
  const config = {
    table: SANDBOX_NAMES.table,
    queueUrl: services.queueUrl,
    bucket: SANDBOX_NAMES.bucket,
    eventBus: SANDBOX_NAMES.eventBus,
    wsEndpoint: gateway.managementEndpoint,
    settings: parseSettings(options.settings),
    region: SANDBOX_REGION,
    credentials: SANDBOX_CREDENTIALS,
    endpoints: {
      dynamodb: services.dynamodbEndpoint,
      sqs: services.awsEndpoint,
      s3: services.awsEndpoint,
      events: bus.url,
    },
    logLevel,
    ...(logger && { logger }),
    clock: options.clock,
    metricsSink: metrics.sink,
    refKey,
  };
  // The sandbox's own runtime (tests read state with it) goes straight to the emulators; each
  // function's calls go through the fronts, signed with its own key, and meet its role's grants.
  const runtime = createRuntime(config);
  const fronts = await startFronts({
    dynamodb: services.dynamodbEndpoint,
    aws: services.awsEndpoint,
    connections: gateway.managementEndpoint,
    events: bus.url,
    secrets: secrets.url,
    names: { ...SANDBOX_NAMES, region: SANDBOX_REGION, modelSecrets: modelSecrets.map(([name]) => name) },
    faults: options.faults,
    permissions: options.permissions,
  });
  // A function reads the key as on AWS: from the secret, through its front, named to it only when the
  // stack's grants (not a test's narrower ones, which the front enforces) let it read the secret.
  const { refKey: _, ...shared } = config;
  const configOf = (fn: FunctionName) =>
    fronts.configFor(fn, {
      ...shared,
      ...(allows(fn, 'secretsmanager:GetSecretValue', 'refKeySecret', FUNCTION_PERMISSIONS) && {
        refKeySecret,
      }),
    });
  const { receiver: toReceiver = false, ...given } = options.traces || {};
  const exported = toReceiver ? await otlpExport(`${gateway.url}${OTLP_TRACES_PATH}`) : undefined;
  const traces = options.traces && {
    ...given,
    processors: [...(given.processors ?? []), ...(exported ? [exported] : [])],
  };
  const traced = traces && { tracing: true, traces };
  const runtimes = Object.fromEntries(
    FUNCTION_NAMES.map((fn) => [fn, createRuntime({ ...configOf(fn), ...traced })]),
  ) as Record<FunctionName, Runtime>;
  // Every handler is built from the app, and built again when it is reloaded: the handlers keep
  // nothing of their own between invocations, and what a turn holds lives in the table.
  let workerHandler = createWorkerHandler(options.app, runtimes.worker);
  let sweepHandler = createSweepHandler(options.app, runtimes.sweep);
  const serve = (app: Switchboard) => {
    handlers = {
      http: createHttpHandler(app, runtimes.http),
      ws: createWebSocketHandler(app, runtimes.ws),
      agui: createAguiHandler(app, runtimes.agui, { authenticate: authorizers.agui }),
    };
    workerHandler = createWorkerHandler(app, runtimes.worker);
    sweepHandler = createSweepHandler(app, runtimes.sweep);
  };
  serve(options.app);
  let poller: SqsPoller | undefined;
  let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
  if (options.workerProcess) {
    // The child builds its own logger: a logger does not cross a process boundary.
    const { logger: _, ...childConfig } = configOf('worker');
    worker = await startWorkerProcess({
      config: {
        ...childConfig,
        queueArn: services.queueArn,
        eventSource: options.worker,
      },
      agents: options.workerProcess.agents,
      env: options.workerProcess.env,
      onMetrics: metrics.sink,
      // The child exports to the receiver over OTLP, as the functions here do (a processor of this
      // process, an in-memory exporter, cannot reach it).
      ...(toReceiver && {
        traces: {
          endpoint: `${gateway.url}${OTLP_TRACES_PATH}`,
          ...(given.sampleRatio !== undefined && { sampleRatio: given.sampleRatio }),
        },
      }),
    });
  } else {
    poller = await startSqsPoller({
      // Lambda's event source polls with the worker's role.
      sqs: await runtimes.worker.sqs(),
      queueUrl: services.queueUrl,
      queueArn: services.queueArn,
      handler: (event, context) => workerHandler(event, context),
      ...options.worker,
      ...(options.clock && { clock: options.clock }),
      // The handler cannot be killed in this process: its runs are told to stop instead.
      onTimeout: (context) => void stopRunsOf(context.awsRequestId, 'shutdown', runtimes.worker),
    });
  }
  const schedule = startSchedule({
    periodMs: options.sweepPeriodMs ?? 60_000,
    handler: (event, context) => sweepHandler(event, context),
  });
  return {
    url: gateway.url,
    wsUrl: gateway.wsUrl,
    aguiUrl: `${gateway.url}${AGUI_PATH}`,
    ...(auth && { auth }),
    runtime,
    runtimes,
    faults: fronts.faults,
    metrics,
    traces: receiver,
    sweep: () => schedule.tick(),
    events: () => bus.events(),
    connections: () => gateway.connections(),
    reload(app) {
      if (worker)
        throw new Error('reload: the worker process loaded its agents itself; restart the sandbox.');
      serve(app);
    },
    ...(worker && {
      worker: {
        get pid() {
          return worker.pid;
        },
        kill: worker.kill,
        restart: worker.restart,
      },
    }),
    async close() {
      // Like a worker's shutdown: running turns are stopped with reason shutdown and close cleanly.
      stopAllRuns('shutdown', runtimes.worker);
      await schedule.stop();
      await poller?.stop();
      // The child stops its own turns on SIGTERM, the same way.
      await worker?.stop();
      // The MCP sessions the in-process worker opened end with the sandbox, as with a Lambda environment.
      await closeMcpConnections();
      // What the functions have not exported yet goes to the receiver before the gateway stops.
      await exported?.shutdown();
      await gateway.close();
      await fronts.close();
      await bus.close();
      await secrets.close();
      await services.stop();
    },
  };
}

/**
 * The functions' export to the sandbox's own receiver: the OTLP/HTTP exporter (JSON) behind a batch
 * processor, as a function exports on AWS. Each invocation flushes its runtime's spans as it ends
 * (lib/telemetry: `flushTraces`), so a batch goes out once an invocation, not a request a span as a
 * simple processor would send (a turn makes dozens of AWS calls); the short delay shows a long turn's
 * finished calls while it runs.
 * Loaded only here: nothing of the exporter is in a function's start-up code.
 */
async function otlpExport(url: string) {
  const [{ BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const batch = new BatchSpanProcessor({
    exporter: new OTLPTraceExporter({ url }),
    scheduledDelayMillis: 250,
  });
  // An export that fails (the sandbox closing) loses those spans, never fails the invocation that
  // flushed. The flush starts the export and does not hold the invocation: nothing freezes a function
  // here as Lambda does, so what a host waits for stays what it is without tracing.
  const lost = () => undefined;
  return {
    onStart: batch.onStart.bind(batch),
    onEnd: batch.onEnd.bind(batch),
    forceFlush: () => {
      void batch.forceFlush().catch(lost);
      return Promise.resolve();
    },
    shutdown: () => batch.shutdown().catch(lost),
  } satisfies SpanProcessor;
}

/**
 * The sandbox's session-ref key: kept in its data folder (readable by its owner alone), so refs stay
 * the same across restarts, as the stack's secret keeps them on AWS; a new one in memory otherwise.
 */
async function sandboxRefKey(dataDir: string | undefined): Promise<string> {
  const fresh = randomBytes(32).toString('base64url');
  if (!dataDir) return fresh;
  const file = join(dataDir, 'ref-key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  // Two sandboxes starting on one folder at once: the first key written is the one both use.
  await writeFile(file, fresh, { flag: 'wx', mode: 0o600 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}
