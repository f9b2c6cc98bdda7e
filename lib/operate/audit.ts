import type { Runtime } from '../config/index.ts';
import { type DetailOf, publishEvents } from '../events/index.ts';

/** The audit record of one operator action: the `Operator Action` event's detail. */
export type OperatorAction = DetailOf<'Operator Action'>;

/** What recording an operator action did: the record, and whether the bus took it. */
export interface Audited {
  record: OperatorAction;
  /** `published`: the bus took it; `failed`: the call or the entry failed; `no-bus`: the target names none. */
  published: 'published' | 'failed' | 'no-bus';
}

/**
 * Records who did an operator action (`tenant suspend`, `tenant resume`, `erase`): publishes the
 * `Operator Action` domain event on the target's bus, after the action, as every domain event is.
 * It never undoes or fails the action: a bus that is missing or refuses is reported in the result,
 * for the command to say so.
 */
export async function recordOperatorAction(
  rt: Runtime,
  fields: Omit<OperatorAction, 'version' | 'at'>,
): Promise<Audited> {
  const record: OperatorAction = { version: 1, ...fields, at: new Date(rt.clock()).toISOString() };
  if (!rt.eventBus) return { record, published: 'no-bus' };
  const sent = await publishEvents(rt, [{ detailType: 'Operator Action', detail: record }]);
  return { record, published: sent.sent === 1 ? 'published' : 'failed' };
}
