import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../../sandbox/gateway/index.ts';

let gateway: Gateway;
const seen: Array<{ rawPath: string; routeKey: string; remaining: number; later?: number }> = [];

beforeAll(async () => {
  gateway = await startGateway({
    port: 0,
    functionUrls: [
      {
        prefix: '/big',
        maxResponseBytes: 1_000,
        handler: async (_event, sink) => {
          sink.start(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 20 && !sink.closed; i += 1) sink.write('x'.repeat(100));
          sink.end();
        },
      },
      {
        prefix: '/slow',
        timeoutMs: 200,
        handler: async (event, sink, context) => {
          const entry: (typeof seen)[number] = {
            rawPath: event.rawPath,
            routeKey: event.routeKey,
            remaining: context.getRemainingTimeInMillis(),
          };
          seen.push(entry);
          sink.start(200, { 'content-type': 'text/event-stream' });
          sink.write('data: first\n\n');
          // Waits on the sink, with a bound, as a handler that streams until its run ends.
          for (let i = 0; i < 100 && !sink.closed; i += 1) {
            await new Promise((r) => setTimeout(r, 20));
            // The time left after the first wait: it counts down from the timeout.
            if (i === 0) entry.later = context.getRemainingTimeInMillis();
          }
          if (!sink.closed) sink.write('data: never\n\n');
        },
      },
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
});

describe('a response-streaming function URL in the sandbox', () => {
  it('breaks off a stream past the streamed-response limit, as Lambda does', async () => {
    const res = await fetch(`${gateway.url}/big`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('cuts the stream at the function timeout, and hands the handler its path without the prefix', async () => {
    const res = await fetch(`${gateway.url}/slow/agent-1`, { method: 'POST', body: '{}' });
    const text = await res.text().catch(() => 'broken off');
    expect(text).not.toContain('never');
    expect(seen.at(-1)).toMatchObject({ rawPath: '/agent-1', routeKey: '$default' });
    // At most the timeout, and counting down from it: 20 ms later less is left.
    const { remaining = Number.NaN, later = Number.NaN } = seen.at(-1) ?? {};
    expect(remaining).toBeLessThanOrEqual(200);
    expect(later).toBeLessThan(remaining);
  });

  it("refuses a request of Lambda's 6 MB or more before the handler runs", async () => {
    const before = seen.length;
    const res = await fetch(`${gateway.url}/slow`, { method: 'POST', body: 'x'.repeat(6_291_456) });
    expect(res.status).toBe(413);
    expect(seen.length).toBe(before);
  });
});
