import { inflateRawSync } from 'node:zlib';

/** A zip's end-of-central-directory record, and its central directory entries. */
const END_SIGNATURE = 0x06054b50;
const ENTRY_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/**
 * One file of a zip archive (stored or deflated, as Lambda's code zips are), by its path; undefined
 * when the archive has no such file. Reads the central directory, so the archive is read as a whole.
 */
export function readZipEntry(zip: Uint8Array, name: string): Buffer | undefined {
  const buf = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end record is the last 22 bytes, followed by a comment of up to 64 KB.
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i -= 1) {
    if (buf.readUInt32LE(i) === END_SIGNATURE) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  for (let n = 0; n < count; n += 1) {
    if (buf.readUInt32LE(at) !== ENTRY_SIGNATURE) throw new Error('a damaged zip central directory');
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const entryName = buf.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name && entryName !== `./${name}`) continue;
    if (buf.readUInt32LE(local) !== LOCAL_SIGNATURE) throw new Error(`a damaged zip entry: ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    if (method === 0) return Buffer.from(data);
    if (method === 8) return inflateRawSync(data);
    throw new Error(`${name} is compressed with method ${method}, which this reader does not know`);
  }
  return undefined;
}
