import type { IncomingHttpHeaders } from 'node:http';

/**
 * Which failures are sent again, and after how long: the AWS SDK's standard mode (`@smithy/core`'s
 * retry module: `service-error-classification`, `StandardRetryStrategy`, `parseRetryAfterHeader`,
 * 2026 defaults), for the errors DynamoDB, Secrets Manager and a connection can give. Written out,
 * not imported: importing it puts the chunk the lazily loaded SDK clients share with it (95 KB of
 * `@smithy/core`) into every function's start-up code.
 */

/** A failed attempt: a service's error or a broken connection. */
export type Failure = Error & {
  code?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean };
};

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

/** Throttling: retried with the longer base and the smaller cost. */
export const isThrottling = (e: Failure) => e.$metadata?.httpStatusCode === 429 || THROTTLING.has(e.name);

/**
 * Whether a failure, or the error it was caused by, is one the SDK sends again: throttling, or
 * transient (a clock skew just corrected, an expired signature, a timeout, a broken connection, 500,
 * 502, 503, 504).
 */
export function isRetryable(e: Failure, depth = 0): boolean {
  if (
    isThrottling(e) ||
    e.$metadata?.clockSkewCorrected === true ||
    (e.name === 'InvalidSignatureException' && e.message.includes('Signature expired')) ||
    TRANSIENT_NAMES.has(e.name) ||
    TRANSIENT_CODES.has(e.code ?? '') ||
    TRANSIENT_STATUSES.has(e.$metadata?.httpStatusCode ?? 0)
  ) {
    return true;
  }
  return depth < 10 && e.cause instanceof Error && isRetryable(e.cause as Failure, depth + 1);
}

/** The retry quota and backoff of the SDK's standard mode. */
export const RETRY = {
  quota: 500,
  /** Full-jitter exponential backoff from these bases, at most 20 s (a service may set its own). */
  baseMs: 50,
  throttlingBaseMs: 1_000,
  maxDelayMs: 20_000,
  /** How much longer than its backoff a retry waits at most for the service's `retry-after`. */
  retryAfterExtraMs: 5_000,
  /** What a retry takes from the quota (a success gives it back, a first-try success one more). */
  cost: 14,
  throttlingCost: 5,
};

/**
 * When the service asked to be called again, as the SDK reads it (`parseRetryAfterHeader`): the first
 * of `retry-after` (seconds, or an HTTP date) and `x-amz-retry-after` (milliseconds) among the
 * answer's headers; undefined when neither is there or readable.
 */
export function retryAfterHint(headers: IncomingHttpHeaders, now: number): number | undefined {
  for (const [name, raw] of Object.entries(headers)) {
    const value = String(raw ?? '');
    if (name === 'x-amz-retry-after') {
      const ms = Number(value);
      return Number.isNaN(ms) ? undefined : now + ms;
    }
    if (name !== 'retry-after') continue;
    let seconds = Number.NaN;
    if (value.endsWith('GMT')) seconds = (Date.parse(value) - now) / 1000;
    else if (/ GMT, (\d+|\d+\.\d+)$/.test(value)) seconds = Number(/ GMT, ([\d.]+)$/.exec(value)?.[1]);
    else if (/^(\d+|\d+\.\d+)$/.test(value)) seconds = Number(value);
    else if (Date.parse(value) >= now) seconds = (Date.parse(value) - now) / 1000;
    return Number.isNaN(seconds) ? undefined : now + seconds * 1000;
  }
  return undefined;
}

/**
 * The wait before retry number `retries` (0 for the first): full jitter below `base · 2^retries`,
 * at most 20 s; with a `retry-after` hint, as long as it asks, but at most 5 s more than the backoff
 * (`StandardRetryStrategy.refreshRetryTokenForRetry`).
 */
export function retryDelay(baseMs: number, retries: number, hint: number | undefined, now: number): number {
  const backoff = Math.floor(Math.random() * Math.min(baseMs * 2 ** retries, RETRY.maxDelayMs));
  if (hint === undefined) return backoff;
  return Math.max(backoff, Math.min(hint - now, backoff + RETRY.retryAfterExtraMs));
}
