import { describe, expect, it } from 'vitest';
import { budgetGuard } from '../../lib/agents/sdk/budget.ts';
import type { BudgetLeft } from '../../lib/index.ts';

/** An io whose budget is spent once `spent` says so (as the turn's usage events would make it). */
function budgetIO() {
  const controller = new AbortController();
  const state = { spent: false, asked: 0 };
  const io = {
    signal: controller.signal,
    budgetLeft: async (): Promise<BudgetLeft> => {
      state.asked += 1;
      return { scope: 'session', usd: state.spent ? 0 : 1 };
    },
  };
  return { io, state, controller };
}

/** A stream that hands out the parts given, one per pull, as the test lets it. */
function parts(...types: string[]) {
  return (async function* () {
    for (const type of types) yield { type };
  })();
}

describe('the SDK adapter’s budget guard', () => {
  it('lets a step start only once the earlier steps were read, and aborts it when their usage spent the budget', async () => {
    const { io, state } = budgetIO();
    const guard = budgetGuard(io);
    let started = false;
    const step1 = guard.onStepStart({ stepNumber: 1 }).then(() => {
      started = true;
    });
    await Promise.resolve();
    expect(started).toBe(false);
    const reader = guard.parts(parts('text-delta', 'finish-step', 'finish'))[Symbol.asyncIterator]();
    expect((await reader.next()).value).toEqual({ type: 'text-delta' });
    expect((await reader.next()).value).toEqual({ type: 'finish-step' });
    // The adapter has emitted the step's usage: the budget is spent now.
    state.spent = true;
    await reader.next();
    await step1;
    expect(started).toBe(true);
    expect(guard.signal.aborted).toBe(true);
    expect(guard.reached).toBe(true);
  });

  it('does not abort while there is room, nor count a cancel as the budget', async () => {
    const { io, controller } = budgetIO();
    const guard = budgetGuard(io);
    await guard.onStepStart({ stepNumber: 0 });
    expect(guard.signal.aborted).toBe(false);
    const waiting = guard.onStepStart({ stepNumber: 3 });
    controller.abort('user');
    await waiting;
    expect(guard.signal.aborted).toBe(true);
    expect(guard.reached).toBe(false);
  });

  it('lets a waiting step go when the stream ends before it was read', async () => {
    const { io } = budgetIO();
    const guard = budgetGuard(io);
    const waiting = guard.onStepStart({ stepNumber: 2 });
    for await (const _ of guard.parts(parts('finish-step'))) {
      // read
    }
    await waiting;
    expect(guard.signal.aborted).toBe(false);
  });
});
