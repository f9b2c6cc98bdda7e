import type { Runtime } from '../config/index.ts';
import type { AuthorizerShape } from './claims.ts';
import { resolveIdentity } from './resolve.ts';
import { withScope } from './session-ref.ts';
import type { Identity, ResolveContext } from './types.ts';

/**
 * Who a request comes from, as every door asks it: the authoriser's claims read by `resolveContext`,
 * with the caller's session scope keyed by the deployment's secret (read once per execution
 * environment, alongside the first resolution).
 */
export async function identify(
  rt: Runtime,
  authorizer: AuthorizerShape | undefined | null,
  resolveContext?: ResolveContext,
): Promise<Identity> {
  const [identity, key] = await Promise.all([resolveIdentity(authorizer, resolveContext), rt.refKey()]);
  return withScope(key, identity);
}
