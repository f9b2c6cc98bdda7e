import { Logger } from '@aws-lambda-powertools/logger';
import { TableClient } from '../aws/index.ts';
import {
  type AwsClient,
  type ClientHook,
  type ClientService,
  DYNAMODB_ATTEMPTS,
  type FunctionName,
  parseSettings,
  type Runtime,
  type Settings,
  type TraceSettings,
} from '../config/index.ts';
import {
  ContextLogFormatter,
  DEFAULT_SERVICE_NAME,
  METRICS_NAMESPACE,
  MetricsRecorder,
  type MetricsSink,
} from '../telemetry/index.ts';

/** Where the runtime's parts are. Endpoints are only set for the local sandbox. */
export interface RuntimeConfig {
  table: string;
  queueUrl: string;
  bucket: string;
  wsEndpoint?: string;
  /** The EventBridge bus domain events are published on; none without it. */
  eventBus?: string;
  settings?: Settings;
  /** The AWS region of every client; required (`Region is missing`), as by the SDK's clients. */
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
  /** Record OpenTelemetry spans (loads the SDK on first use). Default false. */
  tracing?: boolean;
  /** Where the spans go when tracing (span processors) and the share of traces kept. */
  traces?: TraceSettings;
  /** The session-ref key itself (the sandbox keeps one in its data folder); else `refKeySecret`. */
  refKey?: string;
  /** The Secrets Manager secret (ARN or name) that holds the session-ref key, as the construct deploys it. */
  refKeySecret?: string;
}

/** Builds the clients for a {@link RuntimeConfig}. */
export function createRuntime(config: RuntimeConfig): Runtime {
  // As the SDK's clients: no region is an error, never a default region (the CLI names the stack's).
  if (!config.region) throw new Error('Region is missing');
  const base = {
    region: config.region,
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
      (await import('../aws/sdk/sqs-client.ts')).createSqsClient({
        ...base,
        endpoint: config.endpoints?.sqs,
      }),
    ),
    queueUrl: config.queueUrl,
    s3: onFirstUse('s3', async () =>
      (await import('../aws/sdk/s3-client.ts')).createS3Client({ ...base, endpoint: config.endpoints?.s3 }),
    ),
    bucket: config.bucket,
    events: onFirstUse('events', async () =>
      (await import('../aws/sdk/events-client.ts')).createEventsClient({
        ...base,
        endpoint: config.endpoints?.events,
      }),
    ),
    eventBus: config.eventBus || undefined,
    connections: config.wsEndpoint
      ? onFirstUse('connections', async () =>
          (await import('../aws/sdk/management-client.ts')).createManagementClient({
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
    ...(config.traces && { traces: config.traces }),
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
        value = import('../aws/secrets.ts').then(({ readSecret }) =>
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
