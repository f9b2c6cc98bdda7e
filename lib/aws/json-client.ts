import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { clockSkewCorrected, updatedClockOffset } from './clock.ts';
import { type AwsCredentials, defaultCredentials } from './credentials.ts';
import { type CheckedRegion, checkRegion, type EndpointSettings, resolveEndpoint } from './endpoint.ts';
import { type Failure, isRetryable, isThrottling, RETRY, retryAfterHint, retryDelay } from './retry.ts';
import { endpointSettings } from './settings.ts';
import { SigV4Signer } from './sign.ts';
import { type Answer, post, serviceError } from './wire.ts';

/**
 * A client of one AWS service's JSON protocol (DynamoDB's 1.0, Secrets Manager's 1.1): one POST per
 * call, naming its operation in `X-Amz-Target`, over a pool of kept-alive connections, signed with
 * Signature V4 ({@link SigV4Signer}), and as the AWS SDK's clients are: the endpoint of its region's
 * partition, FIPS and dual-stack as configured (lib/aws/endpoint.ts), the SDK's credential chain
 * (lib/aws/credentials.ts), the clock corrected from each answer's `Date`, and the standard mode's
 * retries (lib/aws/retry.ts). Tests compare each with the SDK's clients (test/unit/aws-endpoints.test.ts,
 * test/unit/aws-client.test.ts, test/sandbox/aws-conformance.test.ts; docs/aws.md).
 *
 * Why not the SDK's clients: they are the largest part of a function's cold start (their core,
 * middleware, endpoint rules and schemas, about 225 KB, and the Node modules they load: see
 * docs/performance.md, "Functions: size, import time and memory"), and the functions call these two
 * services on every cold start: the table on every invocation, the session-ref key's secret on the
 * first. The table's client and `readSecret` (lib/aws/secrets.ts) are built on this one. Its
 * errors have the SDK's `name`, `$fault` and `$metadata`.
 */

/** The service a client calls, and how. */
export interface AwsJsonService {
  /** The signing name and endpoint prefix: `dynamodb`, `secretsmanager` (lib/aws/endpoint.ts has its rules). */
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

/** How a {@link AwsJsonClient} reaches its service; the names are the SDK clients' own. */
export interface AwsJsonClientConfig {
  /** Required, as by the SDK (`Region is missing`); a FIPS pseudo-region (`us-east-1-fips`) turns FIPS on. */
  region: string;
  /** Default: the service's endpoint variable, `AWS_ENDPOINT_URL`, then the region's public endpoint. */
  endpoint?: string;
  /** Default: `AWS_USE_FIPS_ENDPOINT`, then the profile's `use_fips_endpoint`, else false. */
  useFipsEndpoint?: boolean;
  /** Default: `AWS_USE_DUALSTACK_ENDPOINT`, then the profile's `use_dualstack_endpoint`, else false. */
  useDualstackEndpoint?: boolean;
  /** Default: the environment's key (as on Lambda) unless `AWS_PROFILE` names a profile, else the SDK's chain. */
  credentials?: AwsCredentials;
  /** Attempts of each call, the first included (throttled, 5xx and broken calls are sent again). */
  maxAttempts: number;
  /** How long one attempt may take, connection included, before it is abandoned and retried. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Milliseconds to add to the local clock when signing, until an answer's `Date` corrects it. Default 0. */
  systemClockOffset?: number;
  /** Waits out a backoff. Default: a timer (a test steps its own). */
  sleep?: (ms: number) => Promise<void>;
}

/** Where the calls go, once the endpoint is known. */
interface Route {
  url: URL;
  agent: HttpAgent;
  signer: SigV4Signer;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wall time, not the runtime's clock: signatures are dated, and answers' `Date` compared, in the
 * services' time, which a test's stepped clock is not (the sandbox refuses a signature 15 minutes off).
 */
const wallClock = () => Date.now();

/** See the module's comment. */
export class AwsJsonClient {
  readonly #service: AwsJsonService;
  readonly #region: CheckedRegion;
  readonly #config: AwsJsonClientConfig;
  readonly #credentials: AwsCredentials;
  readonly #maxAttempts: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  #route: Promise<Route> | undefined;
  #agent: HttpAgent | undefined;
  #clockOffset: number;
  #quota = RETRY.quota;

  /** Throws, as the SDK's clients do, when the region is missing or cannot be a host name's label. */
  constructor(service: AwsJsonService, config: AwsJsonClientConfig) {
    this.#service = service;
    this.#region = checkRegion(config.region);
    this.#config = config;
    this.#credentials = config.credentials ?? defaultCredentials();
    this.#maxAttempts = Math.max(1, config.maxAttempts);
    this.#timeoutMs = config.attemptTimeoutMs ?? 10_000;
    this.#clockOffset = config.systemClockOffset ?? 0;
    this.#sleep = config.sleep ?? sleep;
  }

  /** The endpoint calls go to: see {@link AwsJsonClientConfig}. */
  async endpoint(): Promise<string> {
    return (await this.#resolve()).url.href;
  }

  /** Closes the pooled connections. */
  destroy(): void {
    this.#agent?.destroy();
  }

  /** Sends one call (its body already JSON), retrying what the SDK retries; its answer, parsed. */
  async call(operation: string, body: string): Promise<Record<string, unknown>> {
    const route = await this.#resolve();
    let cost = 0;
    for (let attempt = 1; ; attempt += 1) {
      let error: Failure;
      let hint: number | undefined;
      const offset = this.#clockOffset;
      const sentAt = wallClock();
      try {
        const answer = await this.#post(route, operation, body, new Date(sentAt + offset));
        // As the SDK's signer: every answer's `Date` sets the clock's offset.
        this.#clockOffset = updatedClockOffset(answer.headers, this.#clockOffset, sentAt, wallClock());
        if (answer.status === 200) {
          this.#quota = Math.min(RETRY.quota, this.#quota + (cost || 1));
          return answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {};
        }
        const refused = serviceError(this.#service.name, answer, attempt);
        if (clockSkewCorrected(offset, this.#clockOffset)) {
          Object.assign(refused.$metadata, { clockSkewCorrected: true });
        }
        error = refused;
        hint = retryAfterHint(answer.headers, wallClock());
      } catch (thrown) {
        // The connection broke or the attempt timed out: the SDK's transient errors.
        error = thrown as Failure;
        Object.assign(error, { $metadata: { attempts: attempt } });
      }
      const throttled = isThrottling(error);
      cost = throttled ? RETRY.throttlingCost : RETRY.cost;
      if (!isRetryable(error) || attempt >= this.#maxAttempts || this.#quota < cost) throw error;
      this.#quota -= cost;
      const base = throttled ? RETRY.throttlingBaseMs : (this.#service.baseDelayMs ?? RETRY.baseMs);
      await this.#sleep(retryDelay(base, attempt - 1, hint, wallClock()));
    }
  }

  /** The endpoint, its connection pool and signer, found once (settings may be read from a file). */
  #resolve(): Promise<Route> {
    this.#route ??= (async () => {
      const { useFipsEndpoint, useDualstackEndpoint } = this.#config;
      const settings: EndpointSettings = await endpointSettings({ useFipsEndpoint, useDualstackEndpoint });
      const configured =
        this.#config.endpoint ?? process.env[this.#service.endpointVariable] ?? process.env.AWS_ENDPOINT_URL;
      const { url, signingRegion } = resolveEndpoint(this.#service.name, this.#region, settings, configured);
      const parsed = new URL(url);
      // As the SDK's handler: kept-alive connections, at most 50 at once (more calls wait for one).
      const pool = { keepAlive: true, maxSockets: 50 };
      this.#agent = parsed.protocol === 'https:' ? new HttpsAgent(pool) : new HttpAgent(pool);
      return { url: parsed, agent: this.#agent, signer: new SigV4Signer(this.#service.name, signingRegion) };
    })().catch((error: unknown) => {
      // A read of the shared config file that failed is tried again by the next call.
      this.#route = undefined;
      throw error;
    });
    return this.#route;
  }

  /** One signed POST, dated `at`, its whole answer read. */
  async #post({ url, agent, signer }: Route, operation: string, body: string, at: Date): Promise<Answer> {
    const credentials =
      typeof this.#credentials === 'function' ? await this.#credentials() : this.#credentials;
    const headers = {
      host: url.host,
      'content-type': `application/x-amz-json-${this.#service.jsonVersion}`,
      'x-amz-target': `${this.#service.target}.${operation}`,
    };
    const signed = signer.sign({ method: 'POST', path: url.pathname, headers, body }, credentials, at);
    return post({
      url,
      agent,
      headers: { ...headers, ...signed, 'content-length': Buffer.byteLength(body) },
      body,
      service: this.#service.name,
      operation,
      timeoutMs: this.#timeoutMs,
    });
  }
}
