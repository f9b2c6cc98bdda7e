import type { Request } from '@middy/core';
import type { Runtime } from '../../config/index.ts';
import { enterLogKeys, type LogKeys, openTrace, type SpanKind } from '../../telemetry/index.ts';

/** The span of an invocation: its name (`POST /api/chat`), its kind, and the trace it continues. */
export interface InvocationSpan {
  name: string;
  kind?: SpanKind;
  /** Headers that name a trace to continue (a host's `traceparent`). */
  carrier?: Record<string, string | undefined>;
}

import type { Invocation, Middleware } from './types.ts';

/**
 * `telemetry`, first in every pipeline: every log line of the invocation carries its request id (and
 * `keysOf`'s keys, and those learnt on the way, see `addLogKeys`), the invocation runs in its span
 * (`spanOf`) when tracing is on, and the metrics it recorded are published when it ends, however it
 * ends (its `after` and `onError` run last).
 */
export function telemetry<E>(
  rt: () => Runtime,
  keysOf?: (event: E) => LogKeys,
  spanOf: (event: E) => InvocationSpan = () => ({ name: '## handler' }),
): Middleware<E> {
  // An error the pipeline answered is a response; only one that escapes marks the span failed.
  const end = async (request: Request<E, unknown, Error, Invocation>) => {
    await request.context.trace?.close?.(request.response === undefined && request.error);
    return rt().metrics.flush();
  };
  return {
    name: 'telemetry',
    before(request) {
      const function_request_id = request.context?.awsRequestId || undefined;
      // Entered before the first await, so the rest of the invocation runs in this scope.
      enterLogKeys({ function_request_id, ...keysOf?.(request.event) });
      request.context.trace = {};
      const span = spanOf(request.event);
      // Lambda's own trace (active tracing) is the parent when the event names none.
      const carrier = { 'x-amzn-trace-id': process.env._X_AMZN_TRACE_ID, ...span.carrier };
      return openTrace(
        rt(),
        request.context.trace,
        span.name,
        { 'faas.invocation_id': function_request_id },
        {
          carrier,
          ...(span.kind !== undefined && { kind: span.kind }),
        },
      );
    },
    after: end,
    onError: end,
  };
}
