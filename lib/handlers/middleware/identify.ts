import type { Switchboard } from '../../agents/index.ts';
import { type AuthorizerShape, type Identity, identify as identifyCaller } from '../../auth/index.ts';
import type { Runtime } from '../../config/index.ts';
import type { Middleware } from './types.ts';

const callers = new WeakMap<object, Identity>();

type Claims = AuthorizerShape | undefined | null;
const fromAuthorizer = (event: { requestContext: { authorizer?: AuthorizerShape } }) =>
  event.requestContext.authorizer;

/**
 * `identify`: who the caller is, asked once per request: the claims (by default the authoriser's,
 * else `claimsOf` reads them) read by the server's `resolveContext`. Later steps and the handler read
 * it with {@link callerOf}.
 */
export function identify<E extends object>(
  rt: () => Runtime,
  app: Switchboard,
  claimsOf: (event: E) => Claims | Promise<Claims> = fromAuthorizer as never,
): Middleware<E> {
  return {
    name: 'identify',
    async before(request) {
      callers.set(
        request.event,
        await identifyCaller(rt(), await claimsOf(request.event), app.resolveContext),
      );
    },
  };
}

/**
 * The caller `identify` found for this event. A handler whose pipeline lacks `identify` has none, and
 * fails on it (test/unit/pipelines.test.ts lists every handler's pipeline).
 */
export const callerOf = (event: object) => callers.get(event) as Identity;
