import type { z } from 'zod';
import { BudgetSchema, PricingSchema } from '../contract/index.ts';
import { AgentDefinitionError } from '../errors/index.ts';

function check(where: string, name: string, schema: z.ZodType, value: unknown): void {
  if (value === undefined) return;
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const at = [name, ...(issue?.path ?? [])].join('.');
  throw new AgentDefinitionError(`${where}${at}: ${issue?.message ?? 'invalid'}.`);
}

/**
 * Checks `pricing` and `budget` of a definition or of the server's options when they are given,
 * so that a table that cannot price (a negative price, a price that is not a number) or a budget
 * that cannot work (zero, negative) throws at registration, not at the first turn.
 */
export function checkUsageOptions(where: string, options: { pricing?: unknown; budget?: unknown }): void {
  check(where, 'pricing', PricingSchema, options.pricing);
  check(where, 'budget', BudgetSchema, options.budget);
}
