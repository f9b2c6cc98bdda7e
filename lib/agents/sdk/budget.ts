import type { HostAgentIO } from '../../contract/index.ts';
import { budgetSpent } from '../../models/budget.ts';

/** The reason the guard's signal aborts with when the budget is spent. */
const BUDGET_REACHED = 'budget_reached';

/**
 * How the SDK adapter stops an AI SDK call at the turn's budget: the call is handed `abortSignal`
 * (the run's signal, or the budget's) and `onStepStart`. Before each step after the first, the
 * SDK awaits `onStepStart`, which waits until the adapter has read the earlier steps' `finish-step`
 * parts (their usage is then the turn's) and asks `io.budgetLeft()`: once it is spent, the signal
 * aborts before the step calls the model, so the provider's request is never sent. `parts` counts
 * the steps read, and `reached` says the call was stopped for the budget.
 */
export function budgetGuard(io: Pick<HostAgentIO, 'budgetLeft' | 'signal'>) {
  const controller = new AbortController();
  const signal = AbortSignal.any([io.signal, controller.signal]);
  let read = 0;
  let done = false;
  const waiting: { steps: number; wake: () => void }[] = [];
  const wakeUp = () => {
    for (const w of waiting.splice(0)) {
      if (done || read >= w.steps) w.wake();
      else waiting.push(w);
    }
  };
  signal.addEventListener('abort', () => {
    done = true;
    wakeUp();
  });
  return {
    signal,
    get reached(): boolean {
      return controller.signal.aborted && !io.signal.aborted;
    },
    /** The SDK's `onStepStart`: step `stepNumber` (from 0) starts once `stepNumber` steps were read. */
    onStepStart: async ({ stepNumber }: { stepNumber: number }): Promise<void> => {
      if (stepNumber > 0 && read < stepNumber && !done)
        await new Promise<void>((wake) => {
          waiting.push({ steps: stepNumber, wake });
        });
      if (!signal.aborted && (await budgetSpent(io))) controller.abort(BUDGET_REACHED);
    },
    /** The stream's parts as they come, each `finish-step` counted once the adapter has read it. */
    async *parts<T>(stream: AsyncIterable<T>): AsyncIterable<T> {
      try {
        for await (const part of stream) {
          yield part;
          if ((part as { type?: unknown }).type === 'finish-step') {
            read += 1;
            wakeUp();
          }
        }
      } finally {
        done = true;
        wakeUp();
      }
    },
  };
}
