import { digest } from '../ids/index.ts';

/** Item keys of the single table. Every session's items share its partition. */
export const keys = {
  session: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'META' }),
  run: (sessionId: string, runId: string) => ({ pk: `SESSION#${sessionId}`, sk: `RUN#${runId}` }),
  message: (sessionId: string, messageId: string) => ({ pk: `SESSION#${sessionId}`, sk: `MSG#${messageId}` }),
  event: (sessionId: string, seq: number) => ({ pk: `SESSION#${sessionId}`, sk: `EVT#${seqKey(seq)}` }),
  action: (sessionId: string, actionId: string) => ({ pk: `SESSION#${sessionId}`, sk: `ACT#${actionId}` }),
  request: (sessionId: string, requestId: string) => ({ pk: `SESSION#${sessionId}`, sk: `REQ#${requestId}` }),
  /** The rating of one message (feedback), beside the message: a re-put of the message never touches it. */
  feedback: (sessionId: string, messageId: string) => ({
    pk: `SESSION#${sessionId}`,
    sk: `FEEDBACK#${messageId}`,
  }),
  /**
   * A tool approved for the rest of the session (`remember_for_session`), by its name's digest: a
   * tool's name may be longer than a sort key holds.
   */
  rememberedTool: (sessionId: string, name: string) => ({
    pk: `SESSION#${sessionId}`,
    sk: `TOOL#${digest(name)}`,
  }),
  subscriber: (sessionId: string, connectionId: string) => ({
    pk: `SESSION#${sessionId}`,
    sk: `CONN#${connectionId}`,
  }),
  connection: (connectionId: string) => ({ pk: `CONN#${connectionId}`, sk: 'META' }),
  /** A file's record (`lib/store/files.ts`). */
  file: (fileId: string) => ({ pk: `FILE#${fileId}`, sk: 'META' }),
  /** What an owner (a user within a tenant) has uploaded, in all. */
  ownerFiles: (tenant: string | undefined, user: string) => ({
    pk: ownerPartition(tenant, user),
    sk: 'FILES',
  }),
  /** The files attached to a session's messages: their ids, count and bytes. */
  sessionFiles: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'FILES' }),
  /** An owner's request count in the rate window starting at `windowStart` (epoch seconds). */
  userRate: (tenant: string | undefined, user: string, windowStart: number) => ({
    pk: `RATE#OWNER#${ownerDigest(tenant, user)}`,
    sk: `W#${windowStart}`,
  }),
  /** A WebSocket connection's frame count in the rate window starting at `windowStart`. */
  connectionRate: (connectionId: string, windowStart: number) => ({
    pk: `RATE#CONN#${connectionId}`,
    sk: `W#${windowStart}`,
  }),
  /** A tenant's suspension by an operator: while it is there, the tenant's new messages are refused. */
  suspension: (tenant: string) => ({ pk: tenantPartition(tenant), sk: 'SUSPENDED' }),
  /** Where the orphan sweep of the file bucket stands (`sweepOrphanFiles`). */
  orphanPass: () => ({ pk: 'SWEEP#FILE_ORPHANS', sk: 'META' }),
  /**
   * What the runs accepted in one UTC hour cost, in a rolling-day ledger (an owner's or a tenant's
   * partition): `hour` is the hour's ISO prefix (`2026-12-08T01`). The ledger before hour buckets
   * kept an item a run, `SPEND#<accepted at>#<run id>`: those sort within their hour, after its
   * bucket, so one range of sort keys holds both (`lib/store/spend.ts`).
   */
  spendHour: (partition: string, hour: string) => ({ pk: partition, sk: `SPEND#${hour}` }),
};

/**
 * An owner's ids as they appear in a key: a digest of the tenant and the user. The ids themselves may
 * be 256 characters of any script (a user) or most of 8 KB (a tenant), which a DynamoDB partition key
 * (2,048 bytes) cannot hold; the digest is 32 characters whatever they are. No caller sees these
 * keys, so the digest needs no secret, and the operator tools find an owner's items by computing it.
 */
function ownerDigest(tenant: string | undefined, user: string): string {
  return digest(tenant ?? '', user);
}

/** The partition of a tenant's rolling-day spend ledger (and its suspension): its name's digest, as {@link ownerDigest}. */
export function tenantPartition(tenant: string): string {
  return `TENANT#${digest(tenant)}`;
}

/** The partition of everything an owner (a user within a tenant) has: in the table and in the owner index. */
export function ownerPartition(tenant: string | undefined, user: string): string {
  return `OWNER#${ownerDigest(tenant, user)}`;
}

/** The owner index (`gsi2`): a session or a file, listed under its owner in creation order. */
export function ownerIndexKeys(
  owner: { owner: string; tenant?: string },
  kind: 'SESSION' | 'FILE',
  createdAt: string,
  id: string,
): { gsi2pk: string; gsi2sk: string } {
  return { gsi2pk: ownerPartition(owner.tenant, owner.owner), gsi2sk: `${kind}#${createdAt}#${id}` };
}

/** The table's indexes, by what they are for (infra/storage.ts creates them, the sandbox too). */
export const INDEXES = { sweep: 'gsi1', owner: 'gsi2' } as const;

/**
 * What the owner index projects besides its keys: only what a listing shows, so that the frequent
 * updates of a session's item (its host context) cost no index write.
 */
export const OWNER_INDEX_ATTRIBUTES = [
  'sessionId',
  'agentId',
  'createdAt',
  'metadata',
  'owner',
  'tenant',
  'fileId',
  'name',
  'mediaType',
  'size',
  'status',
] as const;

/** Sort-key prefixes, for Queries within a session's partition. */
export const prefixes = {
  run: 'RUN#',
  message: 'MSG#',
  event: 'EVT#',
  subscriber: 'CONN#',
  action: 'ACT#',
  feedback: 'FEEDBACK#',
  rememberedTool: 'TOOL#',
} as const;

/** Zero-padded so that string order is numeric order. */
export function seqKey(seq: number): string {
  return seq.toString().padStart(12, '0');
}

/**
 * The partition of the sweep's due-item index for one kind, one UTC hour and one shard
 * (`DUE#<kind>#<hour>#<shard>`); without a shard, the hour's unsharded key, as items were written
 * before the buckets had shards (and as files still are: see `lib/store/due.ts`).
 */
export function dueBucket(kind: string, at: number, shard?: number): string {
  const hour = `DUE#${kind}#${new Date(at).toISOString().slice(0, 13)}`;
  return shard === undefined ? hour : `${hour}#${shard}`;
}

/**
 * The shard of an item in the due index: its id's FNV-1a hash modulo `shards`, so that one hour's
 * items spread evenly and the same id always lands in the same shard.
 */
export function dueShard(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** Epoch seconds, for the `ttl` attribute DynamoDB expires items by. */
export function ttlAt(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
