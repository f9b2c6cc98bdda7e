import { DeleteItem, GetItem, PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys } from './keys.ts';
import { strip } from './table.ts';

/** A tenant's suspension: who suspended it, when and why. */
export interface SuspensionRecord {
  tenant: string;
  suspendedAt: string;
  reason?: string;
}

/** Suspends a tenant (a second suspension replaces the first: the newest reason is kept). */
export async function putSuspension(rt: Runtime, suspension: SuspensionRecord): Promise<void> {
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: { ...keys.suspension(suspension.tenant), type: 'suspension', ...suspension },
    }),
  );
}

/** Lifts a tenant's suspension; true when there was one. */
export async function deleteSuspension(rt: Runtime, tenant: string): Promise<boolean> {
  const { Attributes } = await rt.db.send(
    new DeleteItem({ TableName: rt.table, Key: keys.suspension(tenant), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes !== undefined;
}

/**
 * The tenant's suspension, if it has one. An eventually consistent read (half the cost of a
 * consistent one, on every message of a tenant): a suspension applies within a second.
 */
export async function getSuspension(rt: Runtime, tenant: string): Promise<SuspensionRecord | undefined> {
  const { Item } = await rt.db.send(new GetItem({ TableName: rt.table, Key: keys.suspension(tenant) }));
  return Item ? (strip(Item) as unknown as SuspensionRecord) : undefined;
}
