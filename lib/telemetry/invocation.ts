import type { Context } from 'aws-lambda';
import type { Runtime } from '../config/index.ts';
import { withLogKeys } from './log-context.ts';

/** Runtimes whose AWS clients already record X-Ray subsegments. */
const instrumented = new WeakSet<Runtime>();

/**
 * Runs `fn` in an X-Ray subsegment named `name` when the runtime traces (the construct's `tracing`
 * prop), with `annotations` to search by; else simply runs it. The tracer is loaded on first use, so a
 * function without tracing never loads the X-Ray SDK.
 */
export async function traced<T>(
  rt: Runtime,
  name: string,
  annotations: Record<string, string | undefined>,
  fn: () => Promise<T>,
  metadata: Record<string, unknown> = {},
): Promise<T> {
  if (!rt.tracing) return fn();
  const tracer = await import('./tracer.ts');
  if (!instrumented.has(rt)) {
    instrumented.add(rt);
    rt.onClient(tracer.instrumentClient(rt.service));
  }
  return tracer.inSubsegment(rt.service, name, annotations, metadata, fn);
}

/**
 * A Lambda handler with its telemetry: every log line it writes carries the invocation's request id
 * (and the ids it learns on the way, see `addLogKeys`), it runs in a subsegment when tracing is on,
 * and the metrics it recorded are published when it ends, however it ends.
 */
export function instrumentHandler<E, R>(
  rt: () => Runtime,
  handler: (event: E, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  return (event, context) =>
    withLogKeys({ function_request_id: context?.awsRequestId || undefined }, async () => {
      const runtime = rt();
      try {
        return await traced(runtime, '## handler', { function_request_id: context?.awsRequestId }, () =>
          handler(event, context),
        );
      } finally {
        await runtime.metrics.flush();
      }
    });
}
