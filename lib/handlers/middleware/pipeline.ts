import middy, { type Request } from '@middy/core';
import type { Invocation, Middleware, Piped } from './types.ts';

/**
 * Before any step: the invocation's own context, so that what its steps learn (the caller …) is
 * never read by another invocation, even one a test or a host hands the same Lambda context. The
 * invocation's context inherits Lambda's, so its accessors (`callbackWaitsForEmptyEventLoop`) still
 * reach the runtime, and holds its own `caller` and `trace`.
 */
const ownContext = (request: Request<unknown, unknown, Error, Invocation>) => {
  const own: Invocation = Object.create(request.context);
  request.context = Object.assign(own, { caller: undefined, trace: undefined });
};

/**
 * A Lambda handler as a pipeline: middy `.use()`s the middlewares in the order given (their `before`
 * hooks run in that order, `after` and `onError` in the reverse), then runs `handler` with the
 * invocation's context. The handler keeps the names, so a test can read every handler's pipeline.
 */
export function pipeline<E, R>(
  middlewares: Middleware<E, R>[],
  handler: (event: E, context: Invocation) => Promise<R>,
  options?: { timeoutEarlyInMillis: number },
) {
  const piped: Piped = { pipeline: middlewares.map((m) => m.name) };
  const piping = middy<E, R, Error, Invocation>(options).before(ownContext).use(middlewares);
  return Object.assign(piping.handler(handler), piped);
}
