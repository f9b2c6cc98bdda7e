import { randomUUID } from 'node:crypto';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Context } from 'aws-lambda';

/** What the sandbox knows about the function it pretends to run. */
export interface LambdaContextOptions {
  /** The function's name, as in `AWS_LAMBDA_FUNCTION_NAME`. */
  functionName: string;
  /** The function's timeout; `getRemainingTimeInMillis()` counts down from it. */
  timeoutMs: number;
  /** Default `us-east-1`. */
  region?: string;
  /** Default `000000000000`, the account fauxqs uses. */
  accountId?: string;
  /** Default 1024. */
  memoryLimitInMB?: number;
  /** The clock `getRemainingTimeInMillis()` counts down by: the functions' own, so a test can step it. Default `Date.now`. */
  clock?: () => number;
}

/**
 * Builds the `context` argument Lambda passes to a handler, for one invocation.
 *
 * @example
 * const context = createLambdaContext({ functionName: 'worker', timeoutMs: 900_000 });
 * await handler(event, context);
 */
export function createLambdaContext(options: LambdaContextOptions): Context {
  const { functionName, timeoutMs } = options;
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const clock = options.clock ?? Date.now;
  const deadline = clock() + timeoutMs;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  // The callback-era methods exist on the real object; a handler calling them is a bug worth surfacing.
  const legacy = (): never => {
    throw new Error('context.done/fail/succeed are not supported: return a promise instead');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - clock()),
    done: legacy,
    fail: legacy,
    succeed: legacy,
  };
}

/**
 * Runs one invocation of a function as Lambda runs it: in a context of its own. Every function runs
 * in this one process, so a span (or a scope a middleware entered) of one invocation must not be
 * the parent of another's.
 */
export function asInvocation<T>(invoke: () => Promise<T>): Promise<T> {
  return context.with(ROOT_CONTEXT, invoke);
}

/**
 * Runs what Lambda's own services do for a function (the event source's receive and delete) with
 * tracing suppressed: on AWS they are no call of the function's, and make no span of its.
 */
export function untraced<T>(call: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(ROOT_CONTEXT), call);
}
