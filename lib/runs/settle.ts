import { isDeepStrictEqual } from 'node:util';
import { applyPause, askedOf, pendingToolCallOf, resolutionView } from '../actions/index.ts';
import type { ResolvedHitl } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostResult } from '../contract/index.ts';
import { budgetReachedEvent, pauseOpened, pauseResolved, publishEvents } from '../events/index.ts';
import { resultFilesView } from '../sessions/index.ts';
import {
  type ActionRecord,
  byAsked,
  getMessage,
  openActions,
  promoteAction,
  putMessage,
  type RunOutcome,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { type BudgetScope, budgetReached, costOf, type TurnAccounting } from '../usage/index.ts';
import { closingSpend } from './accounting.ts';
import type { EventStream } from './event-stream.ts';
import type { TurnOutcome, TurnState } from './turn-state.ts';

/** How a run came to call the agent: a message, or an answer to one of its requests. */
export type SettleMode =
  | { kind: 'turn' }
  | { kind: 'resolve'; answered: ActionRecord; others: ActionRecord[] };

/** What the run's scope gives settling. */
export interface SettleScope {
  rt: Runtime;
  run: RunRecord;
  stream: EventStream;
  hitl: ResolvedHitl;
  stopping: { watch: { confirm(): Promise<boolean> } };
  session: SessionRecord;
  accounting: TurnAccounting;
}

/** A silent host decision's settling: the final response has no content and, when it succeeded, a decision. */
export interface Silent {
  decision?: 'hold' | 'pending' | 'completed';
}

/** What a worker that lost its lease reports: it wrote nothing, the new owner closes the run. */
const LOST: RunOutcome = {
  status: 'incomplete',
  stopReason: 'error',
  error: { code: 'lease_lost', message: 'Another worker took this run over.' },
};

/** Announces requests that were decided without an answer (withdrawn, superseded, expired). */
export function announceDecided(stream: EventStream, actions: ActionRecord[]): void {
  for (const a of actions) {
    if (a.status === 'pending' || a.status === 'queued') continue;
    stream.append('action.resolved', {
      action_id: a.actionId,
      message_id: a.messageId,
      type: a.kind,
      status: a.status,
      actor: a.actor ?? 'system',
      channel: a.channel ?? 'system',
      expired: a.expired ?? false,
      resolution: a.resolution ? resolutionView(a.resolution) : null,
    });
  }
}

/** The limit a reached budget of `scope` has, for its `Budget Reached` event. */
function limitOf(rt: Runtime, scope: BudgetScope, accounting: TurnAccounting): number {
  const { perUserDailyUsd, perTenantDailyUsd } = rt.settings.budgets;
  const limit =
    scope === 'session' ? accounting.budgetUsd : scope === 'user' ? perUserDailyUsd : perTenantDailyUsd;
  return typeof limit === 'number' ? limit : 0;
}

/** `Budget Reached` for this run, when its cost reached a budget. */
function budgetEvent(scope: SettleScope, reached: BudgetScope | undefined, costUsd: number) {
  if (!reached) return undefined;
  return budgetReachedEvent(scope.session, scope.run.runId, {
    scope: reached,
    limitUsd: limitOf(scope.rt, reached, scope.accounting),
    turnCostUsd: costUsd,
    sessionSpentUsd: scope.accounting.spentUsd + costUsd,
  });
}

/** "Still waiting on the rest": the reply hands back the other open requests as they are, and nothing else. */
function stillWaiting(result: HostResult, state: TurnState, others: ActionRecord[]): boolean {
  if (!result.pendingActions || result.content || result.usage || result.files?.length || state.text)
    return false;
  if (result.pendingActions.length !== others.length) return false;
  return others.every((o) =>
    result.pendingActions?.some((p) => p.id === o.actionId && isDeepStrictEqual(p, o.action)),
  );
}

/**
 * Turns a usable result into stored facts: the message, the pause (asked, kept, withdrawn) and
 * the closing events, in the order the seed describes. Returns the run's outcome.
 */
export async function settle(
  scope: SettleScope,
  result: HostResult,
  state: TurnState,
  mode: SettleMode,
  silent?: Silent,
): Promise<RunOutcome> {
  const { rt, run, stream, hitl, accounting } = scope;
  // Fenced before anything is stored: the log must still be this worker's, and so must the lease.
  const fenced = await stream.stored().then(
    () => false,
    () => true,
  );
  if (fenced || !(await scope.stopping.watch.confirm())) return LOST;
  const settled = state.settle(result);
  // A pause is what open requests make: a status that claims one with none open is read as
  // completed, and the agent's author is told, since the agent meant to wait on something.
  if (result.status === 'requires_action' && settled.pendingActions.length === 0)
    rt.logger.warn('The agent returned status requires_action with no pending actions: read as completed', {
      agentId: run.agentId,
      sessionId: run.sessionId,
      runId: run.runId,
    });
  await accounting.count(settled.usage);
  const spend = closingSpend(accounting.spentUsd, settled.usage);
  // The turn that reaches a budget completes, and says so; the next message is refused (402).
  const costUsd = costOf(settled.usage);
  const reached = await budgetReached(rt, scope.session, {
    beforeUsd: accounting.spentUsd,
    costUsd,
    budgetUsd: accounting.budgetUsd,
  });
  if (reached)
    rt.logger.warn(`The turn reached the ${reached} budget: the next message is refused (402)`, {
      agentId: run.agentId,
      sessionId: run.sessionId,
      runId: run.runId,
    });
  if (reached && settled.outcome.status === 'completed' && settled.outcome.stopReason === 'end_turn')
    settled.outcome.stopReason = 'budget_reached';
  const now = rt.clock();
  const onSameMessage = mode.kind === 'resolve' && mode.answered.kind === 'host_tool';
  const messageId = onSameMessage ? mode.answered.messageId : run.assistantMessageId;
  if (mode.kind === 'resolve' && stillWaiting(result, state, mode.others)) {
    const next = onSameMessage
      ? mode.others.find((o) => o.kind === 'host_tool' && o.status === 'queued')
      : undefined;
    const expiresAt = now + hitl.timeoutMinutes * 60_000;
    if (next) await promoteAction(rt, next, expiresAt);
    if (next) {
      const queued = mode.others.filter((o) => o.kind === 'host_tool' && o !== next && o.status === 'queued');
      stream.append('final_response', {
        message_id: messageId,
        content: null,
        stop_reason: 'requires_action',
        usage: null,
        pending_tool_call: pendingToolCallOf(next, queued),
        files: [],
      });
    }
    const waiting = mode.others.length > 0;
    const stopReason = waiting ? 'requires_action' : reached ? 'budget_reached' : 'end_turn';
    stream.append(waiting ? 'session.status_requires_action' : 'session.status_idle', {
      status: waiting ? 'requires_action' : 'completed',
      stop_reason: stopReason,
      detail: null,
      ...spend,
    });
    await publishEvents(rt, [
      next && pauseOpened(scope.session, { ...next, status: 'pending', expiresAt }),
      budgetEvent(scope, reached, costUsd),
    ]);
    return {
      status: waiting ? 'requires_action' : 'completed',
      stopReason,
      ...(settled.usage && { usage: settled.usage }),
    };
  }
  const replaces =
    (mode.kind === 'resolve' || result.pendingActions !== undefined) &&
    settled.outcome.status !== 'cancelled';
  const open = mode.kind === 'resolve' ? mode.others : replaces ? await openActions(rt, run.sessionId) : [];
  const cancelled = settled.outcome.status === 'cancelled';
  // The message first, then its requests: a failure between them leaves no open request without its message.
  const earlier = onSameMessage ? await getMessage(rt, run.sessionId, messageId) : undefined;
  await putMessage(
    rt,
    {
      messageId,
      sessionId: run.sessionId,
      runId: earlier?.runId ?? run.runId,
      role: 'assistant',
      content: `${earlier?.content ?? ''}${settled.content}`,
      createdAt: earlier?.createdAt ?? new Date(now).toISOString(),
      ...((earlier?.toolCalls?.length || state.toolCalls.length) && {
        toolCalls: [...(earlier?.toolCalls ?? []), ...state.toolCalls],
      }),
      ...(settled.pendingActions.length > 0 && !cancelled && { pendingActions: settled.pendingActions }),
      stopReason: settled.outcome.stopReason,
      usage: settled.usage,
      metadata: result.metadata,
      ...((earlier?.files?.length || result.files?.length) && {
        files: [...(earlier?.files ?? []), ...(result.files ?? [])],
      }),
    },
    { replace: onSameMessage },
  );
  const change = await applyPause(rt, { sessionId: run.sessionId, runId: run.runId, messageId }, hitl, {
    // A stopped turn asks nothing: what it had emitted is kept as text, not as a pause.
    asked: cancelled ? [] : settled.pendingActions,
    open,
    replaces,
    now,
  });
  announceDecided(stream, change.withdrawn);
  const questions = change.asked.filter((a) => a.kind !== 'host_tool');
  if (questions.length > 0)
    stream.append('action.required', { message_id: messageId, actions: questions.map(askedOf) });
  // What is open now, this run's requests and any an earlier turn left open alike. A result that
  // replaced the pause was applied to what was open just now (`open`, read above): what it kept and
  // what it asked are what is open, without a second read. A continuation's `others` were read when
  // it started, and a result that adds to the pause did not read what was open: those read it now.
  const remaining =
    replaces && mode.kind !== 'resolve'
      ? [...change.kept, ...change.asked].sort(byAsked)
      : await openActions(rt, run.sessionId);
  const hostCalls = remaining.filter((a) => a.kind === 'host_tool');
  const pendingCall = hostCalls.find((a) => a.status === 'pending');
  const stillOpen = remaining.length;
  const outcome: TurnOutcome =
    stillOpen > 0 && settled.outcome.status === 'completed'
      ? { ...settled.outcome, status: 'requires_action', stopReason: result.stopReason ?? 'requires_action' }
      : settled.outcome;
  stream.append('final_response', {
    message_id: messageId,
    content: silent ? null : settled.content,
    ...(silent?.decision && { decision: silent.decision }),
    stop_reason: outcome.stopReason,
    usage: settled.usage ?? null,
    pending_tool_call: pendingToolCallOf(
      pendingCall,
      hostCalls.filter((a) => a.status === 'queued'),
    ),
    files: resultFilesView(result.files),
  });
  const paused = stillOpen > 0;
  stream.append(paused ? 'session.status_requires_action' : 'session.status_idle', {
    status: paused ? 'requires_action' : outcome.status,
    stop_reason: outcome.stopReason,
    detail: result.detail ?? state.stopDetail ?? null,
    ...spend,
  });
  // After the host's events are on their way: the rest of the account hears of it next.
  await publishEvents(rt, [
    ...change.withdrawn.map((a) => pauseResolved(scope.session, a, rt.clock())),
    ...change.asked.filter((a) => a.status === 'pending').map((a) => pauseOpened(scope.session, a)),
    budgetEvent(scope, reached, costUsd),
  ]);
  return paused ? { ...outcome, status: 'requires_action' } : outcome;
}
