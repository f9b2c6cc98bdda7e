import type { Runtime } from '../config/index.ts';
import type { BudgetLeft } from '../contract/index.ts';
import { BudgetExceededError } from '../errors/index.ts';
import {
  daySpend,
  findRequest,
  ownerPartition,
  type SessionRecord,
  tenantPartition,
} from '../store/index.ts';
import { roundUsd } from './pricing.ts';
import type { BudgetScope } from './types.ts';

/** Who is spending: an owner (a user within a tenant). */
export interface Spender {
  owner: string;
  tenant?: string;
}

/** The rolling-day limits that apply to a spender, with the ledger each is kept in. */
function dayLimits(rt: Runtime, who: Spender): { scope: BudgetScope; partition: string; limit: number }[] {
  const { perUserDailyUsd, perTenantDailyUsd } = rt.settings.budgets;
  return [
    ...(perUserDailyUsd !== false
      ? [{ scope: 'user' as const, partition: ownerPartition(who.tenant, who.owner), limit: perUserDailyUsd }]
      : []),
    ...(perTenantDailyUsd !== false && who.tenant !== undefined
      ? [{ scope: 'tenant' as const, partition: tenantPartition(who.tenant), limit: perTenantDailyUsd }]
      : []),
  ];
}

/**
 * Refuses a new message (402 `budget_exceeded`) when its session has spent its budget, or its owner
 * or tenant their rolling-day limit; nothing is stored for it. The retry of a message accepted
 * before is let through: it is the same message, and answers as it did. Continuations and answers
 * to an open pause are never refused: they finish work the budget already paid for.
 */
export async function checkBudgets(
  rt: Runtime,
  who: Spender,
  target: { sessionId: string; session?: SessionRecord; budgetUsd?: number; requestId: string },
): Promise<void> {
  const refusal = await refusalOf(rt, who, target);
  if (!refusal) return;
  if (target.session && (await findRequest(rt, target.sessionId, target.requestId))) return;
  rt.metrics.add('BudgetRefusals', 1);
  throw refusal;
}

async function refusalOf(
  rt: Runtime,
  who: Spender,
  target: { session?: SessionRecord; budgetUsd?: number },
): Promise<BudgetExceededError | undefined> {
  const spent = target.session?.spentUsd ?? 0;
  if (target.budgetUsd !== undefined && spent >= target.budgetUsd)
    return new BudgetExceededError('session', roundUsd(spent), target.budgetUsd);
  for (const { scope, partition, limit } of dayLimits(rt, who)) {
    const day = await daySpend(rt, partition, rt.clock());
    if (day >= limit) return new BudgetExceededError(scope, roundUsd(day), limit);
  }
  return undefined;
}

/**
 * The budget a turn that cost `costUsd` reaches, if any: the session's (what it spent before, plus
 * this turn), or its owner's or tenant's rolling day (their ledger, which holds this turn already:
 * it is asked after the turn was counted). A turn that reaches one ends with `budget_reached`.
 */
export async function budgetReached(
  rt: Runtime,
  who: Spender,
  spent: { beforeUsd: number; costUsd: number; budgetUsd?: number },
): Promise<BudgetScope | undefined> {
  if (spent.costUsd <= 0) return undefined;
  if (spent.budgetUsd !== undefined && spent.beforeUsd + spent.costUsd >= spent.budgetUsd) return 'session';
  for (const { scope, partition, limit } of dayLimits(rt, who)) {
    if ((await daySpend(rt, partition, rt.clock())) >= limit) return scope;
  }
  return undefined;
}

/**
 * The room a run starts with: the tightest of its session's budget (less what the session spent
 * before the run) and its owner's and tenant's rolling-day limits (less their day's spend, one Query
 * of each ledger), undefined when none applies. What the turn spends afterwards is taken off in the
 * process, with no further read.
 */
export async function roomAtStart(
  rt: Runtime,
  who: Spender,
  session: { spentUsd: number; budgetUsd?: number },
): Promise<BudgetLeft | undefined> {
  const rooms: BudgetLeft[] = await Promise.all(
    dayLimits(rt, who).map(async ({ scope, partition, limit }) => ({
      scope,
      usd: limit - (await daySpend(rt, partition, rt.clock())),
    })),
  );
  if (session.budgetUsd !== undefined)
    rooms.unshift({ scope: 'session', usd: session.budgetUsd - session.spentUsd });
  return rooms.reduce<BudgetLeft | undefined>(
    (tightest, room) => (tightest && tightest.usd <= room.usd ? tightest : room),
    undefined,
  );
}

/**
 * A session's budget in US dollars: its agent's (`budgetFor`), plus what operators added to it
 * (`budgetAddedUsd`); undefined when its agent has none.
 */
export function sessionBudget(
  agentBudgetUsd: number | undefined,
  session: Pick<SessionRecord, 'budgetAddedUsd'> | undefined,
): number | undefined {
  if (agentBudgetUsd === undefined) return undefined;
  return roundUsd(agentBudgetUsd + (session?.budgetAddedUsd ?? 0));
}

/** The ledgers a run's cost goes into besides its session's: its owner's and its tenant's, when limited. */
export function dayLedgers(rt: Runtime, who: Spender): string[] {
  return dayLimits(rt, who).map((l) => l.partition);
}
