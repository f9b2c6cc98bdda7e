import type { RequestContext } from '../contract/index.ts';
import { type AuthorizerShape, claimsOf } from './claims.ts';
import { defaultResolveContext, identityFromContext } from './resolve.ts';
import { ANONYMOUS, type Identity } from './types.ts';

/**
 * Reads the identity from an API Gateway event's `requestContext.authorizer` with the default
 * `resolveContext` (the server's own hook is applied by {@link resolveIdentity}).
 */
export function identityFromAuthorizer(authorizer: AuthorizerShape | undefined | null): Identity {
  const claims = claimsOf(authorizer);
  if (claims === undefined) return { user: ANONYMOUS, data: {} };
  return identityFromContext(defaultResolveContext(claims));
}

/** The request context an agent and the per-request registry see. */
export function requestContextOf(identity: Identity): RequestContext {
  return { user: { id: identity.user }, data: identity.data };
}

/** The tenant the authoriser put the caller in, if it named one. */
export function tenantOf(identity: Identity): string | undefined {
  return typeof identity.data.tenant === 'string' ? identity.data.tenant : undefined;
}

/** What a new session or file records of who owns it: the user, and the tenant when there is one. */
export function ownerOf(identity: Identity): { owner: string; tenant?: string } {
  const tenant = tenantOf(identity);
  return { owner: identity.user, ...(tenant !== undefined && { tenant }) };
}

/**
 * Whether the caller owns a record: the same user in the same tenant. A user id is only unique
 * within its tenant, so the same id in another tenant owns nothing here.
 */
export function isOwner(record: { owner: string; tenant?: string }, identity: Identity): boolean {
  return record.owner === identity.user && record.tenant === tenantOf(identity);
}

/** The identity of a record's owner, for work done on their behalf (a run whose request context is gone). */
export function ownerIdentity(record: { owner: string; tenant?: string }): Identity {
  return { user: record.owner, data: record.tenant === undefined ? {} : { tenant: record.tenant } };
}

/**
 * The context of work that belongs to no request and that no timeout started (closing a run whose
 * worker was lost: recovery), as the seed marks it: `system: true`. The owner and their tenant stay
 * in it, so that a per-request registry can still find the agent.
 */
export function systemContext(record: { owner: string; tenant?: string }): RequestContext {
  const owner = ownerIdentity(record);
  return { user: { id: owner.user }, data: { ...owner.data, system: true } };
}

/**
 * The context of work that belongs to no request (a lapsed request, decided by the sweep), as the
 * seed asks the registry for it: the owner, in their tenant, for the system's timeout.
 */
export function lapseContext(record: { owner: string; tenant?: string }): RequestContext {
  const context = systemContext(record);
  return { ...context, data: { ...context.data, timeout: true } };
}
