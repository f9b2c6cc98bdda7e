import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, ContextManager } from '@opentelemetry/api';

/** The context of one async flow: a box, so that a scope entered early can be given its span later. */
export interface Scope {
  context: Context | undefined;
}

/** Every flow's scope: AsyncLocalStorage alone, so that a scope opens before the SDK has loaded. */
const storage = new AsyncLocalStorage<Scope>();

/**
 * Opens a scope for the rest of this async flow (`AsyncLocalStorage.enterWith`), holding the current
 * context: call it before the flow's first await; setting the answer's `context` later (once the span
 * has started) changes what every later step sees. The handler pipeline opens a function's span in a
 * middleware's `before` and ends it in its `after`, with no function around the handler to run
 * `context.with` in; it enters the scope before its first await, as the log keys do (log-context.ts).
 */
export function openScope(): Scope {
  const scope = { context: storage.getStore()?.context };
  storage.enterWith(scope);
  return scope;
}

/**
 * OpenTelemetry's context on the same `AsyncLocalStorage`, registered by the SDK as it loads
 * (trace-provider.ts). The package's own manager (`@opentelemetry/context-async-hooks`) cannot enter
 * a scope for the rest of a flow, which the pipeline needs (see {@link openScope}).
 */
export class ScopedContextManager implements ContextManager {
  constructor(private readonly root: Context) {}

  active(): Context {
    return storage.getStore()?.context ?? this.root;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return storage.run({ context }, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
