import type { Switchboard } from '../agents/index.ts';
import { type Identity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { type ChatRequest, type HostContext, onBusyOf, renderHostContext } from '../contract/index.ts';
import { putMessage, putRun, type SessionRecord, setHostContext } from '../store/index.ts';
import { attachmentsOf, storeAttachment, storeScreenshots } from './attachments.ts';
import { interruptAhead } from './busy.ts';
import { enqueue } from './job.ts';
import { cutAway, supersedeOpen } from './left-behind.ts';
import { recordRequestRun } from './record-request.ts';
import { type Accepted, acceptedOf, type BeforeEnqueue, type Rewrite } from './types.ts';

/** A message whose session passed every check, on its way to the queue. */
export interface TurnToQueue {
  session: SessionRecord;
  request: ChatRequest;
  requestId: string;
  /** A regenerate or an edit, checked against the session; absent for a new message. */
  rewrite?: Rewrite;
  beforeEnqueue?: BeforeEnqueue;
}

/**
 * The host context a turn runs with: the one its message carries (stored on the session, without
 * attachments, for later messages that carry none), else the session's last one.
 */
async function contextOfTurn(
  rt: Runtime,
  session: SessionRecord,
  request: ChatRequest,
  first: boolean,
): Promise<HostContext | undefined> {
  if (!request.host_context) return session.hostContext;
  const { attachments: _attachments, ...context } = request.host_context;
  if (first) await setHostContext(rt, session.sessionId, context);
  return context;
}

/**
 * Records a user message's turn and queues it: what a new message and a rewrite share once their
 * own checks are done (the same policies apply to both). Every write is idempotent and ordered so
 * that a retry of the same request id (after a timeout or a crash between two writes) finishes the
 * same work and starts no second turn: request record → user message → run → queue.
 */
export async function queueTurn(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  { session, request, requestId, rewrite, beforeEnqueue }: TurnToQueue,
): Promise<Accepted> {
  const { sessionId } = session;
  const { first, record } = await recordRequestRun(rt, sessionId, requestId, rewrite?.userMessageId);
  const { runId, userMessageId, assistantMessageId, createdAt } = record;
  const context = await contextOfTurn(rt, session, request, first);
  const { references, screenshots } = attachmentsOf(request);
  const screenshotKeys = await storeScreenshots(rt, sessionId, runId, screenshots);
  // A regenerate runs the stored user message again: it stores none.
  if (rewrite?.mode !== 'regenerate')
    await putMessage(rt, {
      messageId: userMessageId,
      sessionId,
      runId,
      role: 'user',
      content: request.content,
      createdAt,
      metadata: request.metadata,
      ...(context && { hostContext: context, contextBlock: renderHostContext(context) }),
      ...(references.length > 0 && {
        attachments: await Promise.all(
          references.map((a, i) =>
            storeAttachment(rt, `attachments/${sessionId}/${userMessageId}/${i}.json`, a),
          ),
        ),
      }),
    });
  // Always, also on a retry: the writes are conditional, and what this run decided is what it announces.
  // A rewrite also withdraws what is open on the messages it cuts away (its run cuts them back).
  const cut = rewrite && cutAway(rewrite, userMessageId, runId);
  const withdrawn = await supersedeOpen(rt, app, identity, session, runId, cut);
  // Before its run is queued: the runs it stops are ahead of it in the FIFO group, so it runs next.
  const interrupted = await interruptAhead(rt, request, sessionId, runId);
  await putRun(rt, {
    runId,
    sessionId,
    requestId,
    agentId: session.agentId,
    userMessageId,
    assistantMessageId,
    status: 'queued',
    createdAt,
    kind: 'turn',
    context: requestContextOf(identity),
    ...(onBusyOf(request) === 'steer' && { steer: true }),
    ...(screenshotKeys.length > 0 && { screenshots: screenshotKeys }),
    ...(withdrawn.length > 0 && { withdrawn }),
    ...(interrupted.length > 0 && { interrupted }),
    ...(rewrite && { rewrite: { mode: rewrite.mode, fromMessageId: rewrite.fromMessageId } }),
    ...(request.output_mode && { outputMode: request.output_mode }),
  });
  await beforeEnqueue?.(sessionId);
  await enqueue(rt, { v: 1, kind: 'turn', sessionId, runId, requestId });
  return {
    ...acceptedOf({
      requestId,
      sessionId,
      runId,
      messageId: userMessageId,
      assistantMessageId,
      duplicate: !first,
    }),
    ...(interrupted.length > 0 && { interrupted }),
  };
}
