/** EventBridge's limits on one PutEvents call: ten entries, 256 KB in all. */
export const PUT_EVENTS_LIMITS = { entries: 10, bytes: 256 * 1024 } as const;

/** What of an entry EventBridge counts toward the call's size. */
export interface SizedEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  Resources?: unknown;
  Time?: unknown;
}

/** An entry's size as EventBridge counts it: its strings' UTF-8 bytes, 14 for a time. */
export function entrySize(entry: SizedEntry): number {
  const bytes = (v: unknown) => (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  const resources = Array.isArray(entry.Resources) ? entry.Resources : [];
  return (
    (entry.Time !== undefined ? 14 : 0) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    resources.reduce((sum: number, r) => sum + bytes(r), 0)
  );
}

/** Entries in calls within both limits, in order (an entry over 256 KB alone goes in a call of its own). */
export function putEventsCalls<E extends SizedEntry>(entries: readonly E[]): E[][] {
  const calls: E[][] = [];
  let call: E[] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes = entrySize(entry);
    if (
      call.length > 0 &&
      (call.length === PUT_EVENTS_LIMITS.entries || size + bytes > PUT_EVENTS_LIMITS.bytes)
    ) {
      calls.push(call);
      call = [];
      size = 0;
    }
    call.push(entry);
    size += bytes;
  }
  if (call.length > 0) calls.push(call);
  return calls;
}
