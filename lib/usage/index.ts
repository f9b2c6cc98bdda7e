export { budgetReached, checkBudgets, dayLedgers, type Spender } from './budget.ts';
export { checkUsageOptions } from './options.ts';
export { costOf, priceUsage, roundUsd } from './pricing.ts';
export { recordSpend } from './spend.ts';
export {
  type Budget,
  BudgetSchema,
  type BudgetScope,
  type BudgetSettings,
  BudgetSettingsSchema,
  type ModelPrice,
  ModelPriceSchema,
  type Pricing,
  PricingSchema,
  type TurnAccounting,
} from './types.ts';
