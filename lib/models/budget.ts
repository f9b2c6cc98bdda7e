import type { HostAgentIO, HostResult } from '../contract/index.ts';

/**
 * True once the turn's budget is spent (`io.budgetLeft()` at 0 or less): the loop makes no further
 * model call. The room was read when the run started; what this turn reported since is taken off in
 * the process, so asking before every call reads nothing from the table.
 */
export async function budgetSpent(io: Pick<HostAgentIO, 'budgetLeft'>): Promise<boolean> {
  const left = await io.budgetLeft?.();
  return left !== undefined && left.usd <= 0;
}

/** How a loop stopped by its budget ends: completed, `budget_reached`, the text streamed so far its content. */
export const budgetStop = (): HostResult => ({ stopReason: 'budget_reached' });
