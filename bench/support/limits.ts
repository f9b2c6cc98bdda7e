/**
 * Rate limits far above what any suite sends (they poll the API every 50 ms while they wait), so
 * that no suite meets the production defaults by accident. The limiter still counts every request;
 * a suite that tests limits (test/e2e/rate-limits.test.ts) passes its own `limits`.
 */
export const TEST_LIMITS = {
  perUser: { requests: 1_000_000, windowSeconds: 60 },
  perConnection: { requests: 1_000_000, windowSeconds: 60 },
};
