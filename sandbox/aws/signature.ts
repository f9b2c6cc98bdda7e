import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsErrorKind } from './errors.ts';

/** `20261202T053525Z` as a time. */
export function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

/** A SHA-256 hash or HMAC for the SDK's signer, from Node's crypto. */
export class Sha256 {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** How far a request's date may be from the service's clock: AWS allows 15 minutes. */
const SKEW_MS = 15 * 60_000;

/**
 * Checks a request signed in its `Authorization` header (Signature V4) the way AWS does: it recomputes
 * the signature with the AWS SDK's own signer (`@smithy/signature-v4`) over the headers the request
 * says it signed, its path and its body, with the sandbox's secret, and refuses a request whose
 * signature differs, whose credential names another service or region, that signed no `host`, or whose date is more than 15 minutes from now. Returns
 * what the service would refuse it with, or undefined. Switchboard signs its own calls to the table
 * and to Secrets Manager (lib/aws), so their fronts check every call this way.
 */
export async function headerSignatureRefusal(
  req: IncomingMessage,
  body: Buffer,
  secret: string,
  scope: { service: string; region: string },
  now = Date.now(),
): Promise<{ kind: AwsErrorKind; message: string } | undefined> {
  const header = req.headers.authorization ?? '';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      header,
    );
  if (!m) return { kind: 'missingAuth', message: 'Request is missing Authentication Token' };
  const [, accessKeyId = '', day = '', region = '', service = '', signedList = '', signature = ''] = m;
  if (service !== scope.service || region !== scope.region) {
    return {
      kind: 'signature',
      message: `Credential should be scoped to a valid region and service: '${scope.region}', '${scope.service}', not '${region}', '${service}'.`,
    };
  }
  const signed = signedList.split(';');
  const time = parseAmzDate(String(req.headers['x-amz-date'] ?? ''));
  const date = Number.isNaN(time) ? undefined : new Date(time);
  if (!signed.includes('host') || !date || date.toISOString().replace(/-/g, '').slice(0, 8) !== day) {
    return {
      kind: 'signature',
      message: "'Host' or 'x-amz-date' must be a signed header, dated the credential's day.",
    };
  }
  if (Math.abs(now - date.getTime()) > SKEW_MS) {
    return {
      kind: 'signature',
      message: 'Signature expired: the request is dated more than 15 minutes from now.',
    };
  }
  const headers = Object.fromEntries(signed.map((name) => [name, String(req.headers[name] ?? '')]));
  const url = new URL(req.url ?? '/', 'http://front');
  const sessionToken = headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service,
    region,
    credentials: { accessKeyId, secretAccessKey: secret, ...(sessionToken && { sessionToken }) },
    sha256: Sha256,
    applyChecksum: false,
  });
  const expected = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: body.toString('utf8'),
    },
    { signingDate: date, signableHeaders: new Set(signed) },
  );
  const computed = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization ?? ''))?.[1] ?? '';
  const same =
    computed.length === signature.length && timingSafeEqual(Buffer.from(computed), Buffer.from(signature));
  if (same) return undefined;
  return {
    kind: 'signature',
    message:
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
  };
}
