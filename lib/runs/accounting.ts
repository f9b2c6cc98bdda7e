import type { HostAgentRegistration, Switchboard, Usage } from '../agents/index.ts';
import type { SessionRecord } from '../store/index.ts';
import { costOf, roundUsd, type TurnAccounting } from '../usage/index.ts';

/** What a run of `agent` in `session` is priced and measured with. */
export function accountingOf(
  app: Switchboard,
  agent: HostAgentRegistration | undefined,
  session: SessionRecord,
): TurnAccounting {
  return {
    pricing: agent ? app.pricingFor(agent) : {},
    spentUsd: session.spentUsd ?? 0,
    budgetUsd: app.budgetFor(agent),
    maskServerErrors: app.maskServerErrors,
  };
}

/**
 * What the event that ends a run says of money: `spent_usd`, the session's spend with this run's
 * cost (the seed's `spentUsd`), and the run's `usage` when it reported one. The usage is also what a
 * worker that takes over a lost run reads back, so a run that ended in the log is counted as it said.
 */
export function closingSpend(spentUsd: number, usage: Usage | undefined): Record<string, unknown> {
  return { spent_usd: roundUsd(spentUsd + costOf(usage)), ...(usage && { usage }) };
}
