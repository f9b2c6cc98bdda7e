import type { Runtime } from '../config/index.ts';
import type { HostResult, PendingAction } from '../contract/index.ts';
import { HOLD_TOOL } from '../contract/index.ts';
import { InvalidDecisionError } from '../errors/index.ts';
import { type ActionRecord, getMessage, getRun, putMessage, type RunOutcome } from '../store/index.ts';
import { closingSpend } from './accounting.ts';
import { failTurn } from './call-agent.ts';
import { announceDecided, type SettleMode, type SettleScope, settle } from './settle.ts';
import type { TurnState } from './turn-state.ts';
import type { RunScope } from './types.ts';

/** What a silent host decision came to. */
type Decision =
  | { kind: 'hold' }
  | { kind: 'pending'; call: PendingAction }
  | { kind: 'invalid'; count: number };

/**
 * Reads a decision from what the agent proposed: a `hold` wins over everything emitted beside it;
 * no proposal is a hold; one host action is pending; several (or a request that is not a host
 * action) are invalid.
 */
export function decisionOf(result: HostResult, state: TurnState): Decision {
  const proposed = [...state.hostCalls];
  for (const action of result.pendingActions ?? []) {
    if (!proposed.some((p) => p.id === action.id)) proposed.push(action);
  }
  if (proposed.some((p) => p.type === 'host_tool' && p.toolName === HOLD_TOOL)) return { kind: 'hold' };
  const asked = [...proposed, ...state.actions.filter((a) => !proposed.some((p) => p.id === a.id))];
  if (asked.length === 0) return { kind: 'hold' };
  const [call] = asked;
  if (asked.length === 1 && call?.type === 'host_tool') return { kind: 'pending', call };
  return { kind: 'invalid', count: asked.length };
}

/**
 * Settles a silent host decision: no prose is stored or published (the snapshot's text, tool
 * previews and files are dropped, cancelled and limit snapshots included), the final response
 * says `content: null` and `decision`, and only a pending decision leaves a call for the host.
 */
export async function settleDecision(
  scope: SettleScope,
  result: HostResult,
  state: TurnState,
  mode: SettleMode,
): Promise<RunOutcome> {
  const stopped = result.status === 'cancelled' || result.status === 'incomplete';
  const decision: Decision = stopped ? { kind: 'hold' } : decisionOf(result, state);
  if (decision.kind === 'invalid') {
    // Priced as every turn's usage is (the result's, else the emitted events').
    const { usage } = state.settle(result);
    await scope.accounting.count(usage);
    return failTurn(scope.stream, new InvalidDecisionError(decision.count), scope.accounting, usage);
  }
  state.text = '';
  state.toolCalls.length = 0;
  state.actions = [];
  state.stopDetail = undefined;
  state.hostCalls.splice(0, state.hostCalls.length, ...(decision.kind === 'pending' ? [decision.call] : []));
  const silent: HostResult = {
    ...(result.status && stopped && { status: result.status }),
    ...(result.stopReason && stopped && { stopReason: result.stopReason }),
    ...(result.usage && { usage: result.usage }),
  };
  return settle(scope, silent, state, mode, { decision: stopped ? undefined : decision.kind });
}

/** The output mode a host call was proposed in: its asking run's (a receipt cannot change it). */
export async function decisionModeOf(rt: Runtime, action: ActionRecord): Promise<'host_tools' | undefined> {
  const asking = await getRun(rt, action.sessionId, action.runId);
  return asking?.outputMode;
}

/**
 * A receipt of a silent host decision: the host's result extends the decision's message, and the
 * turn ends with `decision: "completed"`. No agent runs; the recorded outcome is authoritative.
 */
export async function runReceipt(scope: RunScope, answered: ActionRecord): Promise<RunOutcome> {
  const { rt, run, stream } = scope;
  stream.append('session.status_running', { kind: 'resolve', action_id: answered.actionId });
  announceDecided(stream, [answered]);
  const message = await getMessage(rt, run.sessionId, answered.messageId);
  const resolution = (answered.resolution ?? {}) as { outcome?: string; result?: unknown; error?: string };
  const ok = resolution.outcome !== 'failed';
  if (message) {
    const { pendingActions: _answered, ...rest } = message;
    const call = answered.action as { toolName?: string; args?: unknown };
    await putMessage(
      rt,
      {
        ...rest,
        toolCalls: [
          ...(message.toolCalls ?? []).filter((c) => c.id !== answered.actionId),
          {
            id: answered.actionId,
            name: call.toolName ?? '',
            args: call.args,
            result: resolution.result,
            ok,
            ...(!ok && { error: resolution.error }),
          },
        ],
        stopReason: 'end_turn',
      },
      { replace: true },
    );
  }
  stream.append('final_response', {
    message_id: answered.messageId,
    content: null,
    decision: 'completed',
    stop_reason: 'end_turn',
    usage: null,
    pending_tool_call: null,
    files: [],
  });
  stream.append('session.status_idle', {
    status: 'completed',
    stop_reason: 'end_turn',
    detail: null,
    ...closingSpend(scope.accounting.spentUsd, undefined),
  });
  return { status: 'completed', stopReason: 'end_turn' };
}
