import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An id in the shape API Gateway uses for connection and request ids ('L0SM9cOFvHcCIhw=').
 * Real ids are base64; leaving out '+' and '/' keeps them safe in a management URL path.
 */
export function awsId(): string {
  const bytes = randomBytes(15);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `${id}=`;
}

/** An X-Ray style trace header value. */
export function traceId(now: number): string {
  const hex = randomUUID().replaceAll('-', '').slice(0, 24);
  return `Root=1-${Math.floor(now / 1000).toString(16)}-${hex}`;
}

/** `21/Apr/2020:15:08:21 +0000`, the CLF time API Gateway puts in requestContext. */
export function clfTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}`;
  return `${date}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** The client's address without the IPv4-mapped prefix. */
export function sourceIp(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

/** Header pairs in arrival order, names as the client spelled them. */
export function headerPairs(req: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    pairs.push([req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '']);
  }
  return pairs;
}

/** Splits a request target into its raw path and raw query string. */
export function splitTarget(target: string | undefined): { rawPath: string; rawQueryString: string } {
  const url = target ?? '/';
  const q = url.indexOf('?');
  return q < 0
    ? { rawPath: url, rawQueryString: '' }
    : { rawPath: url.slice(0, q), rawQueryString: url.slice(q + 1) };
}

/** Query parameters grouped by name, values decoded. */
export function queryValues(rawQueryString: string): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  return values;
}

/** The host the client asked for; API Gateway reports it as `domainName`. */
export function hostOf(req: IncomingMessage): string {
  return req.headers.host ?? 'localhost';
}
