import { Tracer } from '@aws-lambda-powertools/tracer';
import { TableClient } from '../aws/index.ts';
import type { AwsClient, ClientService } from '../config/index.ts';

/**
 * The X-Ray side of {@link traced}, loaded with `import()` only by functions deployed with tracing on:
 * Powertools' Tracer brings the X-Ray SDK, which no function parses at a cold start otherwise.
 */
let tracer: Tracer | undefined;
const instrumented = new WeakSet<object>();

/** The Tracer of this execution environment; outside Lambda it records nothing (Powertools turns itself off). */
export function tracerOf(service: string): Tracer {
  tracer ??= new Tracer({ serviceName: service });
  return tracer;
}

/**
 * Records every call of an AWS client as a subsegment. The SQS client's SendMessage then carries the
 * trace header, which SQS keeps as the message's `AWSTraceHeader`: Lambda links the worker's trace to
 * the handler's that queued the turn.
 */
export function instrumentClient(service: string): (name: ClientService, client: AwsClient) => void {
  return (_name, client) => {
    if (instrumented.has(client)) return;
    instrumented.add(client);
    if (client instanceof TableClient) traceTableCalls(service, client);
    else tracerOf(service).captureAWSv3Client(client);
  };
}

/**
 * The table client is Switchboard's own, not an SDK client, so X-Ray's SDK instrumentation cannot
 * read it: each call is a subsegment named `DynamoDB` in the `aws` namespace, with its operation and
 * table, as X-Ray records an SDK call.
 */
function traceTableCalls(service: string, client: TableClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const t = tracerOf(service);
      const parent = t.isTracingEnabled() ? t.getSegment() : undefined;
      if (!parent) return next(args);
      const subsegment = parent.addNewSubsegment('DynamoDB');
      subsegment.namespace = 'aws';
      const aws = {
        operation: context.commandName.replace(/Command$/, ''),
        table_name: args.input.TableName,
      };
      subsegment.addAttribute('aws', aws);
      try {
        const result = await next(args);
        subsegment.addAttribute('http', { response: { status: 200 } });
        subsegment.close();
        return result;
      } catch (error) {
        // As X-Ray's SDK instrumentation flags a call: throttled, a 4xx an error (a refused
        // conditional write among them, which the runtime expects), a 5xx or no answer a fault.
        const e = error as Error & {
          name: string;
          $metadata?: { httpStatusCode?: number; requestId?: string };
        };
        const status = e.$metadata?.httpStatusCode;
        if (status !== undefined) {
          subsegment.addAttribute('aws', { ...aws, request_id: e.$metadata?.requestId });
          subsegment.addAttribute('http', { response: { status } });
        }
        if (status === 429 || /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded/.test(e.name)) {
          subsegment.addThrottleFlag();
        }
        if (status !== undefined && status < 500) subsegment.addErrorFlag();
        else subsegment.addFaultFlag();
        subsegment.close({ message: e.message, name: e.name, stack: e.stack ?? '' } as Error, true);
        throw error;
      }
    },
    { step: 'initialize', name: 'XRayTableCalls' },
  );
}

/** Runs `fn` in a subsegment named `name`, annotated with the given ids (searchable in X-Ray). */
export async function inSubsegment<T>(
  service: string,
  name: string,
  annotations: Record<string, string | undefined>,
  metadata: Record<string, unknown>,
  fn: () => Promise<T>,
): Promise<T> {
  const t = tracerOf(service);
  if (!t.isTracingEnabled() || !t.getSegment()) return fn();
  return t.provider.captureAsyncFunc(name, async (subsegment) => {
    for (const [key, value] of Object.entries(annotations)) {
      if (value !== undefined) subsegment?.addAnnotation(key, value);
    }
    for (const [key, value] of Object.entries(metadata)) subsegment?.addMetadata(key, value, service);
    try {
      return await fn();
    } catch (error) {
      subsegment?.addError(error as Error);
      throw error;
    } finally {
      subsegment?.close();
    }
  }) as Promise<T>;
}

/**
 * Opens a subsegment named `name` as the current segment and answers the function that closes it and
 * makes its parent current again (Powertools' own middleware for middy does the same).
 */
export function openSubsegment(
  service: string,
  name: string,
  annotations: Record<string, string | undefined>,
): (error?: unknown) => void {
  const t = tracerOf(service);
  const parent = t.isTracingEnabled() ? t.getSegment() : undefined;
  if (!parent) return () => {};
  const subsegment = parent.addNewSubsegment(name);
  for (const [key, value] of Object.entries(annotations)) {
    if (value !== undefined) subsegment.addAnnotation(key, value);
  }
  t.setSegment(subsegment);
  return (error) => {
    if (error) subsegment.addError(error as Error);
    subsegment.close();
    t.setSegment(parent);
  };
}
