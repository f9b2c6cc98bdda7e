import { Agent, type IncomingMessage, request } from 'node:http';
import { readBody } from '../gateway/read-body.ts';
import type { AwsAnswer } from './errors.ts';

/** An emulator's answer, as it came. */
export interface Forwarded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sends a request on to the emulator behind a front. */
export type Forward = (req: IncomingMessage, body: Buffer) => Promise<Forwarded>;

/** A whole request or response body. */
export async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const read = await readBody(stream, Number.POSITIVE_INFINITY);
  return read.ok ? read.body : Buffer.alloc(0);
}

/** A {@link Forward} to `target` over one keep-alive agent; `close` ends its connections. */
export function forwarder(target: URL): { forward: Forward; close(): void } {
  const agent = new Agent({ keepAlive: true });
  const forward: Forward = (req, body) =>
    new Promise((resolve, reject) => {
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        async (answer) =>
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: await readAll(answer) }),
      );
      out.on('error', reject);
      out.end(body);
    });
  return { forward, close: () => agent.destroy() };
}

/**
 * A throttled batch write as DynamoDB answers it: 200, the first half of the items written and the
 * rest handed back as `UnprocessedItems` (with any the table itself handed back). An answer other
 * than 200 to the written half is passed on as it came.
 */
export async function partialBatch(
  req: IncomingMessage,
  body: Buffer,
  forward: Forward,
): Promise<AwsAnswer | Forwarded> {
  const input = JSON.parse(body.toString('utf8')) as { RequestItems: Record<string, unknown[]> };
  const [table, requests] = Object.entries(input.RequestItems)[0] ?? ['', []];
  const cut = Math.ceil(requests.length / 2);
  const applied = Buffer.from(
    JSON.stringify({ ...input, RequestItems: { [table]: requests.slice(0, cut) } }),
  );
  req.headers['content-length'] = String(applied.length);
  const answer = await forward(req, applied);
  if (answer.status !== 200) return answer;
  const left =
    (JSON.parse(answer.body.toString('utf8')) as { UnprocessedItems?: Record<string, unknown[]> })
      .UnprocessedItems?.[table] ?? [];
  const rest = [...left, ...requests.slice(cut)];
  return {
    status: 200,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ UnprocessedItems: rest.length > 0 ? { [table]: rest } : {} }),
  };
}
