import { ModelEndpointError } from '../errors/index.ts';

/**
 * What one model reply may hold. A reply's text and a call's arguments are stored (as the answer, as
 * a request's `args`) and a run's events are sent to hosts, so each is bounded well under a Lambda
 * answer (6 MB) and an SQS message (1 MiB of a job); the stream as a whole (text, arguments, usage,
 * the events the endpoint sends besides) is bounded so that a runaway endpoint cannot hold the worker.
 */
export const MODEL_REPLY_LIMITS = {
  /** The text of one reply (the sum of its deltas), in bytes of UTF-8. */
  textBytes: 1024 * 1024,
  /** The arguments of one tool call, in bytes of UTF-8. */
  argumentsBytes: 1024 * 1024,
  /** Everything one streamed answer sends, in bytes on the wire. */
  streamBytes: 8 * 1024 * 1024,
  /** Tool calls in one reply (Chat Completions' `index` runs from 0 to one less). */
  calls: 128,
  /** A call's id and a tool's name, in characters. */
  idLength: 256,
} as const;

/** A reply that breaks the wire's shape: `model_error`, naming what was malformed (never its value). */
export const malformed = (what: string) =>
  new ModelEndpointError(`The model endpoint's reply is malformed: ${what}.`);

/** A reply past one of {@link MODEL_REPLY_LIMITS}: `model_error`. */
export const tooLarge = (what: string, limit: number) =>
  new ModelEndpointError(`The model endpoint's reply is too large: ${what} passed ${mib(limit)}.`);

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

/**
 * An error the endpoint reported inside a stream (a Responses `response.failed` or `error` event):
 * its words, type and code, which the loop redacts before anything else sees them.
 */
export class ReportedError extends Error {
  constructor(
    message: string,
    readonly type?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A plain object of the endpoint's JSON (not an array, not null), or undefined. */
export const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** An own property of an endpoint's object: never one inherited (`constructor`, `__proto__`). */
export const field = (object: Record<string, unknown> | undefined, name: string): unknown =>
  object !== undefined && Object.hasOwn(object, name) ? object[name] : undefined;

/** An optional string field: the string, undefined when absent or null, else malformed. */
export function optionalString(object: Record<string, unknown> | undefined, name: string, where: string) {
  const value = field(object, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw malformed(`${where}.${name} is not a string`);
  return value;
}

/** A token count: a non-negative integer, or 0 when the endpoint sent none. */
export function count(object: Record<string, unknown> | undefined, name: string, where: string): number {
  const value = field(object, name);
  if (value === undefined || value === null) return 0;
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw malformed(`${where}.${name} is not a non-negative integer`);
  return value as number;
}

/** Sums bytes of text against a bound. */
export class Budget {
  private used = 0;
  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {}
  add(text: string): void {
    this.used += Buffer.byteLength(text, 'utf8');
    if (this.used > this.limit) throw tooLarge(this.what, this.limit);
  }
}

/**
 * The `fetch` the endpoint's client uses: an answer with a success status must be an event stream
 * (each call streams), and it is read through a counter that fails past
 * {@link MODEL_REPLY_LIMITS}.streamBytes. So is the body of an error status, which the client reads
 * whole (its JSON is the client's to read; the loop redacts what it says).
 */
export const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.body === null) return res;
  const head = { status: res.status, statusText: res.statusText, headers: res.headers };
  const type = res.headers.get('content-type') ?? '';
  if (res.ok && !/^\s*text\/event-stream\s*(;|$)/i.test(type)) {
    await res.body.cancel().catch(() => {});
    const bare = type.split(';')[0]?.trim() ?? '';
    const named = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(bare) ? bare : 'no known content type';
    return new Response(failing(malformed(`it is ${named}, not an event stream`)), head);
  }
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > MODEL_REPLY_LIMITS.streamBytes)
        controller.error(tooLarge('the stream', MODEL_REPLY_LIMITS.streamBytes));
      else controller.enqueue(chunk);
    },
  });
  return new Response(res.body.pipeThrough(counter), head);
};

/** A body whose first read fails with `error`: how the client's stream reader is told. */
const failing = (error: Error) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(error);
    },
  });
