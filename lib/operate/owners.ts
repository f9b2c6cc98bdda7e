import { paginateQuery, paginateScan } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { INDEXES, ownerPartition } from '../store/index.ts';

/** An owner: a user within a tenant (or within none). */
export interface Owner {
  owner: string;
  tenant?: string;
}

/** What the owner index lists under one owner: their sessions and their files. */
export interface OwnedItems {
  sessions: string[];
  files: string[];
}

/** Everything the owner index lists under an owner (Query, following its pages). */
export async function ownedItems(rt: Runtime, owner: Owner): Promise<OwnedItems> {
  const found: OwnedItems = { sessions: [], files: [] };
  const pages = paginateQuery(
    { client: rt.db },
    {
      TableName: rt.table,
      IndexName: INDEXES.owner,
      KeyConditionExpression: 'gsi2pk = :owner',
      ExpressionAttributeValues: { ':owner': ownerPartition(owner.tenant, owner.owner) },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (String(item.gsi2sk).startsWith('SESSION#')) found.sessions.push(String(item.sessionId));
      else if (String(item.gsi2sk).startsWith('FILE#')) found.files.push(String(item.fileId));
    }
  }
  return found;
}

/**
 * The owners of a tenant: a Scan of the owner index (only keys and a few attributes are projected
 * there, the tenant among them), filtered on the tenant. An operator's command, never a request's
 * path: it reads the whole index, so its cost grows with the number of sessions and files of every
 * tenant. The filter is on the attribute because the index key is a digest of tenant and user
 * together, with no prefix to match.
 */
export async function tenantOwners(rt: Runtime, tenant: string): Promise<Owner[]> {
  const owners = new Map<string, Owner>();
  const pages = paginateScan(
    { client: rt.db },
    {
      TableName: rt.table,
      IndexName: INDEXES.owner,
      FilterExpression: '#tenant = :tenant',
      ExpressionAttributeNames: { '#tenant': 'tenant' },
      ExpressionAttributeValues: { ':tenant': tenant },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (typeof item.owner === 'string') owners.set(String(item.gsi2pk), { owner: item.owner, tenant });
    }
  }
  return [...owners.values()];
}
