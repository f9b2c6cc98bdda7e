import * as z from 'zod';

/*
 * What an agent's registration may say it costs (`pricing`) and may spend (`budget`): host-backed
 * agents' usage and budgets. lib/usage prices turns and checks budgets with them.
 */

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
