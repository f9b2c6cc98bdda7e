import { notPending, resolutionOf, resolutionView, withoutScreenshots } from '../actions/index.ts';
import type { Switchboard } from '../agents/index.ts';
import { hostSessionId, type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import {
  type ChatRequest,
  collectAttachments,
  type HostContext,
  type ResolveRequest,
} from '../contract/index.ts';
import { ForbiddenError, NotFoundError, SessionConflictError } from '../errors/index.ts';
import { type DomainEvent, pauseResolved, publishEvents } from '../events/index.ts';
import { newId } from '../ids/index.ts';
import type { Answerable } from '../sessions/index.ts';
import {
  type ActionRecord,
  decideAction,
  getAction,
  isOpen,
  listActions,
  messageId,
  putBlob,
  putRun,
  recordRequest,
  type SessionRecord,
  setHostContext,
} from '../store/index.ts';
import { splitAttachments, storeAttachment } from './attachments.ts';
import { decisionModeOf } from './decision.ts';
import { enqueue } from './job.ts';
import type { Accepted } from './submit.ts';

/**
 * Decides open requests that a newer run (`runId`) leaves behind, without an answer: a host call is
 * superseded, any other request withdrawn (cancelled, by system). One conditional write each, so a
 * request someone answered meanwhile stays answered. Returns the decided records, and the domain
 * events for those that had been announced as opened.
 */
export async function decideLeftBehind(
  rt: Runtime,
  session: SessionRecord,
  actions: ActionRecord[],
  runId: string,
): Promise<{ decided: ActionRecord[]; events: (DomainEvent | undefined)[] }> {
  const decided: ActionRecord[] = [];
  const events: (DomainEvent | undefined)[] = [];
  for (const action of actions) {
    const host = action.kind === 'host_tool';
    const done = await decideAction(
      rt,
      session.sessionId,
      action.actionId,
      { status: host ? 'superseded' : 'cancelled', actor: 'system', channel: 'system', decidedBy: runId },
      { now: rt.clock(), mustBeLive: false, from: action.status },
    );
    if (!done.decided) continue;
    decided.push(done.action);
    // A queued host call was never announced as opened: its end is not announced either.
    if (action.status === 'pending') events.push(pauseResolved(session, done.action, rt.clock()));
  }
  return { decided, events };
}

/**
 * A new message decides what is open before it is queued: a pending host call is superseded (a
 * late continuation for it is then a 409), and under `pendingActionPolicy: 'cancel'` open requests
 * are withdrawn, as are, whatever the policy, those asked on the messages a regenerate or an edit
 * cuts away (`cut`). The new turn's run announces them and tells the cancel hook.
 */
export async function supersedeOpen(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  session: SessionRecord,
  runId: string,
  cut?: (messageId: string) => boolean,
): Promise<string[]> {
  // One read of the session's requests: what is open, and (a retry after a crash) what this run
  // already decided, which is still its to announce.
  const actions = await listActions(rt, session.sessionId);
  const open = actions.filter(isOpen);
  const earlier = actions.filter((a) => a.decidedBy === runId).map((a) => a.actionId);
  if (open.length === 0) return earlier;
  const agent = await app.resolveAgent(session.agentId, requestContextOf(identity));
  const policy = agent?.definition.pendingActionPolicy ?? 'keep';
  const { decided, events } = await decideLeftBehind(
    rt,
    session,
    open.filter((a) => a.kind === 'host_tool' || policy === 'cancel' || cut?.(a.messageId)),
    runId,
  );
  await publishEvents(rt, events);
  return [...earlier, ...decided.map((a) => a.actionId)];
}

interface Resolution {
  resolution: Record<string, unknown>;
  screenshots?: unknown[];
  attachments?: ReturnType<typeof splitAttachments>['references'];
  /** A continuation's own host context, without attachments: stored on the session and on the run. */
  hostContext?: HostContext;
  /** A receipt of a silent host decision: its run records it, the agent is not called. */
  outputMode?: 'host_tools';
}

/**
 * Records an answer and queues the run that hands it to `resolveAction`. The decision is one
 * conditional write (pending, not lapsed): of two answers exactly one wins, the other is a 409
 * that says what happened. A retry of the same request id finishes the same work.
 */
async function decideAndQueue(
  rt: Runtime,
  identity: Identity,
  session: SessionRecord,
  action: ActionRecord | undefined,
  requestId: string,
  build: (action: ActionRecord) => Resolution,
): Promise<{ runId: string; action: ActionRecord; duplicate: boolean }> {
  const now = rt.clock();
  if (!action)
    throw new NotFoundError('action_not_found', 'There is no such pending request in this session.');
  // A malformed answer is refused before anything is written, so its request id stays unused.
  const built = build(action);
  const runId = newId('run');
  const { first, record } = await recordRequest(
    rt,
    {
      requestId,
      sessionId: session.sessionId,
      runId,
      userMessageId: action.messageId,
      assistantMessageId: messageId(runId, 1),
      createdAt: new Date(now).toISOString(),
    },
    now,
  );
  // A retry of this request finishes its work: after a crash before the decision the request is
  // still pending and undecided; after one past it, it was decided by this request's run.
  const ours = action.decidedBy === record.runId;
  const undecided = action.status === 'pending' && !action.decidedBy;
  if (!first && !ours && !undecided) throw notPending(action, now);
  let decided = action;
  if (!ours) {
    if (action.status !== 'pending' || action.expiresAt <= now) throw notPending(action, now);
    const { resolution, screenshots = [], attachments = [], hostContext, outputMode } = built;
    const screenshotKeys = screenshots.map(
      (_, i) => `screenshots/${session.sessionId}/${record.runId}/${i}.json`,
    );
    await Promise.all(screenshots.map((shot, i) => putBlob(rt, screenshotKeys[i] as string, shot)));
    // Contents always go to the bucket: the run item holds only their keys, whatever their number.
    const stored = await Promise.all(
      attachments.map((a, i) =>
        storeAttachment(rt, `attachments/${session.sessionId}/${record.runId}/${i}.json`, a, 0),
      ),
    );
    // The run first, then the decision: a run whose answer loses the race closes itself without a word,
    // and a decision is never left without the run that hands it to the agent.
    await putRun(rt, {
      runId: record.runId,
      sessionId: session.sessionId,
      requestId,
      agentId: session.agentId,
      userMessageId: action.messageId,
      assistantMessageId: action.kind === 'host_tool' ? action.messageId : record.assistantMessageId,
      status: 'queued',
      createdAt: record.createdAt,
      kind: 'resolve',
      actionId: action.actionId,
      context: requestContextOf(identity),
      ...(screenshotKeys.length > 0 && { screenshots: screenshotKeys }),
      ...(stored.length > 0 && { attachments: stored }),
      ...(hostContext && { hostContext }),
      ...(outputMode && { outputMode }),
    });
    const won = await decideAction(
      rt,
      session.sessionId,
      action.actionId,
      { status: 'resolved', resolution, actor: identity.user, channel: 'api', decidedBy: record.runId },
      { now, mustBeLive: true },
    );
    if (!won.decided) {
      await enqueue(rt, {
        v: 1,
        kind: 'resolve',
        sessionId: session.sessionId,
        runId: record.runId,
        requestId,
      });
      // The request as the refused decision found it: someone else decided it, or it lapsed.
      throw notPending(won.action ?? action, now);
    }
    decided = won.action;
    // Like a message's, the context is the session's from now on, once the continuation is applied (a
    // refused one stores nothing). A retry past the decision does not set it again: a later message
    // may have replaced it meanwhile; its own turn has it on the run either way.
    if (hostContext) await setHostContext(rt, session.sessionId, hostContext);
  }
  await enqueue(rt, { v: 1, kind: 'resolve', sessionId: session.sessionId, runId: record.runId, requestId });
  // Only the request that decided it announces it: a retry finds it decided already.
  if (!ours) await publishEvents(rt, [pauseResolved(session, decided, rt.clock())]);
  return { runId: record.runId, action: decided, duplicate: !first };
}

/** The 404 for answering (or continuing) a request of an agent that has no resolveAction. */
function resolveNotSupported(agentId: string): NotFoundError {
  return new NotFoundError(
    'resolve_not_supported',
    `Agent "${agentId}" has no resolveAction: its requests cannot be answered.`,
  );
}

/** The 409 for a continuation when no host call of that id is pending (or there is no such session). */
export function noPendingCall(callId: string): SessionConflictError {
  return new SessionConflictError('not_pending', `No host tool call "${callId}" is pending in this session.`);
}

/** A host's continuation: the result of the pending host call, handed to the agent on the same message. */
export async function submitContinuation(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  session: SessionRecord,
  request: ChatRequest,
  requestId: string,
): Promise<Accepted> {
  const callId = request.tool_call_id as string;
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
  const { runId, duplicate } = await decideAndQueue(rt, identity, session, action, requestId, () => {
    const { value, screenshots } = withoutScreenshots(request.tool_result);
    const failed = request.tool_outcome === 'failed';
    const { attachments: _attachments, ...hostContext } = request.host_context ?? {};
    const { references, screenshots: shots } = splitAttachments(
      collectAttachments({
        attachments: request.attachments,
        images: request.images,
        screenshot: request.screenshot,
        contextAttachments: request.host_context?.attachments,
      }),
    );
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
  return {
    request_id: requestId,
    session_id: hostSessionId(session.sessionId),
    run_id: runId,
    message_id: action.messageId,
    assistant_message_id: action.messageId,
    status: 'queued',
    duplicate,
  };
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
) {
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
  } = await decideAndQueue(rt, identity, session, action, request.id ?? newId('req'), (a) => ({
    resolution: resolutionOf(a, request),
  }));
  return {
    session_id: hostSessionId(session.sessionId),
    action_id: actionId,
    run_id: runId,
    status: 'queued' as const,
    decision: decided.resolution ? resolutionView(decided.resolution) : null,
    duplicate,
  };
}
