import { SessionConflictError } from '../errors/index.ts';
import type { ActionRecord } from '../store/index.ts';

/**
 * The 409 for an answer or a continuation that finds its request no longer pending: it says
 * whether a result was already recorded and with which status, or what else decided it.
 */
export function notPending(action: ActionRecord, now: number): SessionConflictError {
  const what = action.kind === 'host_tool' ? `Call "${action.actionId}"` : `Request "${action.actionId}"`;
  const decision = action.resolution?.decision ?? action.resolution?.outcome;
  switch (action.status) {
    case 'resolved':
      return new SessionConflictError(
        'already_resolved',
        `${what} is no longer pending: its result was already recorded with status resolved${decision ? ` (${String(decision)})` : ''}${action.actor ? ` by ${action.actor}` : ''}.`,
      );
    case 'superseded':
      return new SessionConflictError(
        'superseded',
        `${what} is no longer pending: a newer message superseded it.`,
      );
    case 'expired':
      return new SessionConflictError(
        'action_expired',
        `${what} expired at ${new Date(action.expiresAt).toISOString()} and was withdrawn.`,
      );
    case 'cancelled':
      return new SessionConflictError(
        'withdrawn',
        `${what} is no longer pending: it was withdrawn${action.actor ? ` by ${action.actor}` : ''}.`,
      );
    case 'queued':
      return new SessionConflictError(
        'not_pending',
        `${what} is queued behind another host call and is not pending yet.`,
      );
    default:
      return action.expiresAt <= now
        ? new SessionConflictError(
            'action_expired',
            `${what} expired at ${new Date(action.expiresAt).toISOString()}.`,
          )
        : new SessionConflictError('not_pending', `${what} is not pending.`);
  }
}
