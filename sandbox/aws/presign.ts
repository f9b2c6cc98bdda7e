import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { crc32 } from 'node:zlib';
import { uriEncode } from '../../lib/aws/index.ts';
import type { AwsErrorKind } from './errors.ts';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** `20261202T053525Z` as a time. */
export function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

/** The signature SigV4 gives a presigned request, computed as S3 does when it checks one. */
function expectedSignature(
  method: string,
  rawPath: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  secret: string,
): string {
  const signed = (query.get('X-Amz-SignedHeaders') ?? 'host').split(';');
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signed
    .map(
      (name) =>
        `${name}:${String(headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const payload = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const request = [method, rawPath, canonicalQuery, canonicalHeaders, signed.join(';'), payload].join('\n');
  const [, date = '', region = '', service = ''] = (query.get('X-Amz-Credential') ?? '').split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    query.get('X-Amz-Date'),
    scope,
    createHash('sha256').update(request).digest('hex'),
  ].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return hmac(key, toSign).toString('hex');
}

/**
 * Checks a presigned request the way S3 does: the signature over the signed headers (so a body whose
 * length differs from a signed `content-length`, or a signed `content-type`, `if-none-match` or
 * `x-amz-checksum-sha256` sent otherwise or not at all, is refused), the expiry, an `x-amz-` header
 * the URL did not sign, and a checksum the URL carries against the body. Returns what S3 would
 * refuse it with, or undefined.
 */
export function checkPresigned(
  method: string,
  rawPath: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string,
  now = Date.now(),
): { kind: AwsErrorKind; message: string } | undefined {
  const expires = parseAmzDate(query.get('X-Amz-Date') ?? '') + Number(query.get('X-Amz-Expires')) * 1000;
  if (!(now <= expires)) return { kind: 'expired', message: 'Request has expired' };
  const given = Buffer.from(query.get('X-Amz-Signature') ?? '', 'hex');
  const wanted = Buffer.from(expectedSignature(method, rawPath, query, headers, secret), 'hex');
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    return {
      kind: 'signature',
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  }
  // A presigned request may carry no x-amz- header that its URL did not sign.
  const signed = new Set((query.get('X-Amz-SignedHeaders') ?? 'host').split(';'));
  const unsigned = Object.keys(headers).filter((name) => name.startsWith('x-amz-') && !signed.has(name));
  if (unsigned.length > 0) {
    return {
      kind: 'headersNotSigned',
      message: `There were headers present in the request which were not signed: ${unsigned.join(', ')}`,
    };
  }
  const checksum = query.get('x-amz-checksum-crc32');
  if (checksum !== null) {
    const actual = Buffer.alloc(4);
    actual.writeUInt32BE(crc32(body));
    if (actual.toString('base64') !== checksum) {
      return { kind: 'badDigest', message: 'The CRC32 you specified did not match the calculated checksum.' };
    }
  }
  return undefined;
}
