import { withoutScreenshots } from '../actions/index.ts';
import type { Switchboard } from '../agents/index.ts';
import { type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { ChatRequest, HostContext } from '../contract/index.ts';
import { SessionConflictError } from '../errors/index.ts';
import { getAction } from '../store/index.ts';
import { attachmentsOf } from './attachments.ts';
import { decisionModeOf } from './decision.ts';
import { queueAnswer, resolveNotSupported } from './queue-answer.ts';
import { noPendingCall, resolveSession } from './resolve-session.ts';
import { type Accepted, acceptedOf, type BeforeEnqueue } from './types.ts';

/** A continuation: a message that carries the result of the pending host call `tool_call_id`. */
export type ContinuationRequest = ChatRequest & { tool_call_id: string };

/**
 * A host's continuation: the result of the pending host call, handed to the agent on the same
 * message. Its session is checked as a new message's is (a spent budget does not stop it), then the
 * call it answers: one of this session's host calls, still pending, of an agent that can take it.
 */
export async function submitContinuation(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ContinuationRequest,
  beforeEnqueue?: BeforeEnqueue,
): Promise<Accepted> {
  const { session, requestId } = await resolveSession(rt, app, identity, request);
  // The sender joins before anything is written, so it sees every event of the continuation, its
  // `action.resolved` among them.
  await beforeEnqueue?.(session.sessionId);
  const callId = request.tool_call_id;
  const action = await getAction(rt, session.sessionId, callId);
  // The mode is the one the call was proposed in, whatever the receipt says: a receipt never narrates.
  const outputMode = action ? await decisionModeOf(rt, action) : request.output_mode;
  const agent = await app.resolveAgent(session.agentId, requestContextOf(identity));
  // Without resolveAction the agent cannot pause: nothing can carry the result to it (a receipt needs none).
  if (!outputMode && !agent?.definition.resolveAction) throw resolveNotSupported(session.agentId);
  if (action && action.kind !== 'host_tool') {
    throw new SessionConflictError(
      'not_a_host_call',
      `"${callId}" is a ${action.kind}: answer it at /api/sessions/{id}/actions/{actionId}.`,
    );
  }
  if (!action) throw noPendingCall(callId);
  const { runId, duplicate } = await queueAnswer(rt, identity, session, action, requestId, () => {
    const { value, screenshots } = withoutScreenshots(request.tool_result);
    const failed = request.tool_outcome === 'failed';
    const { attachments: _attachments, ...hostContext } = request.host_context ?? {};
    const { references, screenshots: shots } = attachmentsOf(request);
    return {
      // A failed outcome reaches the agent as a failed tool result: the result, as text.
      resolution: {
        type: 'host_tool',
        outcome: failed ? 'failed' : 'succeeded',
        result: value,
        ...(failed && { error: typeof value === 'string' ? value : JSON.stringify(value) }),
      },
      screenshots: [
        ...screenshots.map((data_uri) => ({ kind: 'image', purpose: 'screenshot', data_uri })),
        ...shots,
      ],
      attachments: references,
      ...(request.host_context && { hostContext: hostContext as HostContext }),
      ...(outputMode && { outputMode }),
    };
  });
  return acceptedOf({
    requestId,
    sessionId: session.sessionId,
    runId,
    messageId: action.messageId,
    assistantMessageId: action.messageId,
    duplicate,
  });
}
