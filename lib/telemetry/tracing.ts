/**
 * Spans, on the OpenTelemetry API alone (the SDK is trace-provider.ts, loaded on first use by a
 * runtime that traces: `tracing` on). Without tracing every function here only runs what it is
 * given. A span carries the session's id as the host knows it (never the owner scope of a session
 * ref), the run's and the agent's ids, and names and counts: never a token, a key, a prompt or a
 * completion (content capture is the model spans' own, off by default).
 */
import type { SpanKind as ApiSpanKind, Attributes, Context, Link, Span } from '@opentelemetry/api';
import type { Runtime } from '../config/index.ts';
import { openScope } from './trace-context.ts';
import type { Tracing } from './trace-provider.ts';

/**
 * OpenTelemetry's span kinds (the API's values): named here so that no function imports the API
 * before it traces. The API and the SDK load together with a runtime's first span.
 */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];

/** The API, once a runtime of this process has started tracing; until then nothing has a span. */
let api: typeof import('./trace-provider.ts')['api'] | undefined;

/** Span attributes as the runtime gives them: an undefined one is left out. */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

const tracings = new WeakMap<Runtime, Promise<Tracing & typeof import('./trace-provider.ts')>>();

/** The runtime's tracing, started on first use. */
function tracingOf(rt: Runtime) {
  let started = tracings.get(rt);
  if (!started) {
    started = import('./trace-provider.ts').then((sdk) => {
      api = sdk.api;
      return { ...sdk, ...sdk.startTracing(rt) };
    });
    tracings.set(rt, started);
  }
  return started;
}

const clean = (attributes: SpanAttributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;

/** How a span starts beside its name and attributes. */
export interface SpanStart {
  kind?: SpanKind;
  /** Spans this one follows from (a continuation links the turn that asked). */
  links?: Link[];
  /** Trace headers to continue (`traceparent`, `X-Amzn-Trace-Id`) instead of the current span. */
  carrier?: Record<string, string | undefined>;
}

/**
 * Runs `fn` in a span named `name` when the runtime traces (its children nest under it); a thrown
 * error marks the span failed and is thrown on. Without tracing, simply runs `fn`.
 */
export async function traced<T>(
  rt: Runtime,
  name: string,
  attributes: SpanAttributes,
  fn: (span: Span | undefined) => Promise<T>,
  start: SpanStart = {},
): Promise<T> {
  if (!rt.tracing) return fn(undefined);
  const sdk = await tracingOf(rt);
  // A carrier names the whole parent: the span continues that trace, not whatever runs around it.
  const parent = start.carrier
    ? sdk.extractContext(start.carrier, sdk.api.ROOT_CONTEXT)
    : sdk.api.context.active();
  const options = {
    kind: (start.kind ?? SpanKind.INTERNAL) as ApiSpanKind,
    attributes: clean(attributes),
    links: start.links ?? [],
  };
  return sdk.tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      sdk.failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Where {@link openTrace} leaves the function that ends its span. */
export interface Trace {
  close?: (error?: unknown) => Promise<void>;
}

/**
 * Opens the span of an invocation (`name`, e.g. `POST /api/chat`) and makes it current for the rest
 * of it, continuing the trace the carrier names (a host's `traceparent`, Lambda's X-Ray header);
 * leaves in `trace` the function that ends it and flushes the runtime's spans. The handler
 * pipeline's `telemetry` middleware opens it before the handler and closes it after.
 */
export function openTrace(
  rt: Runtime,
  handle: Trace,
  name: string,
  attributes: SpanAttributes,
  start: SpanStart = {},
): Promise<void> | undefined {
  if (!rt.tracing) return undefined;
  // Entered now, before the first await: the rest of the invocation runs in this scope.
  const scope = openScope();
  return tracingOf(rt).then((sdk) => {
    // An invocation starts its own trace, or continues the one its event names: never the context
    // something else left around it (the sandbox runs every function in one process).
    const parent = sdk.extractContext(start.carrier ?? {}, sdk.api.ROOT_CONTEXT);
    const span = sdk.tracer.startSpan(
      name,
      {
        kind: (start.kind ?? SpanKind.SERVER) as ApiSpanKind,
        attributes: clean(attributes),
        links: start.links ?? [],
      },
      parent,
    );
    scope.context = sdk.api.trace.setSpan(parent, span);
    handle.close = async (error) => {
      if (error) sdk.failed(span, error);
      span.end();
      await flushTraces(rt);
    };
  });
}

/** Adds what happened (a cancel, a lease taken over, a run lost) to the current span, if any. */
export function spanEvent(name: string, attributes: SpanAttributes = {}): void {
  api?.trace.getActiveSpan()?.addEvent(name, clean(attributes));
}

/** Adds attributes learnt along the way (the session, the agent) to the current span, if any. */
export function spanAttributes(attributes: SpanAttributes): void {
  api?.trace.getActiveSpan()?.setAttributes(clean(attributes));
}

/** A link to the current span, if any (a turn links the batch invocation that ran it). */
export function invocationLink(): Link[] {
  const current = api?.trace.getActiveSpan()?.spanContext();
  return current ? [{ context: current }] : [];
}

/**
 * The current span as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): what a pause stores
 * with its requests, so that the run that answers it can link the turn that asked. Ids and a flag
 * only; undefined without a span (tracing off).
 */
export function currentTraceparent(): string | undefined {
  const span = api?.trace.getActiveSpan()?.spanContext();
  if (!span || !api?.isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Links to the spans that stored `traceparent`s name (a continuation links the turn that asked), each
 * with `attributes`; a missing or malformed one (an item written before they were stored) is left out.
 */
export function linksTo(
  traceparents: readonly (string | undefined)[],
  attributes: SpanAttributes = {},
): Link[] {
  const links: Link[] = [];
  for (const traceparent of new Set(traceparents)) {
    const parts = traceparent ? TRACEPARENT.exec(traceparent) : null;
    if (!parts) continue;
    const [, traceId = '', spanId = '', flags = '00'] = parts;
    // The sampled flag alone; ids of all zeros are not a span (W3C trace context).
    const target = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 1 };
    if (/[1-9a-f]/.test(traceId) && /[1-9a-f]/.test(spanId))
      links.push({ context: target, attributes: clean(attributes) });
  }
  return links;
}

/**
 * The current span, held for events that happen later outside its flow (a timer, a poll that several
 * turns share): the function adds an event to it, or does nothing without a span.
 */
export function eventsOfCurrentSpan(): (name: string, attributes?: SpanAttributes) => void {
  const span = api?.trace.getActiveSpan();
  return (name, attributes = {}) => {
    if (span?.isRecording()) span.addEvent(name, clean(attributes));
  };
}

/** Sends the runtime's finished spans on now (the end of an invocation or a turn). */
export async function flushTraces(rt: Runtime): Promise<void> {
  const started = tracings.get(rt);
  if (!started) return;
  try {
    await (await started).provider.forceFlush();
  } catch (error) {
    // An endpoint that is down loses spans, never a request or a turn.
    rt.logger.warn('Could not export traces', { error: String(error) });
  }
}

/** Where the context keeps the runtime whose tracing the agent's own spans go to ({@link withTracing}). */
const TRACING_RUNTIME = Symbol.for('switchboard.tracing.runtime');

/**
 * Runs `fn` with the runtime's tracing reachable by {@link tracedHere} and {@link openSpan}: what
 * runs inside (an agent's model loop, which is given no runtime) makes its spans there.
 */
export function withTracing<T>(rt: Runtime, fn: () => T): T {
  // The turn that calls it runs in a span, so the API is there when the runtime traces.
  if (!rt.tracing || !api) return fn();
  return api.context.with(api.context.active().setValue(TRACING_RUNTIME, rt), fn);
}

const tracingRuntime = () => api?.context.active().getValue(TRACING_RUNTIME) as Runtime | undefined;

/** As {@link traced}, in the tracing {@link withTracing} made reachable; without one, simply runs `fn`. */
export function tracedHere<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: Span | undefined) => Promise<T>,
  start: SpanStart = {},
): Promise<T> {
  const rt = tracingRuntime();
  return rt ? traced(rt, name, attributes, fn, start) : fn(undefined);
}

/**
 * A span started now under the current one, in the tracing {@link withTracing} made reachable, for
 * what has no function around it (a step of a stream read part by part): its holder ends it.
 * Undefined without tracing.
 */
export async function openSpan(
  name: string,
  attributes: SpanAttributes,
  start: Omit<SpanStart, 'carrier'> = {},
): Promise<Span | undefined> {
  const rt = tracingRuntime();
  if (!rt) return undefined;
  const sdk = await tracingOf(rt);
  return sdk.tracer.startSpan(
    name,
    {
      kind: (start.kind ?? SpanKind.INTERNAL) as ApiSpanKind,
      attributes: clean(attributes),
      links: start.links ?? [],
    },
    sdk.api.context.active(),
  );
}

export type { Context };
