import type { Context } from 'aws-lambda';
import { asInvocation } from '../lambda-context.ts';
import { withTimeout } from '../timeout.ts';

/**
 * Lambda's synchronous invoke limit on the event: Invoke refuses a request payload from
 * 6,291,456 bytes on ("Request must be smaller than 6291456 bytes", RequestEntityTooLargeException).
 */
export const LAMBDA_EVENT_MAX_BYTES = 6_291_456;
/**
 * Lambda's limit on what a function returns ("Response payload size exceeded maximum allowed
 * payload size (6291556 bytes)", Function.ResponseSizeTooLarge): 100 bytes more than a request may be.
 */
export const LAMBDA_RESULT_MAX_BYTES = 6_291_556;

/** How one integration call ended, as API Gateway sees it. */
export type InvokeOutcome<R> =
  | { kind: 'ok'; result: R }
  /** No answer within the integration timeout; the function may still be running, as on AWS. */
  | { kind: 'timeout' }
  /** The invocation failed: the function threw, or Lambda refused the event or the result. */
  | { kind: 'failed'; error: unknown }
  /** Every slot of the function's pool was taken: the function never ran, so nothing was done. */
  | { kind: 'throttled' };

/** How long a closing gateway waits for its running invocations (a hung handler must not hold it). */
export const SETTLE_MS = 5_000;

/** How many invocations of a function the sandbox runs at once unless told otherwise (see {@link InvocationPool}). */
export const DEFAULT_CONCURRENCY = 64;

/**
 * How many invocations of one function may run at once. Lambda runs each in an environment of its
 * own; the sandbox runs them all in one process, whose AWS clients share one socket pool, so past a
 * few hundred at once every invocation slows down until some pass their timeout after doing part of
 * their work, and the caller is told "error" for something done. A bounded pool refuses the excess
 * before it starts instead, as API Gateway's throttling does, so a refusal always means "not done".
 * A slot is held until the handler itself ends, past a timeout too (a real function goes on running).
 */
export class InvocationPool {
  #running = 0;
  #idle: (() => void)[] = [];

  /** `size` Infinity: a pool that never refuses, kept only to know what still runs. */
  constructor(readonly size: number) {
    if (size !== Number.POSITIVE_INFINITY && (!Number.isInteger(size) || size < 1))
      throw new Error('concurrency must be a whole number from 1');
  }

  /**
   * Resolves once nothing runs (or after `ms`, for a handler that never ends): a closing gateway
   * waits here, so no handler of a closed sandbox goes on calling services that are already gone.
   */
  async whenIdle(ms: number): Promise<void> {
    if (this.#running === 0) return;
    await withTimeout(new Promise<void>((resolve) => this.#idle.push(resolve)), ms, undefined);
  }

  /** Invocations running now. */
  get running(): number {
    return this.#running;
  }

  /** A slot, as the function that gives it back (once); undefined when every slot is taken. */
  take(): (() => void) | undefined {
    if (this.#running >= this.size) return undefined;
    this.#running += 1;
    let held = true;
    return () => {
      if (held) this.#running -= 1;
      held = false;
      if (this.#running === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }
}

/** Bytes of a value as Lambda serialises it (`undefined` travels as `null`). */
function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/**
 * Calls a handler the way API Gateway calls Lambda: an event over Lambda's limit never reaches
 * the function, a result over the limit is a failed invocation rather than a response, and no
 * answer within `timeoutMs` is a timeout (the handler is not stopped; neither is a real function).
 * With a `pool` whose every slot is taken, the handler is not called at all: `throttled`.
 */
export async function invokeLambda<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  context: Context,
  timeoutMs: number,
  pool?: InvocationPool,
): Promise<InvokeOutcome<R>> {
  const eventBytes = payloadBytes(event);
  if (eventBytes >= LAMBDA_EVENT_MAX_BYTES) {
    return { kind: 'failed', error: new Error(`Lambda refused a ${eventBytes}-byte event`) };
  }
  const release = pool ? pool.take() : () => {};
  if (!release) return { kind: 'throttled' };
  const call = (async (): Promise<InvokeOutcome<R>> => {
    try {
      const result = await asInvocation(() => handler(event, context));
      const bytes = payloadBytes(result);
      if (bytes > LAMBDA_RESULT_MAX_BYTES) {
        return { kind: 'failed', error: new Error(`Lambda refused a ${bytes}-byte result`) };
      }
      return { kind: 'ok', result };
    } catch (error) {
      return { kind: 'failed', error };
    } finally {
      release();
    }
  })();
  return withTimeout(call, timeoutMs, { kind: 'timeout' } as const);
}
