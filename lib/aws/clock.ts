import type { IncomingHttpHeaders } from 'node:http';

/** How far the clock may be off before a refused call counts as refused for its date: 4 minutes. */
const SKEW_THRESHOLD_MS = 240_000;
/** An answer that took longer than this says nothing reliable about the service's clock. */
const STALE_MS = 900_000;

/**
 * The client's clock offset after an answer, as the SDK keeps it (`@aws-sdk/core`'s
 * `getUpdatedSystemClockOffset`, called on every answer by its SigV4 signer): the service's `Date`
 * minus the time the answer came, unless the answer passed through a cache (`Age`), has no readable
 * `Date`, or came more than 15 minutes after the request was signed.
 */
export function updatedClockOffset(
  headers: IncomingHttpHeaders,
  current: number,
  sentAt: number,
  receivedAt: number,
): number {
  if (headers.age !== undefined) return current;
  const serverTime = Date.parse(String(headers.date ?? ''));
  if (Number.isNaN(serverTime) || receivedAt - sentAt > STALE_MS) return current;
  return serverTime - receivedAt;
}

/**
 * Whether a refusal is to be sent again for the clock (the SDK's `clockSkewCorrected`): the answer
 * moved the offset, and the clock is more than 4 minutes from the service's.
 */
export const clockSkewCorrected = (before: number, after: number) =>
  Math.abs(after) >= SKEW_THRESHOLD_MS && after !== before;
