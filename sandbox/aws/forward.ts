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

/** How long a closing front waits for the requests it has passed on to be answered. */
const DRAIN_MS = 5_000;

/**
 * A {@link Forward} to `target` over one keep-alive agent. `close` waits (at most
 * {@link DRAIN_MS}) for the requests already passed on to be answered, then ends its connections:
 * an emulator stopped under a request it is still serving fails outside any caller (dynalite throws
 * on a closed database).
 */
export function forwarder(target: URL): {
  forward: Forward;
  /** The status the emulator answers a HEAD of `path` with (it checks no signature). */
  head(path: string): Promise<number>;
  close(): Promise<void>;
} {
  const agent = new Agent({ keepAlive: true });
  const inFlight = new Set<Promise<Forwarded>>();
  const forward: Forward = (req, body) => {
    const sent = new Promise<Forwarded>((resolve, reject) => {
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
    inFlight.add(sent);
    const settled = () => inFlight.delete(sent);
    sent.then(settled, settled);
    return sent;
  };
  const head = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const out = request(
        { host: target.hostname, port: target.port, method: 'HEAD', path, agent },
        (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 502));
        },
      );
      out.on('error', reject);
      out.end();
    });
  const close = async () => {
    // Requests passed on while it waits (a handler's next call) are waited for too.
    const deadline = Date.now() + DRAIN_MS;
    while (inFlight.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadline - Date.now());
      });
      await Promise.race([Promise.allSettled([...inFlight]), cap]);
      clearTimeout(timer);
    }
    agent.destroy();
  };
  return { forward, head, close };
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
