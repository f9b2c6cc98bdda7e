import type { ActionStatus, Transition } from './types.ts';

/*
 * Every change of a request item (a pause's approval, question, client or host tool call) after it
 * was put (`pending`, or `queued` for a host call behind another), each one conditional write built
 * by `transitionUpdate` (table.ts). Each is its own constant, so a function's bundle holds only the
 * ones it makes; ACTION_TRANSITIONS lists them all for the tests and the docs (docs/runs.md).
 */

/** The writes of a decision; a decided request leaves the due index. */
const decision = {
  set: ['resolution', 'resolutionBlobKey', 'actor', 'channel', 'expired', 'resolvedAt', 'decidedBy'],
  remove: ['gsi1pk', 'gsi1sk'],
  again: ['resolvedAt', 'actor'],
} as const;

/** An answer (a continuation) decides a pending request that has not lapsed. */
export const answer = {
  ...decision,
  from: ['pending'],
  to: ['resolved'],
  guard: '#expiresAt > :now',
} as const satisfies Transition<ActionStatus>;

/**
 * The system decides an open request: a lapse (the sweep), a withdrawal (a cancel, a new message,
 * a new pause), a host call superseded; a queued host call may be withdrawn before it is handed over.
 */
export const decide = {
  ...decision,
  from: ['pending', 'queued'],
  to: ['resolved', 'cancelled', 'expired', 'superseded'],
} as const satisfies Transition<ActionStatus>;

/** The next queued host call is handed over, with its own expiry; it enters the due index. */
export const promote = {
  from: ['queued'],
  to: ['pending'],
  set: ['expiresAt', 'gsi1pk', 'gsi1sk'],
  again: ['expiresAt'],
} as const satisfies Transition<ActionStatus>;

/** The sweep announces a pending request about to lapse, once per expiry. */
export const announceExpiring = {
  from: ['pending'],
  set: ['expiringAnnouncedAt'],
  guard:
    '#expiresAt = :expiresAt AND (attribute_not_exists(#expiringAnnouncedAt) OR #expiringAnnouncedAt = :expiringAnnouncedAt)',
} as const satisfies Transition<ActionStatus>;

/** Every transition of a request, by name. */
export const ACTION_TRANSITIONS = { answer, decide, promote, announceExpiring } as const;

/** The statuses a request ends in: no transition leaves them. */
export const ACTION_ENDS = ['resolved', 'cancelled', 'expired', 'superseded'] as const;
