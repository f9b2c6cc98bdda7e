import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Identity } from '../../auth/index.ts';
import type { Trace } from '../../telemetry/index.ts';

/**
 * One invocation's context: Lambda's, and what the pipeline's steps learnt for the later steps and
 * the handler, the way middy's own middlewares hand state on (on `request.context`). Each invocation
 * has its own (see `pipeline`), so nothing one learnt reaches another.
 */
export interface Invocation extends Context {
  /** Who the caller is, set by `identify`; read it with `callerOf`. */
  caller?: Identity;
  /** Closes the invocation's subsegment, set by `telemetry` when the runtime traces. */
  trace?: Trace;
}

/** One named step of a handler's pipeline: middy's `before`/`after`/`onError` hooks. */
export type Middleware<E = unknown, R = unknown> = MiddlewareObj<E, R, Error, Invocation> & { name: string };

/** A handler with its pipeline: the names of its middlewares, in the order they run `before`. */
export interface Piped {
  readonly pipeline: readonly string[];
}
