import { createHmac } from 'node:crypto';
import { SESSION_REF_SCOPE } from '../contract/ids.ts';
import { ownerOf } from './identity.ts';
import type { Identity } from './types.ts';

/**
 * Session ids are scoped to their owner. A host names a session by its own id (`s1`); the runtime
 * stores it under a *session ref*, `<scope>~<id>`, where the scope is an HMAC of the owner (tenant
 * and user) under the deployment's secret key. Two owners who pick the same id get two sessions, so
 * no one can take an id before its owner uses it, and no one learns whether an id is in use by
 * someone else: their requests reach their own (missing) session. Without the key nobody can compute
 * another owner's refs; and a ref is never a capability either: the ownership gate
 * (lib/sessions/access.ts) decides who reaches a session. See docs/security.md.
 *
 * The ref is what the runtime's own records, the agent's `conversationId` and the operator tools
 * use; hosts see their own id. A caller that is not the owner (a reviewer that `authorizeResolve`
 * allows) names a session by its ref, which `GET /api/sessions/{id}` shows as `ref`.
 */
const SEPARATOR = '~';

/** A ref's owner scope: 32 characters of base64url. */
const REF_PATTERN = new RegExp(`^${SESSION_REF_SCOPE}`);

/**
 * The scope of an owner's sessions: HMAC-SHA-256 of their tenant and user id under `key`, 32
 * characters of base64url. Each part is ended by a NUL, so no two owners share one input.
 */
export function ownerScope(key: Uint8Array, owner: { owner: string; tenant?: string }): string {
  return createHmac('sha256', key)
    .update(`${owner.tenant ?? ''}\u0000${owner.owner}\u0000`)
    .digest('base64url')
    .slice(0, 32);
}

/** The caller with the scope of their sessions: what the step that identifies a request hands on. */
export function withScope(key: Uint8Array, identity: Identity): Identity {
  return { ...identity, scope: ownerScope(key, ownerOf(identity)) };
}

function scopeOf(identity: Identity): string {
  // A programming error, not a caller's: every door identifies its caller (withScope) first.
  if (identity.scope === undefined) throw new Error('An identity without its scope names a session.');
  return identity.scope;
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
