import type { Switchboard } from '../agents/index.ts';
import { hostSessionId, type Identity, ownerOf, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import {
  type ChatRequest,
  collectAttachments,
  type HostContext,
  onBusyOf,
  renderHostContext,
} from '../contract/index.ts';
import {
  AgentNotFoundError,
  MessageNotFoundError,
  SessionConflictError,
  TenantSuspendedError,
  ValidationError,
} from '../errors/index.ts';
import { checkAgentFiles, checkNewSessionFiles, countSessionFiles } from '../files/index.ts';
import { digest, newId } from '../ids/index.ts';
import { writableSession } from '../sessions/index.ts';
import {
  ensureSession,
  getSuspension,
  messageId,
  putBlob,
  putRun,
  recordRequest,
  type SessionRecord,
  setHostContext,
  touchSession,
} from '../store/index.ts';
import { addLogKeys } from '../telemetry/index.ts';
import { checkBudgets } from '../usage/index.ts';
import { checkFileIds, splitAttachments, storeAttachment } from './attachments.ts';
import { interruptAhead, refuseIfBusy } from './busy.ts';
import { noPendingCall, submitContinuation, supersedeOpen } from './continuation.ts';
import { enqueue } from './job.ts';
import { checkRewrite, cutAway, userMessageWriter } from './rewrite.ts';

/** The answer to an accepted message: where its turn will show up. */
export interface Accepted {
  request_id: string;
  session_id: string;
  run_id: string;
  message_id: string;
  assistant_message_id: string;
  status: 'queued';
  duplicate: boolean;
  /** The runs a message sent with `on_busy: "interrupt"` stopped (absent when it stopped none). */
  interrupted?: string[];
}

/** Runs after the turn is recorded and before it is queued (the WebSocket sender joins here). */
export type BeforeEnqueue = (sessionId: string) => Promise<void>;

async function resolveSession(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ChatRequest,
  requestId: string,
): Promise<SessionRecord> {
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
          budgetUsd: app.budgetFor(agent),
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
  const session =
    existing ??
    (await ensureSession(rt, {
      sessionId,
      ...ownerOf(identity),
      agentId,
      createdAt: new Date(rt.clock()).toISOString(),
      metadata: request.metadata,
    }));
  await countSessionFiles(rt, session.sessionId, files);
  addLogKeys({ sessionId: session.sessionId, agentId: session.agentId, requestId });
  // Sessions expire `retention.sessionsDays` after their last message.
  if (existing) await touchSession(rt, session.sessionId);
  return session;
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
 * Records a user message and queues its turn. Every write is idempotent and ordered so that a
 * retry of the same request id (after a timeout or a crash between two writes) finishes the same
 * work and starts no second turn: request record → user message → run → queue.
 */
export async function submitTurn(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ChatRequest,
  beforeEnqueue?: BeforeEnqueue,
): Promise<Accepted> {
  const requestId = request.id ?? newId('req');
  const session = await resolveSession(rt, app, identity, request, requestId);
  if (request.tool_call_id !== undefined) {
    await beforeEnqueue?.(session.sessionId);
    return submitContinuation(rt, app, identity, session, request, requestId);
  }
  // A regenerate or an edit goes the way of every new message (the same policies apply), once checked.
  const rewrite = await checkRewrite(rt, session, request);
  const now = rt.clock();
  const runId = newId('run');
  const { first, record } = await recordRequest(
    rt,
    {
      requestId,
      sessionId: session.sessionId,
      runId,
      userMessageId: rewrite?.userMessageId ?? messageId(runId, 0),
      assistantMessageId: messageId(runId, 1),
      createdAt: new Date(now).toISOString(),
    },
    now,
  );
  const createdAt = record.createdAt;
  const context = await contextOfTurn(rt, session, request, first);
  const { references, screenshots } = splitAttachments(
    collectAttachments({
      attachments: request.attachments,
      images: request.images,
      screenshot: request.screenshot,
      contextAttachments: request.host_context?.attachments,
    }),
  );
  const screenshotKeys = screenshots.map(
    (_, i) => `screenshots/${session.sessionId}/${record.runId}/${i}.json`,
  );
  await Promise.all(screenshots.map((shot, i) => putBlob(rt, screenshotKeys[i] as string, shot)));
  // A regenerate runs the stored user message again: it stores none.
  await userMessageWriter(rewrite)(rt, {
    messageId: record.userMessageId,
    sessionId: session.sessionId,
    runId: record.runId,
    role: 'user',
    content: request.content,
    createdAt,
    metadata: request.metadata,
    ...(context && { hostContext: context, contextBlock: renderHostContext(context) }),
    ...(references.length > 0 && {
      attachments: await Promise.all(
        references.map((a, i) =>
          storeAttachment(rt, `attachments/${session.sessionId}/${record.userMessageId}/${i}.json`, a),
        ),
      ),
    }),
  });
  // Always, also on a retry: the writes are conditional, and what this run decided is what it announces.
  // A rewrite also withdraws what is open on the messages it cuts away (its run cuts them back).
  const cut = rewrite && cutAway(rewrite, record.userMessageId, record.runId);
  const withdrawn = await supersedeOpen(rt, app, identity, session, record.runId, cut);
  // Before its run is queued: the runs it stops are ahead of it in the FIFO group, so it runs next.
  const interrupted = await interruptAhead(rt, request, session.sessionId, record.runId);
  await putRun(rt, {
    runId: record.runId,
    sessionId: session.sessionId,
    requestId,
    agentId: session.agentId,
    userMessageId: record.userMessageId,
    assistantMessageId: record.assistantMessageId,
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
  await beforeEnqueue?.(session.sessionId);
  await enqueue(rt, { v: 1, kind: 'turn', sessionId: session.sessionId, runId: record.runId, requestId });
  return {
    request_id: requestId,
    session_id: hostSessionId(session.sessionId),
    run_id: record.runId,
    message_id: record.userMessageId,
    assistant_message_id: record.assistantMessageId,
    status: 'queued',
    duplicate: !first,
    ...(interrupted.length > 0 && { interrupted }),
  };
}
