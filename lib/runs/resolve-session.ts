import type { Switchboard } from '../agents/index.ts';
import { type Identity, ownerOf, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { ChatRequest } from '../contract/index.ts';
import {
  AgentNotFoundError,
  MessageNotFoundError,
  SessionConflictError,
  TenantSuspendedError,
  ValidationError,
} from '../errors/index.ts';
import { checkAgentFiles, checkNewSessionFiles, countSessionFiles } from '../files/index.ts';
import { digest, newId } from '../ids/index.ts';
import { sessionTitle, writableSession } from '../sessions/index.ts';
import { ensureSession, getSuspension, type SessionRecord, touchSession } from '../store/index.ts';
import { addLogKeys } from '../telemetry/index.ts';
import { checkBudgets, sessionBudget } from '../usage/index.ts';
import { checkFileIds, refuseIfBusy } from './request-checks.ts';

/** The 409 for a continuation when no host call of that id is pending (or there is no such session). */
export function noPendingCall(callId: string): SessionConflictError {
  return new SessionConflictError('not_pending', `No host tool call "${callId}" is pending in this session.`);
}

/**
 * The session a message, a rewrite or a continuation goes to, with the request's id (one sent
 * without an id gets one here), checked as every one of them is before anything is written: the
 * ownership gate, the agent, a suspended tenant (403), a spent budget (402, except for a
 * continuation), the files it names, and a busy session under `on_busy: "reject"`. A new session is
 * created only once all of them passed, so a refused request leaves none; a continuation or a
 * rewrite, which name something of an existing session, never creates one.
 */
export async function resolveSession(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ChatRequest,
): Promise<{ session: SessionRecord; requestId: string }> {
  const requestId = request.id ?? newId('req');
  // Without a session id the retry of a request must land in the same new session.
  const named = request.session_id ?? `s_${digest(requestId)}`;
  const { ref: sessionId, session: existing } = await writableSession(rt, identity, named, {
    path: ['session_id'],
  });
  if (existing && request.agent_id && request.agent_id !== existing.agentId) {
    throw new SessionConflictError(
      'agent_mismatch',
      `Session "${named}" is served by agent "${existing.agentId}", not "${request.agent_id}".`,
    );
  }
  const agentId = request.agent_id ?? existing?.agentId ?? app.defaultAgentId();
  if (!agentId)
    throw new ValidationError('agent_id is required.', [{ path: ['agent_id'], message: 'Required' }]);
  const agent = await app.resolveAgent(agentId, requestContextOf(identity));
  if (!agent) {
    throw new AgentNotFoundError(agentId);
  }
  // A suspended tenant's messages are refused (403), and a new message to a spent budget (402; a
  // continuation goes through), before anything is written. The two reads run together; a
  // suspension is said first.
  const { tenant } = ownerOf(identity);
  const suspension = tenant === undefined ? undefined : getSuspension(rt, tenant);
  const budgets =
    request.tool_call_id === undefined
      ? checkBudgets(rt, ownerOf(identity), {
          sessionId,
          session: existing,
          budgetUsd: sessionBudget(app.budgetFor(agent), existing),
          requestId,
        })
      : undefined;
  // Awaited below; until then a refusal must not count as unhandled.
  budgets?.catch(() => undefined);
  if (tenant !== undefined && (await suspension)) throw new TenantSuspendedError(tenant);
  await budgets;
  // Everything the request refers to is checked before anything is written: a rejected message leaves no session.
  const files = await checkFileIds(rt, identity, request);
  checkAgentFiles(agent, files);
  if (!existing) checkNewSessionFiles(rt, sessionId, files);
  // A continuation answers a call of an existing session: into one that does not exist, nothing is pending.
  if (!existing && request.tool_call_id !== undefined) throw noPendingCall(request.tool_call_id);
  if (existing) await refuseIfBusy(rt, existing, request, requestId);
  // Nor does a regenerate or an edit name a message of it.
  if (!existing && request.from_message_id !== undefined)
    throw new MessageNotFoundError(request.from_message_id, [
      { path: ['from_message_id'], message: 'no such message in this session' },
    ]);
  const title = sessionTitle(request.content);
  const session =
    existing ??
    (await ensureSession(rt, {
      sessionId,
      ...ownerOf(identity),
      agentId,
      createdAt: new Date(rt.clock()).toISOString(),
      metadata: request.metadata,
      ...(title && { name: title }),
    }));
  await countSessionFiles(rt, session.sessionId, files);
  addLogKeys({ sessionId: session.sessionId, agentId: session.agentId, requestId });
  // Sessions expire `retention.sessionsDays` after their last message.
  if (existing) await touchSession(rt, session.sessionId);
  return { session, requestId };
}
