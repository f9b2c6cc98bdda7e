import { answeredOf, askedOf } from '../actions/index.ts';
import type { Attachment } from '../contract/index.ts';
import { conversationFiles, sessionFiles } from '../files/index.ts';
import {
  type ActionRecord,
  deletePartition,
  deleteSessionObjects,
  getAction,
  getBlob,
  listMessages,
  openActions,
  type RunOutcome,
} from '../store/index.ts';
import { closingSpend } from './accounting.ts';
import { historyMessage, invocationOf, rememberedToolsOf } from './agent-input.ts';
import { loadAttachment, partsReader } from './attachment-parts.ts';
import { callAgent } from './call-agent.ts';
import { keepResume } from './continue.ts';
import { runReceipt, settleDecision } from './decision.ts';
import { callCancelHook } from './hooks.ts';
import { cutBack } from './left-behind.ts';
import { announceDecided, settle } from './settle.ts';
import { takeSteering } from './steering.ts';
import { stillOpenFor } from './still-open.ts';
import { toolsForTurn } from './tools.ts';
import type { RunScope } from './types.ts';

/** `io.takeSteering` of a run: taken messages are announced in the log as the user's. */
const steeringOf = (scope: RunScope) => () =>
  takeSteering(scope.rt, scope.run, (m) =>
    scope.stream.append('user.message', {
      message_id: m.id,
      content: m.content,
      steered_into: scope.run.runId,
    }),
  );

/** A worker that lost its lease writes nothing more: the one that took the run over closes it. */
const lostLease = (): RunOutcome => ({
  status: 'incomplete',
  stopReason: 'error',
  error: { code: 'lease_lost', message: 'Another worker took this run over.' },
});

const idleOrPaused = async (scope: Pick<RunScope, 'rt' | 'run' | 'stream' | 'accounting'>) => {
  const open = await openActions(scope.rt, scope.run.sessionId);
  scope.stream.append(open.length > 0 ? 'session.status_requires_action' : 'session.status_idle', {
    status: open.length > 0 ? 'requires_action' : 'completed',
    stop_reason: open.length > 0 ? 'requires_action' : 'end_turn',
    detail: null,
    ...closingSpend(scope.accounting.spentUsd, undefined),
  });
  return open.length > 0;
};

/**
 * Announces what a message's run decided without an answer (`run.withdrawn`, decided when the
 * message was accepted, and `more`, decided as it started) and tells the cancel hook of those
 * withdrawn. Also for a run cancelled before it started: what its message withdrew stays withdrawn.
 */
export async function announceLeftBehind(
  scope: Pick<RunScope, 'rt' | 'run' | 'stream'> & { agent?: RunScope['agent'] },
  more: ActionRecord[] = [],
): Promise<void> {
  const { rt, run, stream, agent } = scope;
  const decided = [
    ...(await Promise.all((run.withdrawn ?? []).map((id) => getAction(rt, run.sessionId, id)))).filter(
      (a) => a !== undefined,
    ),
    ...more,
  ];
  announceDecided(stream, decided);
  const withdrawn = decided.filter((a) => a.status === 'cancelled').map(askedOf);
  if (agent && withdrawn.length > 0)
    await callCancelHook(rt, agent, {
      conversationId: run.sessionId,
      reason: 'withdrawn',
      actions: withdrawn,
    });
}

/** A user message: announce what it withdrew, then `invoke`. */
export async function runMessage(scope: RunScope): Promise<RunOutcome> {
  const { rt, agent, run, stream, log } = scope;
  stream.append('session.status_running', {
    kind: 'turn',
    ...(run.interrupted?.length && { interrupted: run.interrupted }),
  });
  const leftBehind = await cutBack(rt, scope.session, run, stream);
  const history = await listMessages(rt, run.sessionId, { through: run.userMessageId, current: true });
  const userMessage = history.at(-1);
  if (userMessage)
    stream.append('user.message', {
      message_id: userMessage.messageId,
      content: userMessage.content,
      ...(run.rewrite && { mode: run.rewrite.mode, from_message_id: run.rewrite.fromMessageId }),
    });
  await announceLeftBehind(scope, leftBehind);
  const { input, io } = await invocationOf(rt, agent, run, history, scope.context, (m, d) => log.warn(m, d));
  const rememberedTools = await rememberedToolsOf(rt, agent, scope.session);
  const hostTools = new Set(input.tools.host.map((t) => t.name));
  const silent = run.outputMode === 'host_tools';
  // Steering is unsupported in a silent host decision: it takes nothing.
  const takeSteering = silent ? async () => [] : steeringOf(scope);
  const called = await callAgent(
    { log, metrics: rt.metrics },
    stream,
    run.assistantMessageId,
    hostTools,
    (guarded) =>
      agent.definition.invoke(input, { ...guarded, ...io, takeSteering, secret: rt.secret, rememberedTools }),
    scope.stopping,
    scope.accounting,
    silent,
  );
  if (scope.stopping.watch.reason === 'lease_lost') return lostLease();
  if (!called.ok) return called.outcome;
  if (silent) return settleDecision(scope, called.result, called.state, { kind: 'turn' });
  const outcome = await settle(scope, called.result, called.state, { kind: 'turn' });
  await keepResume(scope, called.result, outcome);
  return outcome;
}

/** An answered request (by a person, a host's continuation, or a deny lapse): `resolveAction`. */
export async function runResolve(scope: RunScope): Promise<RunOutcome> {
  const { rt, agent, run, session, stream, log } = scope;
  const answered = run.actionId ? await getAction(rt, run.sessionId, run.actionId) : undefined;
  // A receipt of a silent host decision is bookkeeping: recorded, and the agent is not called.
  if (answered?.decidedBy === run.runId && run.outputMode === 'host_tools')
    return runReceipt(scope, answered);
  if (!answered || answered.decidedBy !== run.runId || !agent.definition.resolveAction) {
    // The answer this run was queued for did not win its request (the other answer's run reports):
    // it closes without a word in the log.
    log.info('A resolve run whose answer lost: nothing to do', { actionId: run.actionId });
    return { status: 'cancelled', stopReason: 'cancelled' };
  }
  stream.append('session.status_running', { kind: 'resolve', action_id: run.actionId ?? null });
  announceDecided(stream, [answered]);
  const { others, before } = await stillOpenFor(rt, run, answered);
  const screenshots = run.screenshots ?? [];
  const messages = await listMessages(rt, run.sessionId, { current: true });
  const files = sessionFiles(rt, await conversationFiles(rt, messages));
  // A continuation's own context, else the last one received: it follows the tool result.
  const hostContext = run.hostContext ?? session.hostContext;
  const tools = toolsForTurn(rt.settings.tools, agent.definition.tools ?? [], hostContext, () => {});
  const hostTools = new Set(tools.host.map((t) => t.name));
  const history = await Promise.all(messages.map((m) => historyMessage(rt, m)));
  const messageId = answered.kind === 'host_tool' ? answered.messageId : run.assistantMessageId;
  const rememberedTools = await rememberedToolsOf(rt, agent, session);
  const attachments: Attachment[] = await Promise.all(
    (run.attachments ?? []).map((a) => loadAttachment(rt, a)),
  );
  const called = await callAgent(
    { log, metrics: rt.metrics },
    stream,
    messageId,
    hostTools,
    (guarded) =>
      agent.definition.resolveAction!(
        {
          actionId: answered.actionId,
          action: askedOf(answered),
          resolution: answered.resolution ?? {},
          pendingActions: others.map(askedOf),
          answeredBefore: before.map(answeredOf),
          actor: answered.actor ?? 'system',
          channel: answered.channel === 'timeout' ? 'timeout' : 'api',
          expired: answered.expired ?? false,
          conversationId: run.sessionId,
          runId: run.runId,
          metadata: session.metadata ?? {},
          context: scope.context,
          attachments,
          hostContext: hostContext ?? null,
          history,
          tools,
        },
        {
          ...guarded,
          files,
          lookAtScreen: () => Promise.all(screenshots.map((key) => getBlob<Attachment>(rt, key))),
          parts: partsReader(rt, run.sessionId, run.attachments ?? [], messages),
          takeSteering: steeringOf(scope),
          secret: rt.secret,
          rememberedTools,
        },
      ),
    scope.stopping,
    scope.accounting,
  );
  if (scope.stopping.watch.reason === 'lease_lost') return lostLease();
  if (!called.ok) return called.outcome;
  const outcome = await settle(scope, called.result, called.state, { kind: 'resolve', answered, others });
  await keepResume(scope, called.result, outcome);
  return outcome;
}

/** A request that lapsed under `hitl.onTimeout: "cancel"` (or found no agent to deny it): withdrawn. */
export async function runLapse(
  scope: Omit<RunScope, 'agent' | 'hitl' | 'stopping'> & { agent?: RunScope['agent'] },
): Promise<RunOutcome> {
  const { rt, agent, run, stream } = scope;
  const lapsed = run.actionId ? await getAction(rt, run.sessionId, run.actionId) : undefined;
  stream.append('session.status_running', { kind: 'lapse', action_id: run.actionId ?? null });
  if (lapsed && lapsed.decidedBy === run.runId) {
    announceDecided(stream, [lapsed]);
    if (agent)
      await callCancelHook(rt, agent, {
        conversationId: run.sessionId,
        reason: 'expired',
        actions: [askedOf(lapsed)],
      });
  }
  return (await idleOrPaused(scope))
    ? { status: 'requires_action', stopReason: 'requires_action' }
    : { status: 'completed', stopReason: 'end_turn' };
}

type Bookkeeping = Omit<RunScope, 'agent' | 'hitl' | 'stopping'> & { agent?: RunScope['agent'] };

/** The cancel route on a paused session: its open requests were withdrawn; announce them, tell the hook. */
export async function runWithdraw(scope: Bookkeeping): Promise<RunOutcome> {
  const { rt, agent, run, stream } = scope;
  stream.append('session.status_running', { kind: 'withdraw' });
  const decided = (
    await Promise.all((run.withdrawn ?? []).map((id) => getAction(rt, run.sessionId, id)))
  ).filter((a) => a !== undefined);
  announceDecided(stream, decided);
  if (agent && decided.length > 0) {
    await callCancelHook(rt, agent, {
      conversationId: run.sessionId,
      reason: 'withdrawn',
      actions: decided.map(askedOf),
    });
  }
  return (await idleOrPaused(scope))
    ? { status: 'requires_action', stopReason: 'requires_action' }
    : { status: 'completed', stopReason: 'end_turn' };
}

/** A deleted session: tell the hook of its open requests, announce the end, remove every item and object. */
export async function runDelete(scope: Bookkeeping): Promise<RunOutcome> {
  const { rt, agent, run, stream } = scope;
  const open = await openActions(rt, run.sessionId);
  if (agent && open.length > 0) {
    await callCancelHook(rt, agent, {
      conversationId: run.sessionId,
      reason: 'deleted',
      actions: open.map(askedOf),
    });
  }
  stream.append('session.deleted', {});
  await stream.drain().catch(() => undefined);
  await deleteSessionObjects(rt, run.sessionId);
  await deletePartition(rt, run.sessionId, run.runId);
  return { status: 'completed', stopReason: 'end_turn' };
}
