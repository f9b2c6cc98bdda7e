import { SESSION_REF_SCOPE } from '../contract/ids.ts';
import { digest } from '../ids/index.ts';
import { tenantOf } from './identity.ts';
import type { Identity } from './types.ts';

/**
 * Session ids are scoped to their owner. A host names a session by its own id (`s1`); the runtime
 * stores it under a *session ref*, `<scope>~<id>`, where the scope is a digest of the owner
 * (tenant and user). Two owners who pick the same id get two sessions, so no one can take an id
 * before its owner uses it, and no one learns whether an id is in use by someone else: their
 * requests reach their own (missing) session. See docs/security.md.
 *
 * The ref is what the runtime's own records, the agent's `conversationId` and the operator tools
 * use; hosts see their own id. A caller that is not the owner (a reviewer that `authorizeResolve`
 * allows) names a session by its ref, which `GET /api/sessions/{id}` shows as `ref`.
 */
const SEPARATOR = '~';

/** A ref's owner scope: 32 characters of base64url. */
const REF_PATTERN = new RegExp(`^${SESSION_REF_SCOPE}`);

/** The scope of an owner's sessions: a digest of their tenant and user id. */
export function ownerScope(owner: { owner: string; tenant?: string }): string {
  return digest('owner', owner.tenant ?? '', owner.owner);
}

function scopeOf(identity: Identity): string {
  const tenant = tenantOf(identity);
  return ownerScope({ owner: identity.user, ...(tenant !== undefined && { tenant }) });
}

/** Whether an id a caller sent is a ref (an owner's scope and an id), rather than a host's own id. */
export const isSessionRef = (id: string): boolean => REF_PATTERN.test(id);

/**
 * The ref a caller means by `id`: a host's own id is in the caller's scope; a ref is taken as it
 * is (it then finds a session only for its owner, or a reviewer the agent allows).
 */
export function sessionRef(identity: Identity, id: string): string {
  return isSessionRef(id) ? id : `${scopeOf(identity)}${SEPARATOR}${id}`;
}

/** Whether a ref is in the caller's own scope: only there can the caller create a session. */
export function isOwnRef(identity: Identity, ref: string): boolean {
  return ref.startsWith(`${scopeOf(identity)}${SEPARATOR}`);
}

/** The host's own id of a session ref, as the host named it. */
export function hostSessionId(ref: string): string {
  return isSessionRef(ref) ? ref.slice(ref.indexOf(SEPARATOR) + 1) : ref;
}
