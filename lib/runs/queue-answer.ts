import { notPending } from '../actions/index.ts';
import { type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { Attachment, HostContext } from '../contract/index.ts';
import { NotFoundError } from '../errors/index.ts';
import { pauseResolved, publishEvents } from '../events/index.ts';
import {
  type ActionRecord,
  decideAction,
  putRun,
  rememberTool,
  type SessionRecord,
  setHostContext,
} from '../store/index.ts';
import { storeAttachment, storeScreenshots } from './attachments.ts';
import { enqueue, type TurnJob } from './job.ts';
import { recordRequestRun } from './record-request.ts';

/** The 404 for answering (or continuing) a request of an agent that has no resolveAction. */
export function resolveNotSupported(agentId: string): NotFoundError {
  return new NotFoundError(
    'resolve_not_supported',
    `Agent "${agentId}" has no resolveAction: its requests cannot be answered.`,
  );
}

/** What an answer hands the agent, built from the request it answers. */
export interface Resolution {
  resolution: Record<string, unknown>;
  screenshots?: unknown[];
  attachments?: Attachment[];
  /** A continuation's own host context, without attachments: stored on the session and on the run. */
  hostContext?: HostContext;
  /** A receipt of a silent host decision: its run records it, the agent is not called. */
  outputMode?: 'host_tools';
  /**
   * True for an agent whose model loop the runtime runs: an approval decided with
   * `rememberForSession: true` remembers its tool for the session, before the run is queued.
   */
  remembers?: boolean;
}

/**
 * Records an answer and queues the run that hands it to `resolveAction`: what a continuation and an
 * answer share once their own checks are done. The decision is one conditional write (pending, not
 * lapsed): of two answers exactly one wins, the other is a 409 that says what happened. A retry of
 * the same request id finishes the same work.
 */
export async function queueAnswer(
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
  const { first, record } = await recordRequestRun(rt, session.sessionId, requestId, action.messageId, now);
  // A retry of this request finishes its work: after a crash before the decision the request is
  // still pending and undecided; after one past it, it was decided by this request's run.
  const ours = action.decidedBy === record.runId;
  const undecided = action.status === 'pending' && !action.decidedBy;
  if (!first && !ours && !undecided) throw notPending(action, now);
  let decided = action;
  // The resolve turn continues this request's trace (the queue's hop) and links the turn that asked.
  const job = {
    v: 1,
    kind: 'resolve',
    sessionId: session.sessionId,
    runId: record.runId,
    requestId,
    ...(action.askedIn && { follows: action.askedIn }),
  } satisfies TurnJob;
  if (!ours) {
    if (action.status !== 'pending' || action.expiresAt <= now) throw notPending(action, now);
    const { resolution, screenshots = [], attachments = [], hostContext, outputMode } = built;
    const screenshotKeys = await storeScreenshots(rt, session.sessionId, record.runId, screenshots);
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
      ...(action.askedIn && { follows: action.askedIn }),
    });
    const won = await decideAction(
      rt,
      session.sessionId,
      action.actionId,
      { status: 'resolved', resolution, actor: identity.user, channel: 'api', decidedBy: record.runId },
      { now, mustBeLive: true },
    );
    if (!won.decided) {
      await enqueue(rt, job);
      // The request as the refused decision found it: someone else decided it, or it lapsed.
      throw notPending(won.action ?? action, now);
    }
    decided = won.action;
    // Like a message's, the context is the session's from now on, once the continuation is applied (a
    // refused one stores nothing). A retry past the decision does not set it again: a later message
    // may have replaced it meanwhile; its own turn has it on the run either way.
    if (hostContext) await setHostContext(rt, session.sessionId, hostContext);
  }
  // Before the run is queued, so that it and every later turn see the tool; a retry records it again.
  if (built.remembers) await rememberApproved(rt, session, decided);
  await enqueue(rt, job);
  // Only the request that decided it announces it: a retry finds it decided already.
  if (!ours) await publishEvents(rt, [pauseResolved(session, decided, rt.clock())]);
  return { runId: record.runId, action: decided, duplicate: !first };
}

/**
 * Remembers the tool of an approval decided with `rememberForSession: true` (the recorded decision,
 * whichever send made it): its later calls in the session run without asking. A denial remembers nothing.
 */
async function rememberApproved(rt: Runtime, session: SessionRecord, decided: ActionRecord): Promise<void> {
  const resolution = decided.resolution;
  const toolName = decided.action.toolName;
  if (decided.kind !== 'tool_approval' || typeof toolName !== 'string') return;
  if (resolution?.decision !== 'approve' || resolution.rememberForSession !== true) return;
  await rememberTool(rt, session, {
    name: toolName,
    rememberedAt: decided.resolvedAt ?? new Date(rt.clock()).toISOString(),
    actor: decided.actor ?? 'system',
  });
}
