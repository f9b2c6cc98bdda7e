export {
  budgetReached,
  checkBudgets,
  dayLedgers,
  roomAtStart,
  type Spender,
  sessionBudget,
} from './budget.ts';
export { checkUsageOptions } from './options.ts';
export { costOf, priceUsage, roundUsd } from './pricing.ts';
export { recordSpend } from './spend.ts';
export type { BudgetScope, TurnAccounting } from './types.ts';
