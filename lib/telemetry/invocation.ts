import type { Runtime } from '../config/index.ts';

/** Runtimes whose AWS clients already record X-Ray subsegments. */
const instrumented = new WeakSet<Runtime>();

/** The tracer, loaded on first use, with the runtime's AWS clients recording subsegments. */
async function tracerOf(rt: Runtime) {
  const tracer = await import('./tracer.ts');
  if (!instrumented.has(rt)) {
    instrumented.add(rt);
    rt.onClient(tracer.instrumentClient(rt.service));
  }
  return tracer;
}

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
  return (await tracerOf(rt)).inSubsegment(rt.service, name, annotations, metadata, fn);
}

/** Where {@link openTrace} leaves the function that closes its subsegment. */
export interface Trace {
  close?: (error?: unknown) => void;
}

/**
 * Opens an X-Ray subsegment `## handler` around the rest of an invocation when the runtime traces, and
 * leaves in `trace` the function that closes it (with the error the invocation ended with, if any). The
 * handler pipeline's `telemetry` middleware opens it before the handler and closes it after.
 */
export async function openTrace(
  rt: Runtime,
  trace: Trace,
  annotations: Record<string, string | undefined>,
): Promise<void> {
  if (rt.tracing) trace.close = (await tracerOf(rt)).openSubsegment(rt.service, '## handler', annotations);
}
