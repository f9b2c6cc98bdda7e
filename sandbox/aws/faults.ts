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

/**
 * Bursts: now and then a call starts a run of faults on its service, so that the calls after it (a
 * retry of the same call among them) meet the same throttling or timeout, for longer than the SDK
 * retries: what a throttled table or an unreachable endpoint looks like for a few seconds.
 */
export interface FaultBursts {
  /** The probability that a call (not already in a burst) starts one on its service, 0 to 1. */
  rate: number;
  /** How many calls in a row a burst faults, the first included: drawn from this range. */
  minLength: number;
  maxLength: number;
}

/** The sandbox's fault injection: a seed, and the rates of each service. */
export interface FaultOptions {
  seed: number;
  rates: Partial<Record<Service, FaultRates>>;
  /** Bursts on the services that have `rates`. Default: none. */
  bursts?: FaultBursts;
  /** The profile's name, for the report (`light`, `heavy`). */
  profile?: string;
  /** How long a timed-out call hangs before its connection is reset. Default 20 ms. */
  timeoutDelayMs?: number;
}

/** The profiles `switchboard dev --faults SEED[:PROFILE]` offers. */
export const FAULT_PROFILES = ['light', 'heavy'] as const;
export type FaultProfile = (typeof FAULT_PROFILES)[number];

/** The services whose calls the profiles fault: the ones a turn's work goes through. */
const FAULTED: Service[] = ['dynamodb', 'sqs', 's3', 'connections'];

/**
 * The fault injection of a profile: `light` throttles, fails and times out 2% of calls each (the
 * SDK's retries absorb nearly all of it); `heavy` adds bursts of 5 to 12 throttled or timed-out calls
 * in a row on one service (past the 3 or 4 attempts of the API functions' clients, and at times the
 * worker's 10), started by 1% of calls.
 */
export function faultProfile(seed: number, profile: FaultProfile = 'light'): FaultOptions {
  const rates = { throttle: 0.02, error: 0.02, timeout: 0.02 };
  return {
    seed,
    profile,
    rates: Object.fromEntries(FAULTED.map((service) => [service, rates])),
    ...(profile === 'heavy' && { bursts: { rate: 0.01, minLength: 5, maxLength: 12 } }),
  };
}

/**
 * `--faults`' value: `SEED` or `SEED:PROFILE` (a whole number, and `light` or `heavy`); undefined
 * when it is not one.
 */
export function parseFaults(value: string): FaultOptions | undefined {
  const match = /^(\d+)(?::([a-z]+))?$/.exec(value);
  const profile = (match?.[2] ?? 'light') as FaultProfile;
  if (!match || !FAULT_PROFILES.includes(profile)) return undefined;
  return faultProfile(Number(match[1]), profile);
}

/** What the front does to one call. */
export type Fault = 'throttle' | 'error' | 'timeout-before' | 'timeout-after';

/** One fault that was injected, for the report a test prints. */
export interface InjectedFault {
  n: number;
  service: Service;
  action: string;
  fault: Fault;
  /** It was one of a burst's calls. */
  burst?: boolean;
}

/** Counts by fault kind. */
export type FaultCounts = Partial<Record<Fault, number>>;

/** What the fault injection did so far (`GET /sandbox/faults`, and `switchboard dev` on exit). */
export interface FaultReport {
  seed: number;
  profile: string;
  /** Whether faults are injected now. */
  enabled: boolean;
  /** The functions' calls each service saw while faults were drawn. */
  calls: Partial<Record<Service, number>>;
  /** Faults injected in all. */
  injected: number;
  /** By service, then kind. */
  byService: Partial<Record<Service, FaultCounts>>;
  /** By operation (`dynamodb:PutItem`), then kind. */
  byOperation: Record<string, FaultCounts>;
  /** Bursts started, the faults they injected, and the longest. */
  bursts: { started: number; faults: number; longest: number };
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
  private readonly callsOf: Partial<Record<Service, number>> = {};
  /** The burst under way on each service: its fault and the calls it has left. */
  private readonly burstOf: Partial<Record<Service, { fault: Fault; left: number }>> = {};
  private readonly burstStats = { started: 0, faults: 0, longest: 0 };
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
    const rates = this.options.rates[service];
    const n = ++this.calls;
    this.callsOf[service] = (this.callsOf[service] ?? 0) + 1;
    const roll = this.random();
    const side = this.random();
    const burst = rates ? this.burstFault(service) : undefined;
    if (burst) {
      this.injected.push({ n, service, action, fault: burst, burst: true });
      return burst;
    }
    return this.single(n, service, action, rates ?? {}, roll, side);
  }

  /** The fault of a burst on `service`: the one under way, or one this call starts. */
  private burstFault(service: Service): Fault | undefined {
    const current = this.burstOf[service];
    if (current && current.left > 0) {
      current.left -= 1;
      this.burstStats.faults += 1;
      return current.fault;
    }
    const bursts = this.options.bursts;
    if (!bursts) return undefined;
    const start = this.random();
    const kind = this.random();
    const size = this.random();
    if (start >= bursts.rate) return undefined;
    const length = bursts.minLength + Math.floor(size * (bursts.maxLength - bursts.minLength + 1));
    // Throttling, or a call that hangs and is reset (half of them applied): the kinds a retry meets again.
    const fault: Fault = kind < 0.5 ? 'throttle' : kind < 0.75 ? 'timeout-before' : 'timeout-after';
    this.burstOf[service] = { fault, left: length - 1 };
    this.burstStats.started += 1;
    this.burstStats.faults += 1;
    this.burstStats.longest = Math.max(this.burstStats.longest, length);
    return fault;
  }

  private single(
    n: number,
    service: Service,
    action: string,
    rates: FaultRates,
    roll: number,
    side: number,
  ): Fault | undefined {
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

  /** What was injected so far, counted by service, operation and kind. */
  report(): FaultReport {
    const byService: FaultReport['byService'] = {};
    const byOperation: FaultReport['byOperation'] = {};
    const add = (counts: FaultCounts | undefined, fault: Fault): FaultCounts => ({
      ...counts,
      [fault]: (counts?.[fault] ?? 0) + 1,
    });
    for (const { service, action, fault } of this.injected) {
      byService[service] = add(byService[service], fault);
      byOperation[action] = add(byOperation[action], fault);
    }
    return {
      seed: this.options.seed,
      profile: this.options.profile ?? 'custom',
      enabled: this.enabled,
      calls: { ...this.callsOf },
      injected: this.injected.length,
      byService,
      byOperation,
      bursts: { ...this.burstStats },
    };
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

/** {@link FaultReport} for a person: totals, then one line per service and per operation. */
export function faultReportText(report: FaultReport): string {
  const kinds = (counts: FaultCounts) =>
    Object.entries(counts)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ');
  const lines = [
    `Faults (seed ${report.seed}, ${report.profile}): ${report.injected} injected in ${Object.values(report.calls).reduce((a, b) => a + (b ?? 0), 0)} calls; ${report.bursts.started} bursts (${report.bursts.faults} faults, the longest ${report.bursts.longest} calls)`,
    ...Object.entries(report.calls).map(
      ([service, calls]) =>
        `  ${service} (${calls} calls): ${kinds(report.byService[service as Service] ?? {}) || 'none'}`,
    ),
    ...Object.entries(report.byOperation)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, counts]) => `    ${operation}: ${kinds(counts)}`),
  ];
  return lines.join('\n');
}
