import type { Identity } from '../../auth/index.ts';
import type { Runtime } from '../../config/index.ts';
import { limitUser } from '../../limits/index.ts';
import { callerOf } from './identify.ts';
import type { Middleware } from './types.ts';

/**
 * `rateLimit`, after `identify`: counts the request against the caller's limits (by default the
 * user's; `count` says otherwise) before the handler reads anything, so a refused request stores nothing.
 */
export function rateLimit<E extends object>(
  rt: () => Runtime,
  count: (rt: Runtime, event: E, caller: Identity) => Promise<void> | undefined = (r, _e, caller) =>
    limitUser(r, caller),
): Middleware<E> {
  return {
    name: 'rateLimit',
    before: (request) => count(rt(), request.event, callerOf(request.context)),
  };
}
