import type { Context } from 'aws-lambda';
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
  | { kind: 'failed'; error: unknown };

/** Bytes of a value as Lambda serialises it (`undefined` travels as `null`). */
function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/**
 * Calls a handler the way API Gateway calls Lambda: an event over Lambda's limit never reaches
 * the function, a result over the limit is a failed invocation rather than a response, and no
 * answer within `timeoutMs` is a timeout (the handler is not stopped; neither is a real function).
 */
export async function invokeLambda<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  context: Context,
  timeoutMs: number,
): Promise<InvokeOutcome<R>> {
  const eventBytes = payloadBytes(event);
  if (eventBytes >= LAMBDA_EVENT_MAX_BYTES) {
    return { kind: 'failed', error: new Error(`Lambda refused a ${eventBytes}-byte event`) };
  }
  const call = (async (): Promise<InvokeOutcome<R>> => {
    try {
      const result = await handler(event, context);
      const bytes = payloadBytes(result);
      if (bytes > LAMBDA_RESULT_MAX_BYTES) {
        return { kind: 'failed', error: new Error(`Lambda refused a ${bytes}-byte result`) };
      }
      return { kind: 'ok', result };
    } catch (error) {
      return { kind: 'failed', error };
    }
  })();
  return withTimeout(call, timeoutMs, { kind: 'timeout' } as const);
}
