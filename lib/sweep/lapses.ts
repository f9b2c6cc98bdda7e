import type { Switchboard } from '../agents/index.ts';
import { lapseContext } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostAgentRegistration } from '../contract/index.ts';
import { pauseLapsed, publishEvents } from '../events/index.ts';
import { newId } from '../ids/index.ts';
import { enqueue } from '../runs/index.ts';
import {
  type ActionRecord,
  decideAction,
  dueActions,
  getAction,
  getSession,
  messageId,
  putRun,
  type SessionRecord,
} from '../store/index.ts';

/** A refusal, in the shape each kind of request is answered with. */
function refusalOf(action: ActionRecord): Record<string, unknown> {
  switch (action.kind) {
    case 'client_tool':
      return { type: 'client_tool', error: 'The request lapsed before the page answered it.' };
    case 'host_tool':
      return {
        type: 'host_tool',
        outcome: 'failed',
        result: null,
        error: 'The host did not answer the call in time.',
      };
    case 'user_question':
      return { decision: 'deny', answers: null };
    default:
      return { decision: 'deny' };
  }
}

async function lapse(
  rt: Runtime,
  app: Switchboard,
  action: ActionRecord,
  session: SessionRecord,
  now: number,
): Promise<'denied' | 'cancelled' | 'raced'> {
  // The seed's context for work that belongs to no request: the owner, for the system's timeout.
  const agent: HostAgentRegistration | undefined = await app.resolveAgent(
    session.agentId,
    lapseContext(session),
  );
  const onTimeout = agent ? app.hitlFor(agent).onTimeout : 'cancel';
  const deny = onTimeout === 'deny' && agent?.definition.resolveAction !== undefined;
  if (!agent) {
    rt.logger.warn(
      'No agent for a lapsed request: it is withdrawn instead of denied, and the agent is not told',
      {
        sessionId: session.sessionId,
        actionId: action.actionId,
        agentId: session.agentId,
      },
    );
  }
  const runId = newId('run');
  await putRun(rt, {
    runId,
    sessionId: session.sessionId,
    requestId: `lapse:${action.actionId}:${action.expiresAt}`,
    agentId: session.agentId,
    userMessageId: action.messageId,
    assistantMessageId: action.kind === 'host_tool' ? action.messageId : messageId(runId, 1),
    status: 'queued',
    createdAt: new Date(now).toISOString(),
    kind: deny ? 'resolve' : 'lapse',
    actionId: action.actionId,
    ...(action.askedIn && { follows: action.askedIn }),
  });
  const decided = await decideAction(
    rt,
    session.sessionId,
    action.actionId,
    deny
      ? {
          status: 'resolved',
          resolution: refusalOf(action),
          actor: 'system:timeout',
          channel: 'timeout',
          expired: true,
          decidedBy: runId,
        }
      : { status: 'expired', actor: 'system:timeout', channel: 'timeout', expired: true, decidedBy: runId },
    { now, mustBeLive: false },
  );
  const won = decided.decided;
  if (decided.decided) await publishEvents(rt, [pauseLapsed(session, decided.action, rt.clock())]);
  // Queued either way: a run whose decision lost the race closes itself without a word.
  await enqueue(rt, {
    v: 1,
    kind: deny ? 'resolve' : 'lapse',
    sessionId: session.sessionId,
    runId,
    requestId: runId,
    ...(action.askedIn && { follows: action.askedIn }),
  });
  if (won)
    rt.logger.warn(`A pending request lapsed: ${deny ? 'denied (hitl.onTimeout: deny)' : 'withdrawn'}`, {
      agentId: session.agentId,
      sessionId: session.sessionId,
      actionId: action.actionId,
      runId,
    });
  return won ? (deny ? 'denied' : 'cancelled') : 'raced';
}

/**
 * Applies `hitl.onTimeout` to every request whose expiry passed, found through the due index.
 * The decision is the same conditional write an answer makes, so sweep and answer race safely.
 */
export async function sweepLapses(rt: Runtime, app: Switchboard, now: number, lookbackHours: number) {
  const counts = { denied: 0, cancelled: 0, raced: 0 };
  for (const due of await dueActions(rt, now, lookbackHours)) {
    const action = await getAction(rt, due.sessionId, due.actionId);
    const session = action?.status === 'pending' ? await getSession(rt, due.sessionId) : undefined;
    if (!action || !session || action.expiresAt > now) continue;
    counts[await lapse(rt, app, action, session, now)] += 1;
  }
  return counts;
}
