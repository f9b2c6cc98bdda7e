import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AwsServiceError } from '../../errors/index.ts';
import type { AnyTableCommand, Plain } from './commands.ts';
import { type AwsCredentialIdentity, SigV4Signer } from './sign.ts';

/**
 * The table's client: DynamoDB's JSON protocol over one keep-alive connection pool, each request
 * signed with Signature V4 ({@link SigV4Signer}) and retried as the AWS SDK's standard mode retries.
 *
 * Why not the SDK's `DynamoDBClient` with `DynamoDBDocumentClient`: they are the largest part of every
 * function's cold start (their entry code and the Node modules it loads cost about as much as an
 * empty Node process: docs/performance.md, "Functions: size, import time and memory"), and the
 * functions make eight kinds of call with plain items. This client keeps what the code relies on
 * from them: the document client's inputs and outputs (its types, converted with
 * `@aws-sdk/util-dynamodb`), errors with the SDK's `name`, `$fault` and `$metadata`, a fixed number of
 * attempts with the SDK's backoff and retry quota, and a `middlewareStack` whose `initialize` step
 * sees every call (the bench meters requests with it).
 */

type Provider<T> = () => Promise<T>;

/** Credentials, or a function that answers them (asked before each signature). */
export type TableCredentials = AwsCredentialIdentity | Provider<AwsCredentialIdentity>;

/** How a {@link TableClient} reaches its table. */
export interface TableClientConfig {
  region: string;
  /** Default: `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL`, then the region's public endpoint. */
  endpoint?: string;
  /** Default: the environment's (`AWS_ACCESS_KEY_ID`…, as on Lambda), else the SDK's default chain. */
  credentials?: TableCredentials;
  /** Attempts of each call, the first included (throttled, 5xx and broken calls are sent again). */
  maxAttempts: number;
  /** How long one attempt may wait for its answer before it is abandoned and retried. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Waits out a backoff. Default: a timer (a test steps its own). */
  sleep?: (ms: number) => Promise<void>;
}

/** What a middleware's handler takes and answers: the call's plain input, its plain output. */
export type TableHandler = (args: { input: Plain }) => Promise<{ output: Plain }>;
/** Names the call a middleware sees, as the SDK's handler context does. */
export interface TableCallContext {
  clientName: 'TableClient';
  /** `GetItemCommand`, `PutItemCommand`…: the operation with `Command`, as the SDK names it. */
  commandName: string;
}
export type TableMiddleware = (next: TableHandler, context: TableCallContext) => TableHandler;

/**
 * The part of the SDK's middleware stack that instruments calls: middleware added to the
 * `initialize` step (the only one) runs around each call, the first added outermost, and sees its
 * plain input and output, once per call whatever its retries.
 */
export class TableMiddlewareStack {
  readonly #entries: { name?: string; middleware: TableMiddleware }[] = [];
  add(middleware: TableMiddleware, options: { step?: 'initialize'; name?: string } = {}): void {
    if (options.name !== undefined && this.#entries.some((e) => e.name === options.name)) {
      throw new Error(`Duplicate middleware name '${options.name}'`);
    }
    this.#entries.push({ name: options.name, middleware });
  }
  remove(name: string): boolean {
    const at = this.#entries.findIndex((e) => e.name === name);
    if (at >= 0) this.#entries.splice(at, 1);
    return at >= 0;
  }
  resolve(handler: TableHandler, context: TableCallContext): TableHandler {
    return this.#entries.reduceRight((next, { middleware }) => middleware(next, context), handler);
  }
}

/**
 * Which failures are sent again: the AWS SDK's classification (`@smithy/core`'s retry module), for the
 * errors DynamoDB and a connection can give. Written out, not imported: importing it puts the chunk
 * the lazily loaded SDK clients share with it (95 KB of `@smithy/core`) into every function's
 * start-up code.
 */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'LimitExceededException',
  'TransactionInProgressException',
]);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

type Failure = Error & { code?: string; cause?: unknown; $metadata?: { httpStatusCode?: number } };
const isThrottling = (e: Failure) => e.$metadata?.httpStatusCode === 429 || THROTTLING.has(e.name);
/** Whether a failure, or the error it was caused by, is one the SDK sends again. */
function isRetryable(e: Failure, depth = 0): boolean {
  if (
    isThrottling(e) ||
    TRANSIENT_NAMES.has(e.name) ||
    TRANSIENT_CODES.has(e.code ?? '') ||
    TRANSIENT_STATUSES.has(e.$metadata?.httpStatusCode ?? 0)
  ) {
    return true;
  }
  return depth < 10 && e.cause instanceof Error && isRetryable(e.cause as Failure, depth + 1);
}

/** The retry quota and backoff of the SDK's standard mode (`@smithy/core`'s retry module, 2026 defaults). */
const RETRY = {
  quota: 500,
  /** Full-jitter exponential backoff from these bases, at most 20 s (25 ms: the DynamoDB client's). */
  baseMs: 25,
  throttlingBaseMs: 1_000,
  maxDelayMs: 20_000,
  /** What a retry takes from the quota (a success gives it back, a first-try success one more). */
  cost: 14,
  throttlingCost: 5,
};

/** The credentials a client signs with when its config names none: see {@link TableClientConfig}. */
function defaultCredentials(): TableCredentials {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (AWS_ACCESS_KEY_ID && AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN && { sessionToken: AWS_SESSION_TOKEN }),
    };
  }
  // Off Lambda (an operator's machine): the SDK's chain (profiles, SSO…), a chunk loaded only here.
  let chain: Promise<Provider<AwsCredentialIdentity>> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await chain)();
  };
}

function defaultEndpoint(region: string): string {
  const configured = process.env.AWS_ENDPOINT_URL_DYNAMODB ?? process.env.AWS_ENDPOINT_URL;
  if (configured) return configured;
  return `https://dynamodb.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The error of a refused call, from its answer (`__type` is `namespace#Name`). */
function serviceError(answer: Answer, attempts: number): AwsServiceError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): the status names it.
  }
  const { __type, message, Message, ...fields } = body;
  const type = String(__type ?? answer.headers['x-amzn-errortype'] ?? '');
  const name =
    type.split('#').pop()?.split(':')[0] || (answer.status >= 500 ? 'InternalServerError' : 'UnknownError');
  const requestId = answer.headers['x-amzn-requestid'];
  return new AwsServiceError(
    name,
    String(message ?? Message ?? `DynamoDB answered ${answer.status}`),
    {
      httpStatusCode: answer.status,
      requestId: typeof requestId === 'string' ? requestId : undefined,
      attempts,
    },
    fields,
  );
}

/** The request body: DynamoDB JSON, binary values (`B`, `BS`) in base64 as the protocol has them. */
function toJson(wire: Record<string, unknown>): string {
  return JSON.stringify(wire, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Uint8Array
      ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
      : value;
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** See the module's comment. */
export class TableClient {
  readonly middlewareStack = new TableMiddlewareStack();
  readonly #url: URL;
  readonly #signer: SigV4Signer;
  readonly #credentials: TableCredentials;
  readonly #agent: HttpAgent;
  readonly #maxAttempts: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  #quota = RETRY.quota;

  constructor(config: TableClientConfig) {
    this.#url = new URL(config.endpoint ?? defaultEndpoint(config.region));
    this.#signer = new SigV4Signer('dynamodb', config.region);
    this.#credentials = config.credentials ?? defaultCredentials();
    const https = this.#url.protocol === 'https:';
    // As the SDK's handler: kept-alive connections, at most 50 at once (more calls wait for one).
    const pool = { keepAlive: true, maxSockets: 50 };
    this.#agent = https ? new HttpsAgent(pool) : new HttpAgent(pool);
    this.#maxAttempts = Math.max(1, config.maxAttempts);
    this.#timeoutMs = config.attemptTimeoutMs ?? 10_000;
    this.#sleep = config.sleep ?? sleep;
  }

  /** Sends one command, through the middleware, retrying what the SDK retries. */
  async send<C extends AnyTableCommand>(command: C): Promise<C['output']> {
    const context: TableCallContext = {
      clientName: 'TableClient',
      commandName: `${command.operation}Command`,
    };
    const handler = this.middlewareStack.resolve(async ({ input }) => {
      const wire = await this.#call(command.operation, toJson(command.toWire(input)));
      return { output: command.fromWire(wire) };
    }, context);
    return (await handler({ input: command.input as Plain })).output;
  }

  /** Closes the pooled connections. */
  destroy(): void {
    this.#agent.destroy();
  }

  async #call(operation: string, body: string): Promise<Record<string, unknown>> {
    let cost = 0;
    for (let attempt = 1; ; attempt += 1) {
      let error: Failure;
      try {
        const answer = await this.#post(operation, body);
        if (answer.status === 200) {
          this.#quota = Math.min(RETRY.quota, this.#quota + (cost || 1));
          return answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {};
        }
        error = serviceError(answer, attempt);
      } catch (thrown) {
        // The connection broke or the attempt timed out: the SDK's transient errors.
        error = thrown as Failure;
        Object.assign(error, { $metadata: { attempts: attempt } });
      }
      const throttled = isThrottling(error);
      const retryable = isRetryable(error);
      cost = throttled ? RETRY.throttlingCost : RETRY.cost;
      if (!retryable || attempt >= this.#maxAttempts || this.#quota < cost) throw error;
      this.#quota -= cost;
      const base = throttled ? RETRY.throttlingBaseMs : RETRY.baseMs;
      await this.#sleep(Math.floor(Math.random() * Math.min(base * 2 ** (attempt - 1), RETRY.maxDelayMs)));
    }
  }

  /** One signed POST, its whole answer read. */
  async #post(operation: string, body: string): Promise<Answer> {
    const url = this.#url;
    const credentials =
      typeof this.#credentials === 'function' ? await this.#credentials() : this.#credentials;
    const headers = {
      host: url.host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
    };
    const signed = this.#signer.sign({ method: 'POST', path: url.pathname, headers, body }, credentials);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        {
          agent: this.#agent,
          method: 'POST',
          hostname: url.hostname,
          port: url.port || undefined,
          path: url.pathname,
          headers: { ...headers, ...signed, 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      // The whole attempt, connection included (a socket timeout starts only once connected).
      const timer = setTimeout(() => {
        const timeout = new Error(`DynamoDB did not answer ${operation} within ${this.#timeoutMs} ms`);
        timeout.name = 'TimeoutError';
        request.destroy(timeout);
      }, this.#timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', reject);
      request.end(body);
    });
  }
}
