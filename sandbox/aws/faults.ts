import type { Service } from './operations.ts';

/** How often each fault hits one service's calls, each a probability from 0 to 1. */
export interface FaultRates {
  /** Throttling: DynamoDB ThrottlingException, SQS Throttling, S3 SlowDown, API Gateway 429. */
  throttle?: number;
  /** A 5xx answer (the call was not applied). */
  error?: number;
  /**
   * A connection reset after a delay, half the time before the call reaches the service (it is not
   * applied) and half the time after (it is applied, the answer is lost): what a timed-out call
   * looks like to the SDK, which retries it.
   */
  timeout?: number;
}

/** The sandbox's fault injection: a seed, and the rates of each service. */
export interface FaultOptions {
  seed: number;
  rates: Partial<Record<Service, FaultRates>>;
  /** How long a timed-out call hangs before its connection is reset. Default 20 ms. */
  timeoutDelayMs?: number;
}

/** What the front does to one call. */
export type Fault = 'throttle' | 'error' | 'timeout-before' | 'timeout-after';

/** One fault that was injected, for the report a test prints. */
export interface InjectedFault {
  n: number;
  service: Service;
  action: string;
  fault: Fault;
}

/** mulberry32: a small seeded generator, so a run's faults can be drawn again from its seed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Draws faults from one seeded sequence. The same seed draws the same sequence; which call meets
 * which draw follows the order calls arrive in, which concurrency can change between runs.
 */
export class FaultPlan {
  readonly injected: InjectedFault[] = [];
  private readonly random: () => number;
  private calls = 0;
  /** Off: no call is faulted (a test turns faults off to check that everything recovered). */
  enabled = true;

  constructor(private readonly options: FaultOptions) {
    this.random = generator(options.seed);
  }

  get timeoutDelayMs(): number {
    return this.options.timeoutDelayMs ?? 20;
  }

  /** The fault for the next call to `service`, if any, recorded. */
  draw(service: Service, action: string): Fault | undefined {
    if (!this.enabled) return undefined;
    const rates = this.options.rates[service] ?? {};
    const n = ++this.calls;
    const roll = this.random();
    const side = this.random();
    const throttle = rates.throttle ?? 0;
    const error = throttle + (rates.error ?? 0);
    const timeout = error + (rates.timeout ?? 0);
    const fault: Fault | undefined =
      roll < throttle
        ? 'throttle'
        : roll < error
          ? 'error'
          : roll < timeout
            ? side < 0.5
              ? 'timeout-before'
              : 'timeout-after'
            : undefined;
    if (fault) this.injected.push({ n, service, action, fault });
    return fault;
  }

  /** How many faults of each kind hit each service. */
  summary(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { service, fault } of this.injected) {
      const key = `${service} ${fault}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }
}
