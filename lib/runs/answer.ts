import { resolutionOf, resolutionView } from '../actions/index.ts';
import { remembersTools } from '../agents/index.ts';
import { hostSessionId, type Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { ResolveRequest } from '../contract/index.ts';
import { ForbiddenError, SessionConflictError } from '../errors/index.ts';
import { newId } from '../ids/index.ts';
import type { Answerable } from '../sessions/index.ts';
import { queueAnswer, resolveNotSupported } from './queue-answer.ts';

/** An accepted answer: the run that hands it to the agent, and what was decided. */
export interface Answered {
  session_id: string;
  action_id: string;
  run_id: string;
  status: 'queued';
  /** The decision as recorded (on a retry, the one the first send recorded). */
  decision: ReturnType<typeof resolutionView> | null;
  duplicate: boolean;
}

/**
 * An answer to an approval, a question or a client tool, from a person or the page, to a request
 * the ownership gate (`answerableSession`) has let the caller reach.
 */
export async function submitAnswer(
  rt: Runtime,
  identity: Identity,
  gated: Answerable,
  actionId: string,
  request: ResolveRequest,
): Promise<Answered> {
  const { session, action, agent, allowed } = gated;
  if (!agent?.definition.resolveAction) throw resolveNotSupported(session.agentId);
  if (action?.kind === 'host_tool') {
    throw new SessionConflictError(
      'not_an_answer',
      `"${actionId}" is a host tool call: send a continuation (POST /api/chat with tool_call_id).`,
    );
  }
  if (!allowed) throw new ForbiddenError('You may not answer this request.');
  const {
    runId,
    action: decided,
    duplicate,
  } = await queueAnswer(rt, identity, session, action, request.id ?? newId('req'), (a) => ({
    resolution: resolutionOf(a, request),
    remembers: remembersTools(agent),
  }));
  return {
    session_id: hostSessionId(session.sessionId),
    action_id: actionId,
    run_id: runId,
    status: 'queued',
    decision: decided.resolution ? resolutionView(decided.resolution) : null,
    duplicate,
  };
}
