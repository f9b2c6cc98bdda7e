import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';

/** One named step of a handler's pipeline: middy's `before`/`after`/`onError` hooks. */
export type Middleware<E = unknown, R = unknown> = MiddlewareObj<E, R, Error, Context> & { name: string };

/** A handler with its pipeline: the names of its middlewares, in the order they run `before`. */
export interface Piped {
  readonly pipeline: readonly string[];
}
