import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TableClient } from '../aws/index.ts';
import {
  ContextLogFormatter,
  DEFAULT_SERVICE_NAME,
  METRICS_NAMESPACE,
  MetricsRecorder,
  type MetricsSink,
} from '../telemetry/index.ts';
import type { FunctionName } from './permissions.ts';
import { parseSettings, type Settings } from './settings.ts';

/** The AWS services a runtime has a client of, as {@link Runtime.onClient} names them. */
export type ClientService = 'dynamodb' | 'sqs' | 's3' | 'connections' | 'events';

/**
 * Any of a runtime's AWS clients: each has a `middlewareStack` and `send`. The table's is
 * Switchboard's own {@link TableClient}, whose stack has the SDK's `initialize` step only.
 */
export type AwsClient =
  | TableClient
  | SQSClient
  | S3Client
  | ApiGatewayManagementApiClient
  | EventBridgeClient;

/** Called with each AWS client of a runtime: see {@link Runtime.onClient}. */
export type ClientHook = (service: ClientService, client: AwsClient) => void;

/** Everything the logic needs from the outside world, created once and passed in. */
export interface Runtime {
  /** The table's client (lib/store/dynamodb): the document client's commands, from that module. */
  db: TableClient;
  table: string;
  /**
   * The SQS client, created on the first call: the SQS SDK is a chunk loaded by a function's first
   * queue operation (`import()`), not at its cold start. Later calls return the same client.
   */
  sqs: () => Promise<SQSClient>;
  queueUrl: string;
  /**
   * The S3 client, created on the first call: the S3 SDK is a chunk loaded by a function's first
   * file or blob operation (`import()`), not at its cold start. Later calls return the same client.
   */
  s3: () => Promise<S3Client>;
  bucket: string;
  /**
   * The EventBridge client, created on the first call, as {@link Runtime.s3} is: only a function
   * that publishes a domain event loads the EventBridge SDK.
   */
  events: () => Promise<EventBridgeClient>;
  /** The bus domain events go to (SWITCHBOARD_EVENT_BUS); absent, none are published. */
  eventBus: string | undefined;
  /**
   * The WebSocket API's management client, created on the first call as {@link Runtime.sqs} is;
   * absent where there is no WebSocket API.
   */
  connections: (() => Promise<ApiGatewayManagementApiClient>) | undefined;
  /**
   * Calls `hook` with every AWS client of this runtime: at once with those already created (the
   * table's, and any created before), and with each client created later on first use (the queue's,
   * the management API's, S3, EventBridge), before that client sends anything. The way to instrument every call a function makes
   * (`client.middlewareStack.add(...)`), as the bench and the tests do through `sandbox.runtimes`.
   */
  onClient: (hook: ClientHook) => void;
  settings: Settings;
  /** JSON lines, each with the ids of the request or turn it belongs to (see `withLogKeys`). */
  logger: Logger;
  /** The runtime's metrics, published as CloudWatch embedded metric format at the end of each turn and invocation. */
  metrics: MetricsRecorder;
  /** Whether the function records X-Ray subsegments (the construct's `tracing` prop). */
  tracing: boolean;
  /** The `service` of every log line, metric and trace. */
  service: string;
  /** The time in epoch milliseconds, the only one lib reads (runs, leases, expiry, rate limits, stamps): `Date.now`, or a test's clock. */
  clock: () => number;
  /**
   * The deployment's secret key of session refs (an owner's scope is an HMAC of their tenant and user
   * under it: see lib/auth/session-ref.ts), read once: from the config, or from the Secrets Manager
   * secret SWITCHBOARD_REF_KEY_SECRET names. Never logged.
   */
  refKey: () => Promise<Uint8Array>;
  /**
   * A Secrets Manager secret's string (an endpoint key of a model agent: `apiKeyFromSecret`), read
   * with the same loader as the session-ref key, once per execution environment and secret; a read
   * that failed is tried again by the next call. Never logged. The function's role must be granted
   * the secret (the construct grants the worker the secrets of its `models` prop).
   */
  secret: (secretId: string) => Promise<string>;
}

/** Where the runtime's parts are. Endpoints are only set for the local sandbox. */
export interface RuntimeConfig {
  table: string;
  queueUrl: string;
  bucket: string;
  wsEndpoint?: string;
  /** The EventBridge bus domain events are published on; none without it. */
  eventBus?: string;
  settings?: Settings;
  region?: string;
  endpoints?: { dynamodb?: string; sqs?: string; s3?: string; events?: string; secrets?: string };
  credentials?: { accessKeyId: string; secretAccessKey: string };
  logLevel?: string;
  /** The function the runtime serves; it sets how persistent its DynamoDB calls are. Default: worker. */
  fn?: FunctionName;
  /** The clock every time read goes through. Default `Date.now`. */
  clock?: () => number;
  /**
   * The logger, when not Powertools' JSON logger at `logLevel` (the sandbox's `switchboard dev`
   * prints readable lines with a subclass of it).
   */
  logger?: Logger;
  /** Where metrics are published. Default: EMF lines on stdout. */
  metricsSink?: MetricsSink;
  /** The metrics' CloudWatch namespace. Default `Switchboard`. */
  metricsNamespace?: string;
  /** The `service` of log lines and metrics. Default `switchboard`. */
  service?: string;
  /** Record X-Ray subsegments (loads the tracer on first use). Default false. */
  tracing?: boolean;
  /** The session-ref key itself (the sandbox keeps one in its data folder); else `refKeySecret`. */
  refKey?: string;
  /** The Secrets Manager secret (ARN or name) that holds the session-ref key, as the construct deploys it. */
  refKeySecret?: string;
}

/**
 * How often each function sends a DynamoDB call before it gives up. DynamoDB's throttling comes in
 * bursts, and a state change here is one conditional write that is safe to send again (its retry
 * finds its own write), so the worker and the sweep try ten times, as the SDK's earlier major
 * version did for DynamoDB. The API functions try four times: their answer must come within API
 * Gateway's 29 s, and the host can send the request again with the same id.
 */
export const DYNAMODB_ATTEMPTS: Readonly<Record<FunctionName, number>> = {
  http: 4,
  ws: 4,
  worker: 10,
  sweep: 10,
  // The `$connect` authoriser calls no AWS service; the entry only keeps the record complete.
  authorizer: 4,
  // The AG-UI function answers a person waiting on a stream: as the other API functions.
  agui: 4,
};

/** Builds the clients for a {@link RuntimeConfig}. */
export function createRuntime(config: RuntimeConfig): Runtime {
  const base = {
    region: config.region ?? 'us-east-1',
    ...(config.credentials && { credentials: config.credentials }),
  };
  const db = new TableClient({
    ...base,
    endpoint: config.endpoints?.dynamodb,
    maxAttempts: DYNAMODB_ATTEMPTS[config.fn ?? 'worker'],
  });
  const hooks: ClientHook[] = [];
  const created: [ClientService, AwsClient][] = [['dynamodb', db]];
  /**
   * A client created on the first call from a module loaded with `import()`, handed to the hooks
   * before it sends anything. A chunk that failed to load is tried again by the next call.
   */
  const onFirstUse = <C extends AwsClient>(service: ClientService, load: () => Promise<C>) => {
    let client: Promise<C> | undefined;
    return (): Promise<C> => {
      client ??= load().then(
        (made) => {
          created.push([service, made]);
          for (const hook of hooks) hook(service, made);
          return made;
        },
        (error: unknown) => {
          client = undefined;
          throw error;
        },
      );
      return client;
    };
  };
  const service = config.service ?? DEFAULT_SERVICE_NAME;
  const logger =
    config.logger ??
    new Logger({
      serviceName: service,
      logLevel: (config.logLevel ?? 'INFO') as 'INFO',
      logFormatter: new ContextLogFormatter(),
    });
  let refKey: Promise<Uint8Array> | undefined;
  const secrets = new Map<string, Promise<string>>();
  return {
    db,
    table: config.table,
    sqs: onFirstUse('sqs', async () =>
      (await import('./sqs-client.ts')).createSqsClient({ ...base, endpoint: config.endpoints?.sqs }),
    ),
    queueUrl: config.queueUrl,
    s3: onFirstUse('s3', async () =>
      (await import('./s3-client.ts')).createS3Client({ ...base, endpoint: config.endpoints?.s3 }),
    ),
    bucket: config.bucket,
    events: onFirstUse('events', async () =>
      (await import('./events-client.ts')).createEventsClient({
        ...base,
        endpoint: config.endpoints?.events,
      }),
    ),
    eventBus: config.eventBus || undefined,
    connections: config.wsEndpoint
      ? onFirstUse('connections', async () =>
          (await import('./management-client.ts')).createManagementClient({
            ...base,
            endpoint: config.wsEndpoint,
          }),
        )
      : undefined,
    onClient: (hook) => {
      hooks.push(hook);
      for (const [service, client] of created) hook(service, client);
    },
    settings: config.settings ?? parseSettings(undefined),
    logger,
    metrics: new MetricsRecorder({
      namespace: config.metricsNamespace ?? METRICS_NAMESPACE,
      service,
      sink: config.metricsSink,
      onError: (error) => logger.warn('Could not publish metrics', { error: String(error) }),
    }),
    tracing: config.tracing ?? false,
    service,
    clock: config.clock ?? Date.now,
    refKey: () => {
      refKey ??= loadRefKey(config, base).catch((error: unknown) => {
        // A read that failed (a throttled call, a missing grant) is tried again by the next request.
        refKey = undefined;
        throw error;
      });
      return refKey;
    },
    secret: (secretId) => {
      let value = secrets.get(secretId);
      if (!value) {
        value = import('./secrets.ts').then(({ readSecret }) =>
          readSecret({ ...base, endpoint: config.endpoints?.secrets }, secretId),
        );
        value.catch(() => secrets.delete(secretId));
        secrets.set(secretId, value);
      }
      return value;
    },
  };
}

async function loadRefKey(
  config: RuntimeConfig,
  base: { region: string; credentials?: { accessKeyId: string; secretAccessKey: string } },
): Promise<Uint8Array> {
  const { readRefKey, refKeyBytes } = await import('./ref-key.ts');
  if (config.refKey !== undefined) return refKeyBytes(config.refKey, 'refKey');
  if (!config.refKeySecret)
    throw new Error('No session-ref key: set SWITCHBOARD_REF_KEY_SECRET (the construct does) or refKey.');
  return readRefKey({ ...base, endpoint: config.endpoints?.secrets }, config.refKeySecret);
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set.`);
  return value;
}

/**
 * The deployment's settings: the file `SWITCHBOARD_SETTINGS_FILE` names (relative to the function's
 * root, `LAMBDA_TASK_ROOT`; what the construct deploys), or else SWITCHBOARD_SETTINGS as JSON.
 */
function baseSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const file = env.SWITCHBOARD_SETTINGS_FILE?.trim();
  if (file) {
    const path = isAbsolute(file) ? file : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`SWITCHBOARD_SETTINGS_FILE: ${path} cannot be read (${(error as Error).message}).`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`SWITCHBOARD_SETTINGS_FILE: ${path} is not valid JSON.`);
    }
  }
  if (!env.SWITCHBOARD_SETTINGS?.trim()) return {};
  try {
    return JSON.parse(env.SWITCHBOARD_SETTINGS) as Record<string, unknown>;
  } catch {
    throw new Error('SWITCHBOARD_SETTINGS is not valid JSON.');
  }
}

/**
 * The deployment's settings (see baseSettings), with the seed's tool variables (TOOLS__HOST_TOOLS, TOOLS__PAGE_SCOPES,
 * JSON) laid over it when they are set.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Settings {
  const fromEnv = (name: string) => {
    try {
      return JSON.parse(env[name] as string) as unknown;
    } catch {
      throw new Error(`${name} is not valid JSON.`);
    }
  };
  const base = baseSettings(env);
  const tools = { ...(base.tools as Record<string, unknown> | undefined) };
  if (env.TOOLS__HOST_TOOLS) tools.hostTools = fromEnv('TOOLS__HOST_TOOLS');
  if (env.TOOLS__PAGE_SCOPES) tools.pageScopes = fromEnv('TOOLS__PAGE_SCOPES');
  return parseSettings({ ...base, ...(Object.keys(tools).length > 0 && { tools }) });
}

/** The runtime a Lambda function builds from its environment (set by the CDK construct). */
export function runtimeFromEnv(fn: FunctionName, env: NodeJS.ProcessEnv = process.env): Runtime {
  return createRuntime({
    fn,
    table: required(env, 'SWITCHBOARD_TABLE'),
    queueUrl: required(env, 'SWITCHBOARD_QUEUE_URL'),
    bucket: env.SWITCHBOARD_BUCKET ?? '',
    wsEndpoint: env.SWITCHBOARD_WS_ENDPOINT,
    eventBus: env.SWITCHBOARD_EVENT_BUS,
    settings: settingsFromEnv(env),
    region: env.AWS_REGION,
    logLevel: env.LOG_LEVEL,
    service: env.POWERTOOLS_SERVICE_NAME || undefined,
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE || undefined,
    tracing: env.SWITCHBOARD_TRACING === 'true',
    refKeySecret: env.SWITCHBOARD_REF_KEY_SECRET,
  });
}
