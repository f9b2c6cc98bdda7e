import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostAgentRegistration, Usage } from '../contract/index.ts';
import type { RunRecord, SessionRecord } from '../store/index.ts';
import {
  costOf,
  recordSpend,
  roomAtStart,
  roundUsd,
  sessionBudget,
  type TurnAccounting,
} from '../usage/index.ts';

/** A run's accounting, and whether it has counted the run's cost already. */
export type RunAccounting = TurnAccounting & { readonly counted: boolean };

/** What a run of `agent` in `session` is priced and measured with, and how its cost is counted. */
export function accountingOf(
  rt: Runtime,
  app: Switchboard,
  agent: HostAgentRegistration | undefined,
  run: RunRecord,
  session: SessionRecord,
): RunAccounting {
  let counted = false;
  const spentUsd = session.spentUsd ?? 0;
  const budgetUsd = sessionBudget(app.budgetFor(agent), session);
  let room: ReturnType<TurnAccounting['room']> | undefined;
  return {
    pricing: agent ? app.pricingFor(agent) : {},
    spentUsd,
    budgetUsd,
    maskServerErrors: app.maskServerErrors,
    room() {
      room ??= roomAtStart(rt, session, { spentUsd, budgetUsd });
      return room;
    },
    async count(usage) {
      await recordSpend(rt, { ...run, usage }, session);
      counted = true;
    },
    get counted() {
      return counted;
    },
  };
}

/**
 * What the event that ends a run says of money: `spent_usd`, the session's spend with this run's
 * cost (the seed's `spentUsd`), and the run's `usage` when it reported one. The usage is also what a
 * worker that takes over a lost run reads back, so a run that ended in the log is counted as it said.
 */
export function closingSpend(
  spentUsd: number,
  usage: Usage | undefined,
): { spent_usd: number; usage?: Usage } {
  return { spent_usd: roundUsd(spentUsd + costOf(usage)), ...(usage && { usage }) };
}
