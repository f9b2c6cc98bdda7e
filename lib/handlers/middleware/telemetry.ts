import type { Request } from '@middy/core';
import type { Runtime } from '../../config/index.ts';
import { enterLogKeys, type LogKeys, openTrace } from '../../telemetry/index.ts';
import type { Invocation, Middleware } from './types.ts';

/**
 * `telemetry`, first in every pipeline: every log line of the invocation carries its request id (and
 * `keysOf`'s keys, and those learnt on the way, see `addLogKeys`), the invocation runs in a `## handler`
 * subsegment when tracing is on, and the metrics it recorded are published when it ends, however it
 * ends (its `after` and `onError` run last).
 */
export function telemetry<E>(rt: () => Runtime, keysOf?: (event: E) => LogKeys): Middleware<E> {
  // An error the pipeline answered is a response; only one that escapes marks the subsegment.
  const end = (request: Request<E, unknown, Error, Invocation>) => {
    request.context.trace?.close?.(request.response === undefined && request.error);
    return rt().metrics.flush();
  };
  return {
    name: 'telemetry',
    before(request) {
      const function_request_id = request.context?.awsRequestId || undefined;
      // Entered before the first await, so the rest of the invocation runs in this scope.
      enterLogKeys({ function_request_id, ...keysOf?.(request.event) });
      request.context.trace = {};
      return openTrace(rt(), request.context.trace, { function_request_id });
    },
    after: end,
    onError: end,
  };
}
