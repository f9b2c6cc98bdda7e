import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { TableClient } from '../aws/index.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { FunctionName } from './permissions.ts';
import type { Settings } from './settings.ts';

/*
 * The runtime every layer of lib is handed: its type lives here, on the ground floor, and imports
 * nothing of lib above it (lib/aws's client, this folder's settings). What builds one from a config or
 * from a function's environment is lib/boot, beside the handlers that call it.
 */

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

/**
 * Where a runtime's spans go: OpenTelemetry span processors (an OTLP exporter's batch processor, a
 * test's in-memory one), and the share of traces kept (parent-based: a sampled parent keeps its
 * children). The SDK's types are read as types only: nothing of it loads unless the runtime traces.
 */
export interface TraceSettings {
  processors?: import('@opentelemetry/sdk-trace').SpanProcessor[];
  /** The share of new traces kept, 0 to 1. Default 1. */
  sampleRatio?: number;
}

/** Called with each AWS client of a runtime: see {@link Runtime.onClient}. */
export type ClientHook = (service: ClientService, client: AwsClient) => void;

/** Everything the logic needs from the outside world, created once and passed in. */
export interface Runtime {
  /** The table's client (lib/aws/table): send it the table's commands (`GetItem`, `Query`…) of lib/aws. */
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
  metrics: RuntimeMetrics;
  /** Whether the function records OpenTelemetry spans (the construct's `tracing` prop): see lib/telemetry/tracing.ts. */
  tracing: boolean;
  /** Where the spans go and how many are kept, when the function traces. */
  traces?: TraceSettings;
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
