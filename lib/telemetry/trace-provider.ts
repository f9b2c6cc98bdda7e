/**
 * The OpenTelemetry SDK of a runtime that traces, loaded with `import()` by tracing.ts on first use:
 * a function deployed without tracing never parses it at a cold start. One tracer provider per
 * runtime (its spans go to that runtime's processors), W3C trace context and X-Ray's header both read
 * and written, and every AWS call of the runtime a client span.
 */
import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { CompositePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AWSXRayPropagator } from '@opentelemetry/propagator-aws-xray';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import type { AwsClient, ClientService, Runtime } from '../config/index.ts';
import { ExportProcessor } from './export.ts';
import { ScopedContextManager } from './trace-context.ts';

// The one context manager of the process (OpenTelemetry's is global), on the scopes' storage.
context.setGlobalContextManager(new ScopedContextManager(ROOT_CONTEXT));

/** The API, for tracing.ts, which imports none of it until a runtime traces. */
export * as api from '@opentelemetry/api';

/** W3C `traceparent` first; X-Ray's `X-Amzn-Trace-Id` when there is no W3C header (Lambda's own trace). */
const propagator = new CompositePropagator({
  propagators: [new AWSXRayPropagator(), new W3CTraceContextPropagator()],
});

const getter: TextMapGetter<Record<string, string | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const lower = key.toLowerCase();
    const found = Object.entries(carrier).find(([name]) => name.toLowerCase() === lower);
    return found?.[1];
  },
};

/** A runtime's tracing: its provider (to flush) and its tracer, and how it reads a carrier. */
export interface Tracing {
  provider: TracerProvider;
  tracer: Tracer;
  extractContext: (carrier: Record<string, string | undefined>, base: Context) => Context;
}

/** Starts a runtime's tracing: its provider, and a client span around every AWS call it makes. */
export function startTracing(rt: Runtime): Tracing {
  const settings = rt.traces ?? {};
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': rt.service }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio ?? 1) }),
    spanProcessors: settings.processors ?? [],
  });
  const tracer = provider.getTracer('switchboard');
  rt.onClient((service, client) => instrumentClient(tracer, service, client));
  // Spans exported elsewhere than X-Ray do not follow X-Ray's sampling: Lambda gives every
  // invocation an X-Ray header, `Sampled=0` unless active tracing sampled it, and a parent-based
  // sampler would drop the whole trace on its word.
  const xraySamples = !(settings.processors ?? []).some(
    (p) => p instanceof ExportProcessor && p.settings.endpoint !== 'xray',
  );
  return {
    provider,
    tracer,
    extractContext: xraySamples ? extractContext : (carrier, base) => withoutUnsampledXRay(carrier, base),
  };
}

/** The context a carrier names, but a new root where only an unsampled X-Ray header names one. */
function withoutUnsampledXRay(carrier: Record<string, string | undefined>, base: Context): Context {
  const extracted = extractContext(carrier, base);
  const parent = trace.getSpanContext(extracted);
  const w3c = getter.get(carrier, 'traceparent');
  if (!w3c && parent && (parent.traceFlags & 1) === 0) return base;
  return extracted;
}

/** The context a carrier names (`traceparent`, else `X-Amzn-Trace-Id`), under `base`. */
export function extractContext(carrier: Record<string, string | undefined>, base: Context): Context {
  // The composite reads X-Ray's header, then W3C's: a `traceparent` wins when both are there.
  return propagator.extract(base, carrier, getter);
}

/** The trace headers of `ctx` (W3C `traceparent`, and X-Ray's), to carry it across a hop. */
export function injectContext(ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, {
    set: (c, key, value) => {
      c[key] = value;
    },
  });
  return carrier;
}

const instrumented = new WeakSet<object>();

/** What the SDK's clients and the table client have alike: a stack that takes an `initialize` step. */
type Next = (args: { input?: unknown }) => Promise<unknown>;
interface InitializeStack {
  add(
    middleware: (next: Next, context: { commandName?: string }) => Next,
    options: { step: 'initialize'; name: string },
  ): void;
}

/** AWS's names of the services, as `rpc.service` (and X-Ray) show them. */
const SERVICE_NAMES: Record<string, string> = {
  dynamodb: 'DynamoDB',
  sqs: 'SQS',
  s3: 'S3',
  eventbridge: 'EventBridge',
  connections: 'ApiGatewayManagementApi',
  secretsmanager: 'SecretsManager',
};

/**
 * A client span (`DynamoDB.Query`, `SQS.SendMessage`, …) around every call of an AWS client, with
 * OpenTelemetry's `rpc.*` attributes (and the table's name for DynamoDB), marked an error when the
 * call failed. The span is the active context while the call runs, so nothing it starts is orphaned.
 */
function instrumentClient(tracer: Tracer, service: ClientService, client: AwsClient): void {
  if (instrumented.has(client)) return;
  instrumented.add(client);
  const name = SERVICE_NAMES[service] ?? service;
  (client.middlewareStack as unknown as InitializeStack).add(
    (next, handlerContext) => async (args) => {
      const method = String(handlerContext.commandName ?? 'Call').replace(/Command$/, '');
      const input = (args.input ?? {}) as { TableName?: unknown };
      const attributes = {
        'rpc.system': 'aws-api',
        'rpc.service': name,
        'rpc.method': method,
        ...(typeof input.TableName === 'string' && { 'aws.dynamodb.table_names': [input.TableName] }),
      };
      const kind = name === 'SQS' && method.startsWith('SendMessage') ? SpanKind.PRODUCER : SpanKind.CLIENT;
      return tracer.startActiveSpan(`${name}.${method}`, { kind, attributes }, async (span) => {
        try {
          // A queued turn carries this span's context to the worker, which continues the trace.
          return await next(kind === SpanKind.PRODUCER ? withTraceAttributes(args) : args);
        } catch (error) {
          failed(span, error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    { step: 'initialize', name: 'SwitchboardClientSpans' },
  );
}

/** A `traceparent` message attribute, added to an SQS send's message or to each of its entries. */
function withTraceAttributes(args: { input?: unknown }): { input?: unknown } {
  const { traceparent } = injectContext(context.active());
  if (!traceparent) return args;
  const attributes = (own: Record<string, unknown> | undefined) => ({
    ...own,
    traceparent: { DataType: 'String', StringValue: traceparent },
  });
  const input = args.input as {
    MessageAttributes?: Record<string, unknown>;
    Entries?: { MessageAttributes?: Record<string, unknown> }[];
  };
  const sent = input.Entries
    ? {
        ...input,
        Entries: input.Entries.map((e) => ({ ...e, MessageAttributes: attributes(e.MessageAttributes) })),
      }
    : { ...input, MessageAttributes: attributes(input.MessageAttributes) };
  return { ...args, input: sent };
}

/** Marks a span failed with what went wrong: the error's name and message, never its stack's data. */
export function failed(span: Span, error: unknown): void {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${e.name ?? 'Error'}: ${e.message ?? ''}` });
  span.recordException({ name: e.name ?? 'Error', message: e.message ?? String(error) });
  if (e.$metadata?.httpStatusCode) span.setAttribute('http.response.status_code', e.$metadata.httpStatusCode);
}

export { trace };
