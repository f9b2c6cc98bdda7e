import type { Resolution } from '../contract/answers.ts';
import type { AnsweredRequest, PendingAction } from '../contract/index.ts';
import { snakeCase } from '../contract/index.ts';
import { type ActionRecord, isOpen } from '../store/index.ts';

/**
 * An answer as the agent was handed it (`resolution`, with the host contract's `approvedArgs` and
 * `rememberForSession`) in its wire form (`ResolutionSchema`). Every top-level key is a field of the
 * contract, so each is spelled in snake_case; the values, the host's own, keep their keys.
 */
export function resolutionView(resolution: Record<string, unknown>): Resolution {
  return Object.fromEntries(Object.entries(resolution).map(([key, value]) => [snakeCase(key), value]));
}

/** The request as the agent asked it (what `resolveAction` gets as `action`). */
export function askedOf(action: ActionRecord): PendingAction {
  return action.action as PendingAction;
}

/** A decided request as `resolveAction`'s `answeredBefore` gives it. */
export function answeredOf(action: ActionRecord): AnsweredRequest {
  return {
    actionId: action.actionId,
    action: askedOf(action),
    status: isOpen(action) ? 'cancelled' : (action.status as AnsweredRequest['status']),
    resolution: action.resolution ?? {},
    expired: action.expired ?? false,
  };
}

/** The wire form of a request. */
export function actionView(action: ActionRecord) {
  return {
    id: action.actionId,
    type: action.kind,
    status: action.status,
    message_id: action.messageId,
    run_id: action.runId,
    expires_at: new Date(action.expiresAt).toISOString(),
    request: action.action,
    ...(action.resolution && { resolution: resolutionView(action.resolution) }),
    ...(action.actor && { actor: action.actor }),
    ...(action.channel && { channel: action.channel }),
    ...(action.resolvedAt && { resolved_at: action.resolvedAt }),
  };
}

/** A pending host call in the host contract's shape: `{tool_name, call_id, arguments, queued}`. */
export function pendingToolCallOf(pending: ActionRecord | undefined, queued: ActionRecord[]) {
  if (!pending) return null;
  const asked = pending.action as { toolName?: string; args?: unknown };
  return {
    tool_name: asked.toolName ?? '',
    call_id: pending.actionId,
    arguments: asked.args ?? {},
    queued: queued.map((q) => q.actionId),
  };
}
