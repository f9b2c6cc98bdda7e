import type { HostResult, PendingAction } from '../agents/index.ts';
import { HOLD_TOOL } from '../contract/index.ts';
import { InvalidDecisionError } from '../errors/index.ts';
import type { RunOutcome } from '../store/index.ts';
import { failTurn } from './call-agent.ts';
import { type SettleMode, type SettleScope, settle } from './settle.ts';
import type { TurnState } from './turn-state.ts';

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
    await scope.accounting.count(result.usage ?? state.usage);
    return failTurn(
      scope.stream,
      new InvalidDecisionError(decision.count),
      scope.accounting,
      result.usage ?? state.usage,
    );
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
