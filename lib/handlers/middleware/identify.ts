import type { Switchboard } from '../../agents/index.ts';
import { type AuthorizerShape, type Identity, identify as identifyCaller } from '../../auth/index.ts';
import type { Runtime } from '../../config/index.ts';
import type { Invocation, Middleware } from './types.ts';

type Claims = AuthorizerShape | undefined | null;

/** The claims API Gateway's authoriser put on an HTTP or WebSocket event: what `identify` reads at most doors. */
export const authorizerClaims = (event: { requestContext: { authorizer?: AuthorizerShape } }): Claims =>
  event.requestContext.authorizer;

/**
 * `identify`: who the caller is, asked once per request: the claims `claimsOf` reads (the
 * authoriser's, {@link authorizerClaims}, at most doors) read by the server's `resolveContext`.
 * Later steps and the handler read it from the invocation's context with {@link callerOf}.
 */
export function identify<E>(
  rt: () => Runtime,
  app: Switchboard,
  claimsOf: (event: E) => Claims | Promise<Claims>,
): Middleware<E> {
  return {
    name: 'identify',
    async before(request) {
      const claims = await claimsOf(request.event);
      request.context.caller = await identifyCaller(rt(), claims, app.resolveContext);
    },
  };
}

/**
 * The caller `identify` found for this invocation. A handler whose pipeline lacks `identify` has
 * none, and fails on it (test/unit/pipelines.test.ts lists every handler's pipeline).
 */
export function callerOf(context: Invocation): Identity {
  if (!context.caller) throw new Error('No caller: this handler’s pipeline has no identify step.');
  return context.caller;
}
