/** Item keys of the single table. Every session's items share its partition. */
export const keys = {
  session: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'META' }),
  run: (sessionId: string, runId: string) => ({ pk: `SESSION#${sessionId}`, sk: `RUN#${runId}` }),
  message: (sessionId: string, messageId: string) => ({ pk: `SESSION#${sessionId}`, sk: `MSG#${messageId}` }),
  event: (sessionId: string, seq: number) => ({ pk: `SESSION#${sessionId}`, sk: `EVT#${seqKey(seq)}` }),
  action: (sessionId: string, actionId: string) => ({ pk: `SESSION#${sessionId}`, sk: `ACT#${actionId}` }),
  request: (sessionId: string, requestId: string) => ({ pk: `SESSION#${sessionId}`, sk: `REQ#${requestId}` }),
  subscriber: (sessionId: string, connectionId: string) => ({
    pk: `SESSION#${sessionId}`,
    sk: `CONN#${connectionId}`,
  }),
  connection: (connectionId: string) => ({ pk: `CONN#${connectionId}`, sk: 'META' }),
  /** What an owner (a user within a tenant) has uploaded, in all. */
  ownerFiles: (tenant: string | undefined, user: string) => ({
    pk: `OWNER#${encodeURIComponent(tenant ?? '')}#${encodeURIComponent(user)}`,
    sk: 'FILES',
  }),
  /** The files attached to a session's messages: their ids, count and bytes. */
  sessionFiles: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'FILES' }),
  /** An owner's request count in the rate window starting at `windowStart` (epoch seconds). */
  userRate: (tenant: string | undefined, user: string, windowStart: number) => ({
    pk: `RATE#OWNER#${encodeURIComponent(tenant ?? '')}#${encodeURIComponent(user)}`,
    sk: `W#${windowStart}`,
  }),
  /** A WebSocket connection's frame count in the rate window starting at `windowStart`. */
  connectionRate: (connectionId: string, windowStart: number) => ({
    pk: `RATE#CONN#${connectionId}`,
    sk: `W#${windowStart}`,
  }),
};

/** Sort-key prefixes, for Queries within a session's partition. */
export const prefixes = {
  run: 'RUN#',
  message: 'MSG#',
  event: 'EVT#',
  subscriber: 'CONN#',
  action: 'ACT#',
} as const;

/** Zero-padded so that string order is numeric order. */
export function seqKey(seq: number): string {
  return seq.toString().padStart(12, '0');
}

/** The partition of the sweep's due-item index for one kind and one UTC hour. */
export function dueBucket(kind: string, at: number): string {
  return `DUE#${kind}#${new Date(at).toISOString().slice(0, 13)}`;
}

/** Epoch seconds, for the `ttl` attribute DynamoDB expires items by. */
export function ttlAt(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
