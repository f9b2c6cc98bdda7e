import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { crc32 } from 'node:zlib';
import type { AwsErrorKind } from './errors.ts';

/** A reflected CRC's table, one entry per byte value. */
function crcTable(poly: bigint, bits: 32 | 64): bigint[] {
  const mask = (1n << BigInt(bits)) - 1n;
  return Array.from({ length: 256 }, (_, n) => {
    let c = BigInt(n);
    for (let k = 0; k < 8; k += 1) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    return c & mask;
  });
}

let tables: { crc32c: Uint32Array; crc64: bigint[] } | undefined;
/** Built on first use: nothing but a checksum the SDK rarely sends needs them. */
const crcTables = () => {
  tables ??= {
    crc32c: Uint32Array.from(crcTable(0x82f63b78n, 32), Number),
    crc64: crcTable(0x9a6c9329ac4bc9b5n, 64),
  };
  return tables;
};

function crc32c(body: Buffer): Buffer {
  const table = crcTables().crc32c;
  let c = 0xffffffff;
  for (const byte of body) c = (table[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out;
}

function crc64nvme(body: Buffer): Buffer {
  const table = crcTables().crc64;
  const mask = (1n << 64n) - 1n;
  let c = mask;
  for (const byte of body) c = (table[Number((c ^ BigInt(byte)) & 0xffn)] as bigint) ^ (c >> 8n);
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(c ^ mask);
  return out;
}

function crc32Of(body: Buffer): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(body));
  return out;
}

/** The checksums S3 takes as `x-amz-checksum-<name>`, each with the name its error messages use. */
const ALGORITHMS: Record<string, { label: string; digest: (body: Buffer) => Buffer }> = {
  crc32: { label: 'CRC32', digest: crc32Of },
  crc32c: { label: 'CRC32C', digest: crc32c },
  crc64nvme: { label: 'CRC64NVME', digest: crc64nvme },
  sha1: { label: 'SHA1', digest: (body) => createHash('sha1').update(body).digest() },
  sha256: { label: 'SHA256', digest: (body) => createHash('sha256').update(body).digest() },
};

const PREFIX = 'x-amz-checksum-';

/** Base64 that decodes to exactly `bytes` bytes, written the one canonical way. */
const isBase64Of = (value: string, bytes: number) =>
  Buffer.from(value, 'base64').length === bytes && Buffer.from(value, 'base64').toString('base64') === value;

/**
 * What S3 refuses a body with, given the checksums its headers declare: `Content-MD5` and one
 * `x-amz-checksum-*` (crc32, crc32c, crc64nvme, sha1, sha256), each checked against the bytes that
 * came (400 `BadDigest`); a malformed value or two algorithms at once are 400 `InvalidRequest`. A checksum sent in an aws-chunked trailer is not in the headers and not checked.
 */
export function checksumRefusal(
  headers: IncomingHttpHeaders,
  body: Buffer,
): { kind: AwsErrorKind; message: string } | undefined {
  if (String(headers['content-encoding'] ?? '').includes('aws-chunked')) return undefined;
  const md5 = headers['content-md5'];
  if (typeof md5 === 'string') {
    if (!isBase64Of(md5, 16))
      return { kind: 'invalidDigest', message: 'The Content-MD5 you specified was invalid.' };
    if (createHash('md5').update(body).digest('base64') !== md5)
      return { kind: 'badDigest', message: 'The Content-MD5 you specified did not match what we received.' };
  }
  // Only the algorithms' own headers: `x-amz-checksum-mode`, `-type` and `-algorithm` say other things.
  const named = Object.keys(headers).filter(
    (name) => name.startsWith(PREFIX) && Object.hasOwn(ALGORITHMS, name.slice(PREFIX.length)),
  );
  if (named.length === 0) return undefined;
  if (named.length > 1)
    return {
      kind: 'invalidRequest',
      message: 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    };
  const header = named[0] as string;
  const algorithm = ALGORITHMS[header.slice(PREFIX.length)] as (typeof ALGORITHMS)[string];
  const value = String(headers[header]);
  const actual = algorithm.digest(body);
  if (!isBase64Of(value, actual.length))
    return { kind: 'invalidRequest', message: `Value for ${header} header is invalid.` };
  if (actual.toString('base64') !== value)
    return {
      kind: 'badDigest',
      message: `The ${algorithm.label} you specified did not match the calculated checksum.`,
    };
  return undefined;
}
