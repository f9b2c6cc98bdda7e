import * as z from 'zod';

const usd = z.number().finite().nonnegative();

/** What one model costs, in US dollars per million tokens. */
export const ModelPriceSchema = z
  .object({
    /** Per million input tokens (the cached ones among them too, unless `cachedInput` is given). */
    input: usd,
    /** Per million output tokens. */
    output: usd,
    /** Per million cached input tokens; default: `input`. */
    cachedInput: usd.optional(),
  })
  .strict();

/** The `pricing` table: model name → its price. A usage whose `model` is not in it is not priced. */
export const PricingSchema = z.record(z.string().min(1), ModelPriceSchema);

/** The `budget` of an agent (or the server's default): how much one session may spend, in US dollars. */
export const BudgetSchema = z.union([
  z.object({ sessionUsd: z.number().finite().positive() }).strict(),
  /** Switches a server-wide default off for one agent. */
  z.literal(false),
]);

/** What a model costs per million tokens. */
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
/** A pricing table. */
export type Pricing = z.infer<typeof PricingSchema>;
/** A budget, or `false` for none. */
export type Budget = z.infer<typeof BudgetSchema>;

/** A rolling-day spending limit in US dollars, or `false` (the default) for none. */
const DailyLimitSchema = z.union([z.number().finite().positive(), z.literal(false)]);

/**
 * The `budgets` settings: spending limits over a rolling day (the last 24 hours), per owner (a
 * user within a tenant) and per tenant, over every session and agent. Both are off by default.
 */
export const BudgetSettingsSchema = z
  .object({
    /** What one owner's sessions may spend in any 24 hours. */
    perUserDailyUsd: DailyLimitSchema.default(false),
    /** What every session of one tenant may spend in any 24 hours (callers without a tenant have none). */
    perTenantDailyUsd: DailyLimitSchema.default(false),
  })
  .strict();

/** The validated `budgets` settings. */
export type BudgetSettings = z.infer<typeof BudgetSettingsSchema>;

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
}
