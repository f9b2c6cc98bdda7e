import type { PendingAction } from '../agents/index.ts';
import { resolutionView } from '../contract/index.ts';
import type { ActionRecord } from '../store/index.ts';

/** The request as the agent asked it (what `resolveAction` gets as `action`). */
export function askedOf(action: ActionRecord): PendingAction {
  return action.action as PendingAction;
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
