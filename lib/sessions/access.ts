import { type Identity, isOwner } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { NotFoundError } from '../errors/index.ts';
import { getSession, type SessionRecord } from '../store/index.ts';

/**
 * The session, when the caller owns it (the same user in the same tenant). Another owner's session
 * is reported exactly like a missing one, so ids cannot be probed.
 */
export async function ownedSession(
  rt: Runtime,
  identity: Identity,
  sessionId: string,
): Promise<SessionRecord> {
  const session = await getSession(rt, sessionId);
  if (!session || !isOwner(session, identity)) {
    throw new NotFoundError('session_not_found', `Session "${sessionId}" does not exist.`);
  }
  return session;
}
