import type { RunStatus, Transition } from './types.ts';

/*
 * Every change of a run item after it was put (`queued`), each one conditional write built by
 * `transitionUpdate` (table.ts). Each is its own constant, so a function's bundle holds only the
 * ones it makes; RUN_TRANSITIONS lists them all for the tests and the docs (docs/runs.md).
 */

/** A worker claims a queued run with a lease; it leaves the due index. */
export const claim = {
  from: ['queued'],
  to: ['running'],
  set: ['startedAt', 'leaseOwner', 'leaseExpiresAt'],
  remove: ['gsi1pk', 'gsi1sk'],
  again: ['leaseOwner', 'startedAt'],
} as const satisfies Transition<RunStatus>;

/** The worker that holds the lease writes the outcome; a worker that lost it is fenced off. */
export const finish = {
  from: ['running'],
  to: ['completed', 'requires_action', 'error', 'cancelled', 'incomplete'],
  set: ['stopReason', 'endedAt', 'error', 'usage'],
  remove: ['leaseExpiresAt'],
  guard: '#leaseOwner = :leaseOwner',
  again: ['endedAt', 'leaseOwner'],
} as const satisfies Transition<RunStatus>;

/**
 * The holder of the lease keeps, before it writes the outcome, what the agent's loop needs to carry
 * on a turn it stopped at `max_turns` or `budget_reached` (inline, or the key of its claim check),
 * and the turn's span, for the `continue` run to link.
 */
export const keepResume = {
  from: ['running'],
  set: ['resume', 'resumeKey', 'stoppedIn'],
  guard: '#leaseOwner = :leaseOwner',
} as const satisfies Transition<RunStatus>;

/** The holder of the lease renews it (and reads `cancelRequested` in the same write). */
export const renew = {
  from: ['running'],
  set: ['leaseExpiresAt'],
  guard: '#leaseOwner = :leaseOwner',
} as const satisfies Transition<RunStatus>;

/** A new owner takes over a running run whose lease ran out (its worker died or stalled). */
export const takeOver = {
  from: ['running'],
  set: ['leaseOwner', 'leaseExpiresAt'],
  guard: '#leaseExpiresAt < :now',
  again: ['leaseOwner', 'leaseExpiresAt'],
} as const satisfies Transition<RunStatus>;

/** A cancel (or a delete, a shutdown) asks the worker to stop the run. */
export const cancel = {
  from: ['queued', 'running'],
  set: ['cancelRequested'],
} as const satisfies Transition<RunStatus>;

/** A message sent with `on_busy: "interrupt"` stops the run, unless someone else stopped it first. */
export const interrupt = {
  from: ['queued', 'running'],
  set: ['cancelRequested', 'interruptedBy'],
  guard: 'attribute_not_exists(#cancelRequested) OR #interruptedBy = :interruptedBy',
} as const satisfies Transition<RunStatus>;

/** The running turn takes a queued steering message; it leaves the due index. */
export const steer = {
  from: ['queued'],
  to: ['steered'],
  set: ['steeredInto', 'endedAt'],
  remove: ['gsi1pk', 'gsi1sk'],
  again: ['steeredInto', 'endedAt'],
} as const satisfies Transition<RunStatus>;

/** The sweep looks at a queued run again later (it waits behind an earlier run of its session). */
export const postpone = {
  from: ['queued'],
  set: ['gsi1pk', 'gsi1sk'],
} as const satisfies Transition<RunStatus>;

/**
 * The sweep queued the run's job again: it looks again later, and counts the requeue. The count is
 * set, not added, so that a write the SDK sends twice counts once.
 */
export const requeue = {
  from: ['queued'],
  set: ['gsi1pk', 'gsi1sk', 'requeues'],
  guard: 'attribute_not_exists(#requeues) OR #requeues <= :requeues',
} as const satisfies Transition<RunStatus>;

/** The sweep (or `switchboard cancel --expire`) gives up on a queued run whose job keeps getting lost. */
export const abandon = {
  from: ['queued'],
  to: ['error'],
  set: ['stopReason', 'endedAt', 'error'],
  remove: ['gsi1pk', 'gsi1sk'],
  again: ['endedAt'],
} as const satisfies Transition<RunStatus>;

/** Every transition of a run, by name. */
export const RUN_TRANSITIONS = {
  claim,
  finish,
  keepResume,
  renew,
  takeOver,
  cancel,
  interrupt,
  steer,
  postpone,
  requeue,
  abandon,
} as const;

/** The statuses a run ends in: no transition leaves them. */
export const RUN_ENDS = [
  'completed',
  'requires_action',
  'error',
  'cancelled',
  'incomplete',
  'steered',
] as const;
