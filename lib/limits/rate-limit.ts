import { type Identity, tenantOf } from '../auth/index.ts';
import type { RateRule, Runtime } from '../config/index.ts';
import { RateLimitedError } from '../errors/index.ts';
import { type CounterKey, countRequest, keys } from '../store/index.ts';
import { counterTtl, describeRule, windowOf } from './window.ts';

/** Errors that say DynamoDB is busy or failing, not that the request is wrong. */
const BUSY = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);

/** A connection to DynamoDB that broke or timed out, after the SDK's own retries. */
const NETWORK = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ECONNREFUSED']);

function isBusy(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $fault, code } = error as { $fault?: string; code?: string };
  return BUSY.has(error.name) || $fault === 'server' || (code !== undefined && NETWORK.has(code));
}

/**
 * Counts one request against `rule` in the counter `keyOf(windowStart)`, or throws
 * {@link RateLimitedError} (nothing written) when the window is full. When DynamoDB itself is
 * throttling or failing, the request is let through and a warning logged: a limiter that cannot
 * count must not take the API down with it.
 */
async function take(
  rt: Runtime,
  rule: RateRule,
  keyOf: (windowStart: number) => CounterKey,
  refusal: (retryAfterSeconds: number) => string,
  now: number,
): Promise<void> {
  const window = windowOf(rule, now);
  let counted: boolean;
  try {
    counted = await countRequest(rt, keyOf(window.start), rule.requests, counterTtl(rule, window));
  } catch (error) {
    if (!isBusy(error)) throw error;
    rt.logger.warn('Rate limit not counted: DynamoDB is busy', { error: String(error) });
    return;
  }
  if (!counted) throw new RateLimitedError(refusal(window.retryAfterSeconds), window.retryAfterSeconds);
}

const retryIn = (seconds: number) => `try again in ${seconds} second${seconds === 1 ? '' : 's'}`;

/**
 * Counts a request of the caller against `limits.perUser` (one owner: a user within a tenant, all
 * of their HTTP requests and WebSocket frames together). Throws 429 `rate_limited` past it.
 *
 * @example
 * ```ts
 * await limitUser(rt, identity); // before the route runs: a refused request stores nothing
 * ```
 */
export async function limitUser(rt: Runtime, identity: Identity, now = rt.clock()): Promise<void> {
  const rule = rt.settings.limits.perUser;
  if (rule === false) return;
  const tenant = tenantOf(identity);
  await take(
    rt,
    rule,
    (start) => keys.userRate(tenant, identity.user, start),
    (after) =>
      `Too many requests: at most ${describeRule(rule, 'requests')} for each user; ${retryIn(after)}.`,
    now,
  );
}

/** Counts a frame of one WebSocket connection against `limits.perConnection`; 429 `rate_limited` past it. */
export async function limitConnection(rt: Runtime, connectionId: string, now = rt.clock()): Promise<void> {
  const rule = rt.settings.limits.perConnection;
  if (rule === false) return;
  await take(
    rt,
    rule,
    (start) => keys.connectionRate(connectionId, start),
    (after) =>
      `Too many frames on this connection: at most ${describeRule(rule, 'frames')}; ${retryIn(after)}.`,
    now,
  );
}

/**
 * Counts a WebSocket frame: against its connection first, so that a connection over its own limit
 * spends nothing of its user's, then against the user.
 */
export async function limitFrame(
  rt: Runtime,
  connectionId: string,
  identity: Identity,
  now = rt.clock(),
): Promise<void> {
  await limitConnection(rt, connectionId, now);
  await limitUser(rt, identity, now);
}
