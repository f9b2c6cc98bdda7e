import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiled } from '../../lib/contract/index.ts';
import { BudgetExceededError } from '../../lib/errors/index.ts';
import { createSwitchboard, hostAgentRegistration, toJsonSchema } from '../../lib/index.ts';
import { TurnState } from '../../lib/runs/index.ts';
import { priceUsage } from '../../lib/usage/index.ts';

const invoke = async () => ({});

describe('pricing a usage', () => {
  const pricing = { small: { input: 0.5, output: 2, cachedInput: 0.1 } };

  it('takes costUsd as given, and prices tokens by model otherwise (cached input at its own price)', () => {
    expect(priceUsage({ costUsd: 3, inputTokens: 1e6, model: 'small' }, pricing).costUsd).toBe(3);
    expect(priceUsage({ inputTokens: 2e6, outputTokens: 1e6, model: 'small' }, pricing).costUsd).toBe(3);
    expect(
      priceUsage({ inputTokens: 1e6, cachedInputTokens: 5e5, outputTokens: 0, model: 'small' }, pricing)
        .costUsd,
    ).toBe(0.3);
  });

  it('leaves a usage unpriced without a model, or with one the table does not name (an inherited key included)', () => {
    expect(priceUsage({ inputTokens: 10 }, pricing).costUsd).toBeUndefined();
    expect(priceUsage({ inputTokens: 10, model: 'other' }, pricing).costUsd).toBeUndefined();
    expect(priceUsage({ inputTokens: 10, model: 'constructor' }, pricing).costUsd).toBeUndefined();
  });

  it('prices each usage event of a turn by its own model, and the result’s usage replaces them', () => {
    const state = new TurnState(new Set(), { a: { input: 1, output: 0 }, b: { input: 10, output: 0 } });
    state.apply({ type: 'usage', usage: { inputTokens: 1e5, model: 'a' } });
    state.apply({ type: 'usage', usage: { inputTokens: 1e5, model: 'b' } });
    expect(state.settle({}).usage?.costUsd).toBe(1.1);
    expect(state.settle({ usage: { inputTokens: 1e6, model: 'a' } }).usage?.costUsd).toBe(1);
  });
});

describe('budget and pricing options', () => {
  it('throws at registration for a budget or a price that cannot work', () => {
    expect(() => hostAgentRegistration({ info: { id: 'a' }, invoke, budget: { sessionUsd: 0 } })).toThrow(
      /budget\.sessionUsd/,
    );
    expect(() =>
      hostAgentRegistration({ info: { id: 'a' }, invoke, pricing: { m: { input: -1, output: 1 } } }),
    ).toThrow(/pricing\.m\.input/);
    expect(() => createSwitchboard({ budget: { sessionUsd: -5 } })).toThrow(/options\.budget/);
    expect(() => createSwitchboard({ maskServerErrors: 'yes' as never })).toThrow(/maskServerErrors/);
  });

  it('takes the agent’s budget and prices over the server’s; budget false switches the default off', () => {
    const app = createSwitchboard({ budget: { sessionUsd: 10 }, pricing: { m: { input: 1, output: 1 } } });
    const own = app.registerHostAgent({
      info: { id: 'own' },
      invoke,
      budget: { sessionUsd: 2 },
      pricing: { m: { input: 3, output: 3 } },
    });
    const none = app.registerHostAgent({ info: { id: 'none' }, invoke, budget: false });
    const plain = app.registerHostAgent({ info: { id: 'plain' }, invoke });
    expect([app.budgetFor(own), app.budgetFor(none), app.budgetFor(plain)]).toEqual([2, undefined, 10]);
    expect(app.pricingFor(own).m?.input).toBe(3);
    expect(app.pricingFor(plain).m?.input).toBe(1);
  });

  it('states spent and budget in the refusal', () => {
    expect(new BudgetExceededError('session', 1.2, 1).message).toContain('$1.20');
    expect(new BudgetExceededError('user', 0.0042, 5).message).toMatch(
      /\$0\.0042 in the last 24 hours.*\$5\.00/,
    );
    expect(new BudgetExceededError('tenant', 9, 8)).toMatchObject({ status: 402, code: 'budget_exceeded' });
  });
});

describe('toJsonSchema', () => {
  it('turns a zod schema into a draft-07 JSON Schema that checks arguments as the zod schema does', () => {
    const schema = z.object({ amount: z.number().max(100), note: z.string().default('') });
    const json = toJsonSchema(schema);
    expect(json).toMatchObject({ type: 'object', required: ['amount'] });
    const validate = compiled(json);
    expect(validate({ amount: 5 })).toBe(true);
    expect(validate({ amount: 500 })).toBe(false);
    expect(validate({ note: 'x' })).toBe(false);
  });

  it('throws for a schema JSON Schema cannot express', () => {
    expect(() => toJsonSchema(z.date())).toThrow();
  });
});
