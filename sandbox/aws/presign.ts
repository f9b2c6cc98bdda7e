import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { crc32 } from 'node:zlib';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsErrorKind } from './errors.ts';
import { parseAmzDate, Sha256 } from './signature.ts';

/** The query parameters a presigned URL's signature adds: the signer writes them again. */
const AUTH_PARAMETERS = new Set([
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
]);
const PAYLOAD_HEADER = 'x-amz-content-sha256';

/**
 * The signature SigV4 gives a presigned request, computed by the AWS SDK's own signer
 * (`@smithy/signature-v4`'s `presign`, as S3's presigner calls it: the path as sent, not encoded
 * again) over the request's signed headers as received, its other query parameters, and the URL's
 * payload hash (`UNSIGNED-PAYLOAD` unless it names one), with the key, date, scope and lifetime the
 * URL names. Undefined when the URL's parameters cannot be signed (a lifetime past a week).
 */
async function expectedSignature(
  method: string,
  rawPath: string,
  query: URLSearchParams,
  received: IncomingHttpHeaders,
  secret: string,
): Promise<string | undefined> {
  const signed = (query.get('X-Amz-SignedHeaders') ?? 'host').split(';');
  const headers: Record<string, string> = Object.fromEntries(
    signed.map((name) => [name, String(received[name] ?? '')]),
  );
  // The signer reads the payload's hash from this header, and signs it only if the URL did.
  headers[PAYLOAD_HEADER] ??= query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const [accessKeyId = '', day = '', region = '', service = ''] = (query.get('X-Amz-Credential') ?? '').split(
    '/',
  );
  const sessionToken = query.get('X-Amz-Security-Token');
  const signer = new SignatureV4({
    service,
    region,
    credentials: { accessKeyId, secretAccessKey: secret, ...(sessionToken !== null && { sessionToken }) },
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const date = parseAmzDate(query.get('X-Amz-Date') ?? '');
  if (Number.isNaN(date) || !(query.get('X-Amz-Date') ?? '').startsWith(day)) return undefined;
  try {
    const presigned = await signer.presign(
      {
        method,
        protocol: 'http:',
        hostname: headers.host ?? '',
        path: rawPath,
        query: Object.fromEntries([...query.entries()].filter(([name]) => !AUTH_PARAMETERS.has(name))),
        headers,
      },
      {
        signingDate: new Date(date),
        expiresIn: Number(query.get('X-Amz-Expires')),
        signableHeaders: new Set(signed),
        unsignableHeaders: new Set(signed.includes(PAYLOAD_HEADER) ? [] : [PAYLOAD_HEADER]),
        unhoistableHeaders: new Set(Object.keys(headers)),
      },
    );
    return String(presigned.query?.['X-Amz-Signature'] ?? '');
  } catch {
    return undefined;
  }
}

/**
 * Checks a presigned request the way S3 does: the signature over the signed headers (so a body whose
 * length differs from a signed `content-length`, or a signed `content-type`, `if-none-match` or
 * `x-amz-checksum-sha256` sent otherwise or not at all, is refused), the expiry, an `x-amz-` header
 * the URL did not sign, and a checksum the URL carries against the body. Returns what S3 would
 * refuse it with, or undefined.
 */
export async function checkPresigned(
  method: string,
  rawPath: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string,
  now = Date.now(),
): Promise<{ kind: AwsErrorKind; message: string } | undefined> {
  const expires = parseAmzDate(query.get('X-Amz-Date') ?? '') + Number(query.get('X-Amz-Expires')) * 1000;
  if (!(now <= expires)) return { kind: 'expired', message: 'Request has expired' };
  const given = Buffer.from(query.get('X-Amz-Signature') ?? '', 'hex');
  const wanted = Buffer.from((await expectedSignature(method, rawPath, query, headers, secret)) ?? '', 'hex');
  if (wanted.length === 0 || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
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
