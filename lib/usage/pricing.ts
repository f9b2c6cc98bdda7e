import type { Pricing, Usage } from '../contract/index.ts';

const PER_MILLION = 1_000_000;

/**
 * A usage with its cost: `costUsd` as the agent gave it, else its tokens priced by `model` in the
 * pricing table. Input tokens count the cached ones among them (the convention of the OpenAI API):
 * those are priced at `cachedInput`. A usage without a cost whose model is not in the table stays
 * unpriced and costs nothing.
 *
 * @example
 * ```ts
 * priceUsage({ inputTokens: 1000, outputTokens: 200, model: 'small' }, { small: { input: 1, output: 4 } });
 * // → { …, costUsd: 0.0018 }
 * ```
 */
export function priceUsage(usage: Usage, pricing: Pricing): Usage {
  if (usage.costUsd !== undefined || usage.model === undefined) return usage;
  const price = Object.hasOwn(pricing, usage.model) ? pricing[usage.model] : undefined;
  if (!price) return usage;
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const cost =
    (input - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    (usage.outputTokens ?? 0) * price.output;
  return { ...usage, costUsd: roundUsd(cost / PER_MILLION) };
}

/** What a usage cost, 0 when it has no cost. */
export function costOf(usage: Usage | undefined): number {
  return usage?.costUsd ?? 0;
}

/**
 * Dollars rounded to a billionth: sums of float prices otherwise show as 0.30000000000000004, and
 * nothing anyone pays is smaller.
 */
export function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
