import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Middleware, Piped } from './types.ts';

/**
 * A Lambda handler as a pipeline: middy `.use()`s the middlewares in the order given (their `before`
 * hooks run in that order, `after` and `onError` in the reverse), then runs `handler`. The handler
 * keeps the names, so a test can read every handler's pipeline.
 */
export function pipeline<E, R>(
  middlewares: Middleware<E, R>[],
  handler: (event: E, context: Context) => Promise<R>,
  options?: { timeoutEarlyInMillis: number },
) {
  const piped: Piped = { pipeline: middlewares.map((m) => m.name) };
  return Object.assign(middy<E, R, Error, Context>(options).use(middlewares).handler(handler), piped);
}
