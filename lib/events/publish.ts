import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { Runtime } from '../config/index.ts';
import { putEventsCalls } from './limits.ts';
import { type DomainEvent, EVENT_SOURCE } from './schema.ts';

/** What a call of {@link publishEvents} did. */
export interface Published {
  /** Entries EventBridge accepted. */
  sent: number;
  /** Entries that were not published: refused by EventBridge, or in a call that failed. */
  failed: number;
}

/** Whether this runtime publishes domain events: a bus is configured and `events.enabled` is on. */
export function publishing(rt: Runtime): boolean {
  return rt.eventBus !== undefined && rt.settings.events.enabled;
}

function entryOf(bus: string, event: DomainEvent, at: number): PutEventsRequestEntry {
  return {
    EventBusName: bus,
    Source: EVENT_SOURCE,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    Time: new Date(at),
  };
}

/**
 * Publishes domain events on the deployment's bus, in calls within PutEvents' limits (ten entries,
 * 256 KB). It never fails
 * what it reports on: a call that fails, or an entry EventBridge refuses, is logged (with the
 * detail-types and the count), counted in the result and in the `EventsNotPublished` metric (which the
 * construct alarms on), not thrown. The SDK retries throttling and
 * 5xx answers on its own. Nothing is sent without a bus, or with `events.enabled` off. Undefined
 * entries (a builder's "no event for this") are skipped.
 */
export async function publishEvents(
  rt: Runtime,
  given: readonly (DomainEvent | undefined)[],
): Promise<Published> {
  const bus = rt.eventBus;
  const result: Published = { sent: 0, failed: 0 };
  const events = given.filter((event) => event !== undefined);
  if (!bus || !publishing(rt) || events.length === 0) return result;
  const now = rt.clock();
  const entries = events.map((event) => ({ event, ...entryOf(bus, event, now) }));
  for (const call of putEventsCalls(entries)) {
    const chunk = call.map(({ event }) => event);
    const types = chunk.map((e) => e.detailType);
    try {
      const [client, { PutEventsCommand }] = await Promise.all([
        rt.events(),
        import('../aws/sdk/events/put.ts'),
      ]);
      const answer = await client.send(
        new PutEventsCommand({ Entries: call.map(({ event: _, ...entry }) => entry) }),
      );
      const refused = (answer.Entries ?? []).filter((entry) => entry.ErrorCode);
      const failed = answer.FailedEntryCount ?? refused.length;
      result.failed += failed;
      result.sent += chunk.length - failed;
      if (failed > 0) {
        rt.metrics.add('EventsNotPublished', failed);
        rt.logger.warn('Domain events not published', {
          count: failed,
          detailTypes: types,
          errors: refused.map((entry) => `${entry.ErrorCode}: ${entry.ErrorMessage}`),
        });
      }
    } catch (error) {
      result.failed += chunk.length;
      rt.metrics.add('EventsNotPublished', chunk.length);
      rt.logger.warn('Domain events not published', {
        count: chunk.length,
        detailTypes: types,
        error: String(error),
      });
    }
  }
  return result;
}
