import type { Switchboard } from '../agents/index.ts';
import {
  hostSessionId,
  type Identity,
  isOwner,
  isOwnRef,
  requestContextOf,
  sessionRef,
  tenantOf,
} from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostAgentRegistration } from '../contract/index.ts';
import { type Issue, SessionNotFoundError } from '../errors/index.ts';
import { type ActionRecord, getAction, getSession, type SessionRecord } from '../store/index.ts';

/**
 * The ownership gate. Every door (an HTTP route, a WebSocket action, the AG-UI endpoint, the export
 * link, a file read) reaches a session through one of these functions, after checking the ids'
 * syntax and before reading the body: they answer the caller's session (or, to answer a request, a
 * session whose agent lets the caller answer it) or `404 session_not_found`, with the same status,
 * code and words for a session that is missing and one that is someone else's. Nothing else reads a
 * session, a run or a request by a ref a caller sent. See docs/security.md.
 */

/**
 * The refusal of the gate: the host's own words for the id (`Session "s1" does not exist.`, whether it
 * was named by its id or by a ref), so the answer says nothing the caller did not send.
 */
export function sessionNotFound(id: string, issues: Issue[] = []): SessionNotFoundError {
  return new SessionNotFoundError(hostSessionId(id), issues);
}

/** Options of the gate's functions. */
export interface GateOptions {
  /** Where the id was in the request, for the refusal's issues (`['session_id']`, `['threadId']`). */
  path?: (string | number)[];
  /** A session being deleted still counts (the delete route's retry finishes its work). */
  includeDeleted?: boolean;
}

const refusal = (id: string, options: GateOptions) =>
  sessionNotFound(id, options.path ? [{ path: options.path, message: 'unknown session' }] : []);

/**
 * The session a caller names by its id (in the caller's own scope) or by its ref, when the caller
 * owns it (the same user in the same tenant). Another owner's session is reported exactly like a
 * missing one, so ids cannot be probed.
 */
export async function ownedSession(
  rt: Runtime,
  identity: Identity,
  id: string,
  options: GateOptions = {},
): Promise<SessionRecord> {
  const session = await getSession(rt, sessionRef(identity, id), { includeDeleted: options.includeDeleted });
  if (!session || !isOwner(session, identity)) throw refusal(id, options);
  return session;
}

/**
 * Where a message goes: the caller's session of that id, or none yet (a message then opens it). A
 * ref in another owner's scope, where nothing can be created, and another owner's session are as
 * good as missing.
 */
export async function writableSession(
  rt: Runtime,
  identity: Identity,
  id: string,
  options: GateOptions = {},
): Promise<{ ref: string; session: SessionRecord | undefined }> {
  const ref = sessionRef(identity, id);
  const session = await getSession(rt, ref);
  if (session ? !isOwner(session, identity) : !isOwnRef(identity, ref)) throw refusal(id, options);
  return { ref, session };
}

/** A session whose request the caller may answer, with what the gate read to decide it. */
export interface Answerable {
  session: SessionRecord;
  /** The request, when the session has one of that id. */
  action: ActionRecord | undefined;
  /** The session's agent, when it is still registered for the caller. */
  agent: HostAgentRegistration | undefined;
  /** Whether the caller owns the session (else `authorizeResolve` let a reviewer in). */
  owner: boolean;
  /** Whether the agent's `authorizeResolve` allows the caller (the owner, without the hook). */
  allowed: boolean;
}

/**
 * The session of a request the caller answers: the caller's own, or another owner's in the caller's
 * tenant whose agent's `authorizeResolve` lets the caller answer that request (a reviewer, seed 003's
 * "who may answer"). Anything else (a missing session, another tenant's, a request the hook does not
 * open to the caller, a host call, an agent that takes no answers) is `404 session_not_found`, as a
 * missing session is: until the hook has said yes, nothing about the session is the caller's to learn.
 * An owner the hook refuses is told so later (403), by the answer itself.
 */
export async function answerableSession(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  id: string,
  actionId: string,
  options: GateOptions = {},
): Promise<Answerable> {
  const session = await getSession(rt, sessionRef(identity, id));
  if (!session) throw refusal(id, options);
  const owner = isOwner(session, identity);
  // Tenants are apart: another tenant's session is not even looked into.
  if (!owner && session.tenant !== tenantOf(identity)) throw refusal(id, options);
  const [agent, action] = await Promise.all([
    app.resolveAgent(session.agentId, requestContextOf(identity)),
    getAction(rt, session.sessionId, actionId),
  ]);
  const { authorizeResolve } = agent ? app.hitlFor(agent) : { authorizeResolve: undefined };
  const answerable = agent?.definition.resolveAction && action && action.kind !== 'host_tool';
  const allowed =
    answerable && authorizeResolve
      ? await authorizeResolve({
          user: identity.user,
          owner: session.owner,
          sessionId: session.sessionId,
          action: action.action as never,
          context: requestContextOf(identity),
        })
      : owner;
  if (!owner && !allowed) throw refusal(id, options);
  return { session, action, agent, owner, allowed };
}
