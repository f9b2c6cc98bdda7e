import type { IncomingMessage } from 'node:http';

/** A request body, or the fact that it went over the limit. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false };

/**
 * Reads a request body up to `limit` bytes. Past the limit the rest is drained, not kept:
 * answering before the client finished sending makes many clients report a reset instead of the 413.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= limit ? { ok: true, body: Buffer.concat(chunks) } : { ok: false }));
    req.on('error', reject);
  });
}
