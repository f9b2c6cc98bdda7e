import type { HostAgentRegistration, HostEvent, Switchboard } from '../agents/index.ts';
import { EventGate, validateResult } from '../agents/index.ts';
import { requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SwitchboardError } from '../errors/index.ts';
import {
  claimRun,
  deleteBlobs,
  finishRun,
  getRun,
  getSession,
  lastSeq,
  listMessages,
  type MessageRecord,
  putMessage,
  type RunOutcome,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { invocationOf } from './agent-input.ts';
import { EventStream } from './event-stream.ts';
import type { TurnJob } from './job.ts';
import { TurnState } from './turn-state.ts';

/** Thrown when a job cannot run yet (its run is held by a live lease): the queue retries it. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

/**
 * Runs one queued turn exactly once. The conditional claim decides which delivery runs it; a
 * delivery that finds the run ended does nothing, so SQS's at-least-once delivery is harmless.
 */
export async function runTurn(rt: Runtime, app: Switchboard, job: TurnJob, workerId: string): Promise<void> {
  const log = rt.logger.createChild({ persistentKeys: { sessionId: job.sessionId, runId: job.runId } });
  if (!(await claimRun(rt, job, workerId, Date.now()))) {
    const run = await getRun(rt, job.sessionId, job.runId);
    if (run?.status === 'running')
      throw new RetryLaterError(`Run ${job.runId} is held by ${run.leaseOwner}.`);
    log.info('Job for a run that is not queued: nothing to do', { status: run?.status });
    return;
  }
  const run = (await getRun(rt, job.sessionId, job.runId)) as RunRecord;
  const session = (await getSession(rt, job.sessionId)) as SessionRecord;
  const stream = new EventStream(rt, job.sessionId, job.runId, await lastSeq(rt, job.sessionId));
  const history = await listMessages(rt, job.sessionId, { through: run.userMessageId });
  const userMessage = history.at(-1);
  stream.append('session.status_running', {});
  if (userMessage) {
    stream.append('user.message', { message_id: userMessage.messageId, content: userMessage.content });
  }
  const context = requestContextOf({ user: session.owner, data: {} });
  const agent = await app.resolveAgent(run.agentId, context);
  const outcome = agent
    ? await invokeAgent(rt, agent, { run, session, history, stream, context, log })
    : await failTurn(
        stream,
        new SwitchboardError('agent_not_found', `No agent "${run.agentId}" is registered.`, 500, 'internal'),
      );
  await stream
    .drain()
    .catch((error: unknown) => log.warn('The event log could not be completed', { error: String(error) }));
  if (!(await finishRun(rt, job, workerId, outcome, Date.now()))) {
    log.warn('Lost the lease before the outcome was written; it was discarded');
  }
  // Screenshots are not stored: they lived only for this turn (the bucket's lifecycle rule is the backstop).
  if (run.screenshots?.length) await deleteBlobs(rt, run.screenshots).catch(() => undefined);
}

interface TurnScope {
  run: RunRecord;
  session: SessionRecord;
  history: MessageRecord[];
  stream: EventStream;
  context: ReturnType<typeof requestContextOf>;
  log: Runtime['logger'];
}

async function invokeAgent(rt: Runtime, agent: HostAgentRegistration, scope: TurnScope): Promise<RunOutcome> {
  const { run, session, history, stream, log } = scope;
  const messageId = run.assistantMessageId;
  const gate = new EventGate((message, detail) => log.warn(message, detail));
  const state = new TurnState();
  const controller = new AbortController();
  const emit = (raw: HostEvent) => {
    const event = gate.accept(raw);
    if (!event) return;
    state.apply(event);
    publish(stream, messageId, event);
  };
  let result: ReturnType<typeof validateResult>;
  try {
    const { input, io } = await invocationOf(rt, agent, run, history, scope.context, (m, d) =>
      log.warn(m, d),
    );
    const value = await agent.definition.invoke(input, { emit, signal: controller.signal, ...io });
    gate.close();
    result = validateResult(value);
  } catch (error) {
    gate.close();
    if (!(error instanceof SwitchboardError)) log.error('The agent failed', { error: String(error) });
    return failTurn(stream, error);
  }
  const settled = state.settle(result);
  await putMessage(rt, {
    messageId,
    sessionId: session.sessionId,
    runId: run.runId,
    role: 'assistant',
    content: settled.content,
    createdAt: new Date().toISOString(),
    ...(state.toolCalls.length > 0 && { toolCalls: state.toolCalls }),
    ...(settled.pendingActions.length > 0 && { pendingActions: settled.pendingActions }),
    stopReason: settled.outcome.stopReason,
    usage: settled.usage,
    metadata: result.metadata,
  });
  if (settled.pendingActions.length > 0) {
    stream.append('action.required', { message_id: messageId, actions: settled.pendingActions });
  }
  stream.append('final_response', {
    message_id: messageId,
    content: settled.content,
    stop_reason: settled.outcome.stopReason,
    usage: settled.usage ?? null,
    pending_tool_call: null,
  });
  const idle =
    settled.outcome.status === 'requires_action' ? 'session.status_requires_action' : 'session.status_idle';
  stream.append(idle, {
    status: settled.outcome.status,
    stop_reason: settled.outcome.stopReason,
    detail: result.detail ?? null,
  });
  return settled.outcome;
}

function publish(stream: EventStream, messageId: string, event: HostEvent): void {
  switch (event.type) {
    case 'text':
      stream.text(messageId, event.text);
      break;
    case 'tool_use':
      stream.append('agent.tool_use', {
        message_id: messageId,
        id: event.id,
        name: event.name,
        args: event.args ?? null,
      });
      break;
    case 'tool_result':
      stream.append('agent.tool_result', {
        message_id: messageId,
        id: event.id,
        name: event.name ?? null,
        ok: event.error === undefined,
        result: event.result ?? null,
        error: event.error ?? null,
      });
      break;
    default:
      // action_required, usage and stop are folded into the turn's outcome and announced at its end.
      break;
  }
}

/** Closes a turn as error: the error is in the log, no message or pending action is stored. */
async function failTurn(stream: EventStream, error: unknown): Promise<RunOutcome> {
  const e =
    error instanceof SwitchboardError
      ? error
      : new SwitchboardError('agent_error', 'The agent failed while running the turn.', 500, 'internal');
  stream.append('session.error', { code: e.code, message: e.message, status: e.status });
  stream.append('session.status_idle', { status: 'error', stop_reason: 'error', detail: null });
  return { status: 'error', stopReason: 'error', error: { code: e.code, message: e.message } };
}
