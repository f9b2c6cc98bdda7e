import type { RateRule } from '../config/index.ts';
import type { RateWindow } from './types.ts';

/**
 * The fixed window `now` (epoch ms) falls in under `rule`. Windows start at multiples of
 * `windowSeconds` since the epoch, so every function instance agrees on them without talking.
 */
export function windowOf(rule: RateRule, now: number): RateWindow {
  const start = Math.floor(now / 1000 / rule.windowSeconds) * rule.windowSeconds;
  const endMs = (start + rule.windowSeconds) * 1000;
  return { start, retryAfterSeconds: Math.max(1, Math.ceil((endMs - now) / 1000)) };
}

/**
 * When a window's counter may go: a window after its end, so that a clock a little behind still
 * finds it. DynamoDB's TTL removes it some time later; no read depends on that.
 */
export function counterTtl(rule: RateRule, window: RateWindow): number {
  return window.start + 2 * rule.windowSeconds;
}

/** "600 requests per 60 seconds" */
export function describeRule(rule: RateRule, what: string): string {
  const seconds = rule.windowSeconds === 1 ? 'second' : `${rule.windowSeconds} seconds`;
  return `${rule.requests} ${what} per ${seconds}`;
}
