import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = 0;
let lastRandom = new Uint8Array(10);

function encode(bytes: Uint8Array, length: number): string {
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = ALPHABET[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}

/**
 * A ULID: 26 characters that sort in creation order, monotonic within one process, so item
 * keys built from it (`RUN#…`, `MSG#…`) come back from a Query in the order they were made.
 * The default reads the wall clock, not a runtime's: ids are made where no runtime is at hand, and
 * their order needs only a monotonic time in this process (a test's clock may stand still or go back).
 */
export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    const next = new Uint8Array(lastRandom);
    for (let i = next.length - 1; i >= 0; i -= 1) {
      next[i] = ((next[i] ?? 0) + 1) & 0xff;
      if (next[i] !== 0) break;
    }
    lastRandom = next;
  } else {
    lastTime = now;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  const time = new Uint8Array(6);
  let t = BigInt(lastTime);
  for (let i = 5; i >= 0; i -= 1) {
    time[i] = Number(t & 0xffn);
    t >>= 8n;
  }
  return encode(time, 10) + encode(lastRandom, 16);
}

/** A new identifier with a readable prefix: `newId('run')` → `run_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

/** A stable short digest, for keys derived from caller-chosen strings. */
export function digest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('base64url').slice(0, 32);
}
