import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AwsServiceError } from '../errors/index.ts';
import { type AwsCredentialIdentity, SigV4Signer } from './sign.ts';

/**
 * A client of one AWS service's JSON protocol (DynamoDB's 1.0, Secrets Manager's 1.1): one POST per
 * call, naming its operation in `X-Amz-Target`, over a pool of kept-alive connections, signed with
 * Signature V4 ({@link SigV4Signer}) and retried as the AWS SDK's standard mode retries.
 *
 * Why not the SDK's clients: they are the largest part of a function's cold start (their core,
 * middleware, endpoint rules and schemas, about 225 KB, and the Node modules they load: see
 * docs/performance.md, "Functions: size, import time and memory"), and the functions call these two
 * services on every cold start: the table on every invocation, the session-ref key's secret on the
 * first. The table's client (lib/store/dynamodb) and `readSecret` (lib/config/secrets.ts) are built on
 * this one. It keeps what the code relies on from the SDK: errors with the SDK's `name`, `$fault` and
 * `$metadata`, and the SDK's retries (which errors, the backoff, the retry quota, a fixed number of
 * attempts).
 */

type Provider<T> = () => Promise<T>;

/** Credentials, or a function that answers them (asked before each signature). */
export type AwsCredentials = AwsCredentialIdentity | Provider<AwsCredentialIdentity>;

/** The service a client calls, and how. */
export interface AwsJsonService {
  /** The signing name and endpoint prefix: `dynamodb`, `secretsmanager`. */
  name: string;
  /** The prefix of `X-Amz-Target`: `DynamoDB_20120810`, `secretsmanager`. */
  target: string;
  /** `1.0` or `1.1`: the content type `application/x-amz-json-<version>`. */
  jsonVersion: '1.0' | '1.1';
  /** The SDK's service-specific endpoint variable: `AWS_ENDPOINT_URL_DYNAMODB`. */
  endpointVariable: string;
  /** The base of the backoff of errors that are not throttling (the SDK's default 50 ms, DynamoDB's 25). */
  baseDelayMs?: number;
}

/** How a {@link AwsJsonClient} reaches its service. */
export interface AwsJsonClientConfig {
  region: string;
  /** Default: the service's endpoint variable, `AWS_ENDPOINT_URL`, then the region's public endpoint. */
  endpoint?: string;
  /** Default: the environment's (`AWS_ACCESS_KEY_ID`…, as on Lambda), else the SDK's default chain. */
  credentials?: AwsCredentials;
  /** Attempts of each call, the first included (throttled, 5xx and broken calls are sent again). */
  maxAttempts: number;
  /** How long one attempt may take, connection included, before it is abandoned and retried. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Waits out a backoff. Default: a timer (a test steps its own). */
  sleep?: (ms: number) => Promise<void>;
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
  /** Full-jitter exponential backoff from these bases, at most 20 s (a service may set its own). */
  baseMs: 50,
  throttlingBaseMs: 1_000,
  maxDelayMs: 20_000,
  /** What a retry takes from the quota (a success gives it back, a first-try success one more). */
  cost: 14,
  throttlingCost: 5,
};

/** The credentials a client signs with when its config names none: see {@link AwsJsonClientConfig}. */
function defaultCredentials(): AwsCredentials {
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

function defaultEndpoint(service: AwsJsonService, region: string): string {
  const configured = process.env[service.endpointVariable] ?? process.env.AWS_ENDPOINT_URL;
  if (configured) return configured;
  return `https://${service.name}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The error of a refused call, from its answer (`__type` is `namespace#Name`). */
function serviceError(service: string, answer: Answer, attempts: number): AwsServiceError {
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
    String(message ?? Message ?? `${service} answered ${answer.status}`),
    {
      httpStatusCode: answer.status,
      requestId: typeof requestId === 'string' ? requestId : undefined,
      attempts,
    },
    fields,
  );
}

/** A request body: binary values (DynamoDB's `B`, `BS`) in base64, as the JSON protocols have them. */
export function toJson(wire: Record<string, unknown>): string {
  return JSON.stringify(wire, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Uint8Array
      ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
      : value;
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** See the module's comment. */
export class AwsJsonClient {
  readonly #service: AwsJsonService;
  readonly #url: URL;
  readonly #signer: SigV4Signer;
  readonly #credentials: AwsCredentials;
  readonly #agent: HttpAgent;
  readonly #maxAttempts: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  #quota = RETRY.quota;

  constructor(service: AwsJsonService, config: AwsJsonClientConfig) {
    this.#service = service;
    this.#url = new URL(config.endpoint ?? defaultEndpoint(service, config.region));
    this.#signer = new SigV4Signer(service.name, config.region);
    this.#credentials = config.credentials ?? defaultCredentials();
    const https = this.#url.protocol === 'https:';
    // As the SDK's handler: kept-alive connections, at most 50 at once (more calls wait for one).
    const pool = { keepAlive: true, maxSockets: 50 };
    this.#agent = https ? new HttpsAgent(pool) : new HttpAgent(pool);
    this.#maxAttempts = Math.max(1, config.maxAttempts);
    this.#timeoutMs = config.attemptTimeoutMs ?? 10_000;
    this.#sleep = config.sleep ?? sleep;
  }

  /** Closes the pooled connections. */
  destroy(): void {
    this.#agent.destroy();
  }

  /** Sends one call (its body already JSON), retrying what the SDK retries; its answer, parsed. */
  async call(operation: string, body: string): Promise<Record<string, unknown>> {
    let cost = 0;
    for (let attempt = 1; ; attempt += 1) {
      let error: Failure;
      try {
        const answer = await this.#post(operation, body);
        if (answer.status === 200) {
          this.#quota = Math.min(RETRY.quota, this.#quota + (cost || 1));
          return answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {};
        }
        error = serviceError(this.#service.name, answer, attempt);
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
      const base = throttled ? RETRY.throttlingBaseMs : (this.#service.baseDelayMs ?? RETRY.baseMs);
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
      'content-type': `application/x-amz-json-${this.#service.jsonVersion}`,
      'x-amz-target': `${this.#service.target}.${operation}`,
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
        const timeout = new Error(
          `${this.#service.name} did not answer ${operation} within ${this.#timeoutMs} ms`,
        );
        timeout.name = 'TimeoutError';
        request.destroy(timeout);
      }, this.#timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', reject);
      request.end(body);
    });
  }
}
