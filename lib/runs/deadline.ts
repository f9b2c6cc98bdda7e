import type { Settings } from '../config/index.ts';

/** Time to close a stopped turn after its agent's grace: store its text, end its log, write its outcome. */
const CLOSE_MS = 5_000;

/**
 * How long before its invocation's timeout a turn is stopped (reason `shutdown`): the cancel grace
 * the agent gets to return, plus the time to close the turn, so it closes before Lambda ends the
 * invocation and takes the worker with it.
 */
export function shutdownMarginMs(settings: Settings): number {
  return settings.runs.cancelGraceMs + CLOSE_MS;
}

/**
 * The least time left with which a worker starts a turn that is not the first of its session in the
 * invocation: one lease period (`runs.leaseMs`) for the agent, plus the shutdown margin. A turn
 * started with less would likely be stopped with `shutdown`; handed back, it runs on a fresh
 * invocation a moment later.
 */
export function turnBudgetMs(settings: Settings): number {
  return settings.runs.leaseMs + shutdownMarginMs(settings);
}

/** When to stop a turn started with `leftMs` of its invocation left; none when there is no room for a margin. */
export function stopAtFor(settings: Settings, leftMs: number, now: number): number | undefined {
  const margin = shutdownMarginMs(settings);
  return Number.isFinite(leftMs) && leftMs > margin ? now + leftMs - margin : undefined;
}
