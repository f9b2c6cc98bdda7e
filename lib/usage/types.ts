import type { BudgetLeft, Pricing } from '../contract/index.ts';

/** Which budget a refusal or a `budget_reached` is about. */
export type BudgetScope = 'session' | 'user' | 'tenant';

/** What a turn is priced and measured with: fixed when the run starts. */
export interface TurnAccounting {
  /** The agent's pricing over the server's. */
  pricing: Pricing;
  /** The session's spend before this run. */
  spentUsd: number;
  /** The session's budget, if any. */
  budgetUsd?: number;
  /** `maskServerErrors`: a 500's message is generic, its detail only in the log. */
  maskServerErrors: boolean;
  /**
   * Counts the run's cost toward its session (and the rolling-day ledgers), once, before the event
   * that ends the run is logged: a host that reads that event and sends its next message meets the
   * spend already. Keyed by the run, so a later count of the same run changes nothing.
   */
  count(usage: { costUsd?: number } | undefined): Promise<void>;
  /**
   * The room the run started with (`roomAtStart`): read on the first ask, once per run, so that a
   * turn whose agent never asks reads nothing.
   */
  room(): Promise<BudgetLeft | undefined>;
}
