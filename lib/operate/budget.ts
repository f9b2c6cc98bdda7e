import type { Runtime } from '../config/index.ts';
import { SessionNotFoundError } from '../errors/index.ts';
import { addSessionBudget } from '../store/index.ts';

/** What adding to a session's budget did. */
export interface BudgetAdded {
  session: string;
  owner: string;
  tenant?: string;
  /** What this command added, in US dollars. */
  addedUsd: number;
  /** What operators have added to the session in all: its budget is its agent's plus this. */
  budgetAddedUsd: number;
  /** What the session has spent. */
  spentUsd: number;
}

/**
 * `switchboard budget <session> --add-usd N`: gives one session N more US dollars of budget, at once
 * and without a deployment: its next message is taken once its spend is below its agent's budget plus
 * what operators added. A session whose agent has no budget is not limited, and stays so.
 */
export async function addBudget(rt: Runtime, ref: string, usd: number): Promise<BudgetAdded> {
  const added = await addSessionBudget(rt, ref, usd);
  if (!added) throw new SessionNotFoundError(ref);
  return {
    session: ref,
    owner: added.owner,
    ...(added.tenant !== undefined && { tenant: added.tenant }),
    addedUsd: usd,
    budgetAddedUsd: added.budgetAddedUsd ?? usd,
    spentUsd: added.spentUsd ?? 0,
  };
}
