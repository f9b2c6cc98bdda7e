import { createHash, createHmac } from 'node:crypto';

/** An AWS key, temporary (with its session token) or not. */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A request to sign: lower-case header names; the body as sent (text, or bytes: an OTLP protobuf). */
export interface SignableRequest {
  method: string;
  /** The URL's path, as sent (`/` for DynamoDB). */
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

const sha256Hex = (data: string | Uint8Array) =>
  (typeof data === 'string'
    ? createHash('sha256').update(data, 'utf8')
    : createHash('sha256').update(data)
  ).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding, as Signature V4 asks of paths and query strings (`encodeURIComponent` leaves `!'()*`). */
export const uriEncode = (segment: string) =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The canonical path of every service but S3: the path as sent, its empty and `.` segments dropped
 * and `..` applied, encoded once more (each `%` of the path as sent becomes `%25`), slashes kept.
 */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalised = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${
    segments.length > 0 && path.endsWith('/') ? '/' : ''
  }`;
  return uriEncode(normalised).replace(/%2F/g, '/');
}

/**
 * Signs a request with AWS Signature Version 4 (header form), for one service and region: the
 * `authorization` and `x-amz-date` headers (and `x-amz-security-token` for a temporary key) to add.
 * Every header given is signed. The path is normalised and encoded once more, as for every service but
 * S3.
 *
 * The AWS SDK's signer (`@smithy/signature-v4`) does the same; it is not used here because it
 * imports `@smithy/core` (76 KB of every function's start-up code). The sandbox checks each table
 * call's signature with the SDK's signer (sandbox/aws/signature.ts), and a unit test compares the two.
 */
export class SigV4Signer {
  #key: { accessKeyId: string; secret: string; day: string; key: Buffer } | undefined;

  constructor(
    readonly service: string,
    readonly region: string,
  ) {}

  sign(
    request: SignableRequest,
    credentials: AwsCredentialIdentity,
    now = new Date(),
  ): Record<string, string> {
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const added: Record<string, string> = {
      'x-amz-date': amzDate,
      ...(credentials.sessionToken && { 'x-amz-security-token': credentials.sessionToken }),
    };
    const headers = Object.entries({ ...request.headers, ...added })
      .map(([name, value]) => [name.toLowerCase(), String(value).trim().replace(/\s+/g, ' ')] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const signedHeaders = headers.map(([name]) => name).join(';');
    const path = canonicalPath(request.path);
    const canonical = [
      request.method,
      path,
      '',
      ...headers.map(([name, value]) => `${name}:${value}`),
      '',
      signedHeaders,
      sha256Hex(request.body),
    ].join('\n');
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
    const signature = createHmac('sha256', this.#signingKey(credentials, day))
      .update(toSign, 'utf8')
      .digest('hex');
    return {
      ...added,
      authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    };
  }

  /** The day's signing key, kept until the day or the key changes. */
  #signingKey(credentials: AwsCredentialIdentity, day: string): Buffer {
    const { accessKeyId, secretAccessKey: secret } = credentials;
    const kept = this.#key;
    if (kept && kept.accessKeyId === accessKeyId && kept.secret === secret && kept.day === day)
      return kept.key;
    const dated = hmac(`AWS4${secret}`, day);
    const key = hmac(hmac(hmac(dated, this.region), this.service), 'aws4_request');
    this.#key = { accessKeyId, secret, day, key };
    return key;
  }
}
