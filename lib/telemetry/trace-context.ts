import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, type ContextManager, context, ROOT_CONTEXT } from '@opentelemetry/api';

/** The context of one async flow: a box, so that a scope entered early can be given its span later. */
interface Scope {
  context: Context;
}

/**
 * OpenTelemetry's context on `AsyncLocalStorage`, with one thing the package's own manager
 * (`@opentelemetry/context-async-hooks`) does not offer: a scope opened for the rest of an async flow
 * (`AsyncLocalStorage.enterWith`), whose context is set later. The handler pipeline opens a
 * function's span in a middleware's `before` and ends it in its `after`, with no function around
 * the handler to run `context.with` in; and it must enter the scope before its first await (as the
 * log keys do, log-context.ts), while the span can start only once the SDK has loaded.
 */
export class ScopedContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Scope>();

  active(): Context {
    return this.#storage.getStore()?.context ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run({ context }, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  /**
   * Opens a scope for the rest of this async flow, holding the current context: call it before the
   * flow's first await; setting the answer's `context` later changes what every later step sees.
   */
  openScope(): Scope {
    const scope = { context: this.active() };
    this.#storage.enterWith(scope);
    return scope;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}

let registered: ScopedContextManager | undefined;

/** The process's context manager (OpenTelemetry's is global), registered on first use. */
export function contextManager(): ScopedContextManager {
  if (!registered) {
    registered = new ScopedContextManager();
    context.setGlobalContextManager(registered);
  }
  return registered;
}
