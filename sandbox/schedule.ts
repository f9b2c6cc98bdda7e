import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { asInvocation, createLambdaContext } from './lambda-context.ts';

/** Options of {@link startSchedule}. */
export interface ScheduleOptions {
  /** How often the rule fires; `rate(1 minute)` is 60 000. */
  periodMs: number;
  handler: (event: ScheduledEvent, context: Context) => Promise<unknown>;
  /** Default `arn:aws:events:<region>:<account>:rule/sandbox-schedule`. */
  ruleArn?: string;
  /** Default 'sweep'. */
  functionName?: string;
  /** Default 900 000. */
  timeoutMs?: number;
}

/** A running schedule. */
export interface Schedule {
  /** Fires now, unless a run is in flight, in which case it waits for that one instead. */
  tick(): Promise<void>;
  /** Stops the timer and waits for a run in flight. */
  stop(): Promise<void>;
}

/** An EventBridge "Scheduled Event" for the rule, as the rule's target receives it. */
export function scheduledEvent(ruleArn: string, now = new Date()): ScheduledEvent {
  const [, , , region = 'us-east-1', account = '000000000000'] = ruleArn.split(':');
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account,
    // EventBridge stamps the time to the second.
    time: `${now.toISOString().slice(0, 19)}Z`,
    region,
    resources: [ruleArn],
    detail: {},
  };
}

/**
 * Invokes a handler every `periodMs` like an EventBridge schedule rule. A tick that comes while
 * the previous run is still going is skipped, so runs never overlap.
 *
 * @example
 * const schedule = startSchedule({ periodMs: 60_000, handler: sweep.handler });
 * await schedule.tick(); // a test need not wait for the period
 * await schedule.stop();
 */
export function startSchedule(options: ScheduleOptions): Schedule {
  if (!Number.isFinite(options.periodMs) || options.periodMs <= 0)
    throw new Error('periodMs must be positive');
  const ruleArn = options.ruleArn ?? 'arn:aws:events:us-east-1:000000000000:rule/sandbox-schedule';
  let inFlight: Promise<void> | undefined;

  const run = async () => {
    const event = scheduledEvent(ruleArn);
    const context = createLambdaContext({
      functionName: options.functionName ?? 'sweep',
      timeoutMs: options.timeoutMs ?? 900_000,
      region: event.region,
      accountId: event.account,
    });
    try {
      await asInvocation(() => options.handler(event, context));
    } catch (error) {
      console.error('[schedule] run failed:', error);
    }
  };

  const tick = () => {
    inFlight ??= run().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const timer = setInterval(() => void tick(), options.periodMs);
  return {
    tick,
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
