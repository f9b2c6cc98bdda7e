import type { RequestContext } from '../agents/index.ts';
import { UnauthorizedError } from '../errors/index.ts';

/**
 * Who a request comes from, as the authoriser established it (a JWT authoriser's claims, or a
 * Lambda authoriser's context). Never read from anything the host says about itself.
 */
export interface Identity {
  user: string;
  data: Record<string, unknown>;
}

/** The identity of a caller when no authoriser is configured (the local sandbox by default). */
export const ANONYMOUS = 'anonymous';

type AuthorizerShape = {
  jwt?: { claims?: Record<string, unknown> };
  lambda?: Record<string, unknown>;
  principalId?: unknown;
  [key: string]: unknown;
};

/** Reads the identity from an API Gateway event's `requestContext.authorizer`. */
export function identityFromAuthorizer(authorizer: AuthorizerShape | undefined | null): Identity {
  const claims = authorizer?.jwt?.claims;
  if (claims) {
    if (typeof claims.sub === 'string' && claims.sub.length > 0)
      return { user: claims.sub, data: pickData(claims) };
    // A valid token that names nobody must not become the shared anonymous user.
    throw new UnauthorizedError('The token names no subject (sub).');
  }
  const lambda = authorizer?.lambda ?? authorizer;
  const user = lambda?.user ?? lambda?.sub ?? lambda?.principalId;
  if (typeof user === 'string' && user.length > 0) return { user, data: pickData(lambda ?? {}) };
  // Only a deployment without an authoriser (the sandbox by default) has anonymous callers.
  const { principalId: _principal, ...rest } = lambda ?? {};
  if (Object.keys(rest).length > 0) throw new UnauthorizedError('The authoriser named no user.');
  return { user: ANONYMOUS, data: {} };
}

function pickData(source: Record<string, unknown>): Record<string, unknown> {
  const tenant = source.tenant ?? source['custom:tenant'];
  return typeof tenant === 'string' ? { tenant } : {};
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
 * The context of work that belongs to no request (a lapsed request, decided by the sweep), as the
 * seed asks the registry for it: the owner, in their tenant, for the system's timeout.
 */
export function lapseContext(record: { owner: string; tenant?: string }): RequestContext {
  const owner = ownerIdentity(record);
  return { user: { id: owner.user }, data: { ...owner.data, system: true, timeout: true } };
}
