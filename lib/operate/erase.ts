import type { Runtime } from '../config/index.ts';
import { deleteFile } from '../files/index.ts';
import { eraseSession } from '../runs/index.ts';
import { batchWrite, getSession, keys, ownerPartition, queryAll, tenantPartition } from '../store/index.ts';
import { type Owner, ownedItems, tenantOwners } from './owners.ts';

/** What erasing an owner's (or a tenant's) data found, and did unless it was a dry run. */
export interface Erased {
  owners: Owner[];
  /** Sessions marked deleted: each answers 404 at once, and a queued run removes its items. */
  sessions: string[];
  /** Files deleted: their bytes, their records, and their share of the owner's quota. */
  files: string[];
  /** The owners' and the tenant's own items (quota counters, spend ledgers) deleted. */
  items: number;
  dryRun: boolean;
}

/** The items of a partition that are the owner's (or tenant's) bookkeeping, except what `keep` names. */
async function partitionKeys(rt: Runtime, pk: string, keep: string[] = []) {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: 'pk, sk',
  });
  return items.filter((item) => !keep.includes(String(item.sk)));
}

async function deleteKeys(rt: Runtime, items: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25)
    await batchWrite(
      rt,
      items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })),
    );
}

/**
 * Deletes everything of these owners, found through the owner index (no scan): each session as its
 * owner's `DELETE` would (marked at once, its running turn stopped with reason `deleted`, its items
 * removed by a queued run the worker does), each file with its bytes, then the owners' own items.
 * Idempotent: running it again finishes what a stopped run left. `dryRun` only lists.
 */
async function eraseOwners(rt: Runtime, owners: Owner[], dryRun: boolean): Promise<Erased> {
  const erased: Erased = { owners, sessions: [], files: [], items: 0, dryRun };
  for (const owner of owners) {
    const owned = await ownedItems(rt, owner);
    const own = await partitionKeys(rt, ownerPartition(owner.tenant, owner.owner));
    erased.items += own.length;
    if (dryRun) {
      erased.sessions.push(...owned.sessions);
      erased.files.push(...owned.files);
      continue;
    }
    for (const sessionId of owned.sessions) {
      const session = await getSession(rt, sessionId);
      if (session && (await eraseSession(rt, session))) erased.sessions.push(sessionId);
    }
    for (const fileId of owned.files) if (await deleteFile(rt, fileId)) erased.files.push(fileId);
    // Last: the quota counter goes once the files that it counts are gone.
    await deleteKeys(rt, await partitionKeys(rt, ownerPartition(owner.tenant, owner.owner)));
  }
  return erased;
}

/** `switchboard erase --user U [--tenant T]`: everything of one user (within their tenant). */
export function eraseOwner(rt: Runtime, owner: Owner, options: { dryRun?: boolean } = {}): Promise<Erased> {
  return eraseOwners(rt, [owner], options.dryRun ?? false);
}

/**
 * `switchboard erase --tenant T --all-users`: everything of every user of the tenant, and the
 * tenant's own items (its spend ledger). A suspension stays: lifting it is a decision of its own.
 */
export async function eraseTenant(
  rt: Runtime,
  tenant: string,
  options: { dryRun?: boolean } = {},
): Promise<Erased> {
  const dryRun = options.dryRun ?? false;
  const erased = await eraseOwners(rt, await tenantOwners(rt, tenant), dryRun);
  const own = await partitionKeys(rt, tenantPartition(tenant), [keys.suspension(tenant).sk]);
  erased.items += own.length;
  if (!dryRun) await deleteKeys(rt, own);
  return erased;
}
