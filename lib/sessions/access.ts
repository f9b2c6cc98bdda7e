import { type Identity, isOwner, sessionRef } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SessionNotFoundError } from '../errors/index.ts';
import { getSession, type SessionRecord } from '../store/index.ts';

/**
 * The session a caller names by its id (in the caller's own scope) or by its ref, when the caller
 * owns it (the same user in the same tenant). Another owner's session is reported exactly like a
 * missing one, so ids cannot be probed.
 */
export async function ownedSession(rt: Runtime, identity: Identity, id: string): Promise<SessionRecord> {
  const session = await getSession(rt, sessionRef(identity, id));
  if (!session || !isOwner(session, identity)) throw new SessionNotFoundError(id);
  return session;
}
