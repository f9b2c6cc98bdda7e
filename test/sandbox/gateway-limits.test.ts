import { connect, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../../sandbox/gateway/index.ts';
import { gate } from '../support/agents.ts';
import { within } from '../support/wait.ts';
import { openSocket, Recorder, send } from './helpers.ts';

const MB = 1024 * 1024;
/** API Gateway's WebSocket error frame, with its own spacing. */
const errorFrame = (message: string) =>
  new RegExp(`^\\{"message": "${message}", "connectionId":"[^"]+", "requestId":"[^"]+"\\}$`);

describe("gateway: Lambda's 6 MB payload limit", () => {
  let gateway: Gateway;
  let uploads = 0;

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      http: {
        routes: ['POST /upload', 'GET /result/{bytes}'],
        handler: async (event) => {
          if (event.routeKey === 'POST /upload') {
            uploads += 1;
            return { statusCode: 200, body: String(event.body?.length ?? 0) };
          }
          return { statusCode: 200, body: 'x'.repeat(Number(event.pathParameters?.bytes)) };
        },
      },
      websocket: {
        routes: ['big'],
        handler: async (event) =>
          event.requestContext.routeKey === 'big' ? { statusCode: 200, body: 'x'.repeat(7 * MB) } : undefined,
      },
    });
  });
  afterAll(() => gateway.close());

  const upload = (bytes: number) =>
    fetch(`${gateway.url}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(bytes, 7),
    });

  it('hands the function a binary body whose base64 event fits 6 MB', async () => {
    const res = await upload(4 * MB);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(String(Buffer.alloc(4 * MB).toString('base64').length));
  });

  it('fails the invocation (500) for a body under 10 MB whose base64 event passes 6 MB, never calling the function', async () => {
    const before = uploads;
    const res = await upload(5 * MB);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
    expect(uploads).toBe(before);
  });

  it('delivers a result under 6 MB and answers 500 for one over it', async () => {
    const fits = await fetch(`${gateway.url}/result/${6_000_000}`);
    expect(fits.status).toBe(200);
    expect((await fits.arrayBuffer()).byteLength).toBe(6_000_000);
    const over = await fetch(`${gateway.url}/result/${6_300_000}`);
    expect(over.status).toBe(500);
    expect(await over.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('answers a WebSocket route whose result passes 6 MB with an Internal server error frame', async () => {
    const client = await openSocket(gateway.wsUrl);
    await send(client.socket, JSON.stringify({ action: 'big' }));
    expect(await within(client.next(), 'the error frame', 5000)).toMatch(errorFrame('Internal server error'));
    client.socket.close();
  });
});

describe('gateway: integration timeouts', () => {
  let gateway: Gateway;
  // The slow routes wait for the tests to end rather than for a fixed time: they are late however
  // slowly the machine runs, and a timeout wide enough for the quick route under load still fires.
  const ended = gate();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      // Short limits stand in for HTTP API's 30 s and WebSocket API's 29 s.
      http: {
        routes: ['GET /slow'],
        timeoutMs: 250,
        handler: async () => {
          await ended.opened;
          return { statusCode: 200, body: 'late' };
        },
      },
      websocket: {
        routes: ['slow', 'quick'],
        timeoutMs: 250,
        handler: async (event) => {
          if (event.requestContext.routeKey === 'slow') await ended.opened;
          return event.requestContext.routeKey === '$connect' ? undefined : { statusCode: 200, body: 'done' };
        },
      },
    });
  });
  afterAll(() => {
    ended.open();
    return gateway.close();
  });

  it('answers an HTTP request 503 Service Unavailable when the function passes the timeout', async () => {
    const res = await fetch(`${gateway.url}/slow`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ message: 'Service Unavailable' });
  });

  it('answers a WebSocket route past the timeout with Endpoint request timed out, and keeps the connection', async () => {
    const client = await openSocket(gateway.wsUrl);
    await send(client.socket, JSON.stringify({ action: 'slow' }));
    expect(await within(client.next(), 'the timeout frame', 5000)).toMatch(
      errorFrame('Endpoint request timed out'),
    );
    await send(client.socket, JSON.stringify({ action: 'quick' }));
    expect(await within(client.next(), 'the next route response', 5000)).toBe('done');
    client.socket.close();
  });
});

describe('gateway: clients that send slowly or stop', () => {
  let gateway: Gateway;
  const frames: string[] = [];

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      // Short limits stand in for API Gateway's: it cuts off a slow request, and an idle socket after 10 minutes.
      readTimeoutMs: 300,
      http: { routes: ['POST /echo'], handler: async () => ({ statusCode: 200, body: 'ok' }) },
      websocket: {
        routes: [],
        idleTimeoutMs: 300,
        handler: async (event) => {
          if (event.requestContext.routeKey === '$default') frames.push(String(Reflect.get(event, 'body')));
          return undefined;
        },
      },
    });
  });
  afterAll(() => gateway.close());

  /**
   * Sends `head` at once, then `request` one byte every 10 ms, never pausing long, and returns what
   * came back before the gateway closed the connection (writing stops then).
   */
  function dribble(request: string, head = ''): Promise<string> {
    const socket = connect(gateway.port, '127.0.0.1');
    if (head) socket.write(head);
    let answer = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < request.length && !socket.destroyed) socket.write(request[sent++] ?? '');
    }, 10);
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', () => {});
    return within(
      new Promise<string>((resolve) =>
        socket.on('close', () => {
          clearInterval(timer);
          resolve(answer);
        }),
      ),
      'the gateway to cut off a dribbling client',
      5000,
    );
  }

  it('answers 408 to headers dribbled a byte at a time, however steadily they come', async () => {
    const headers = `POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'p'.repeat(200)}\r\nContent-Length: 2\r\n\r\nok`;
    expect(await dribble(headers)).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers 408 to a body dribbled a byte at a time, however steadily it comes', async () => {
    const body = 'b'.repeat(200);
    const request = `POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n`;
    // The headers arrive at once; only the body dribbles.
    expect(await dribble(body, request)).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a WebSocket whose client stopped in the middle of a frame once it has been idle, routing nothing', async () => {
    const client = await openSocket(gateway.wsUrl);
    const raw: unknown = Reflect.get(client.socket, '_socket');
    if (!(raw instanceof Socket)) throw new Error('ws no longer keeps its socket as _socket');
    // A masked text frame announcing 10 bytes of payload, of which only 3 arrive.
    raw.write(Buffer.from([0x81, 0x80 | 10, 1, 2, 3, 4, 0x61 ^ 1, 0x62 ^ 2, 0x63 ^ 3]));
    expect((await within(client.closed, 'the idle timeout to close the socket', 5000)).code).toBe(1001);
    expect(frames).toEqual([]);
  });
});

describe('gateway: a function whose pool is full is throttled before it runs', () => {
  let gateway: Gateway;
  /** What the functions were called for: HTTP paths and WebSocket route keys, as they started. */
  const calls = new Recorder<string>();
  let hold = gate();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      http: {
        routes: ['GET /hold', 'GET /quick'],
        concurrency: 2,
        timeoutMs: 50,
        handler: async (event) => {
          calls.push(`http ${event.rawPath}`);
          if (event.rawPath === '/hold') await hold.opened;
          return { statusCode: 200, body: 'done' };
        },
      },
      websocket: {
        routes: ['hold', 'quick'],
        concurrency: 2,
        handler: async (event) => {
          const route = event.requestContext.routeKey;
          calls.push(`ws ${route}`);
          if (route === 'hold') await hold.opened;
          return route.startsWith('$') ? undefined : { statusCode: 200, body: 'done' };
        },
      },
    });
  });
  afterAll(() => gateway.close());

  const count = (call: string) => calls.items.filter((c) => c === call).length;
  const nth = (call: string, n: number) => {
    const seen = count(call);
    return calls.waitFor(() => count(call) >= seen + n, `${n} more ${call}`);
  };

  it('answers HTTP 429 Too Many Requests past the pool, never calling the function, and serves again once a slot is free', async () => {
    hold = gate();
    const started = nth('http /hold', 2);
    const held = [fetch(`${gateway.url}/hold`), fetch(`${gateway.url}/hold`)];
    await started;
    const quickBefore = count('http /quick');
    const refused = await fetch(`${gateway.url}/quick`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: 'Too Many Requests' });
    expect(count('http /quick')).toBe(quickBefore);
    // The held invocations passed their integration timeout, but still run: their slots stay taken.
    for (const res of await Promise.all(held)) expect(res.status).toBe(503);
    expect((await fetch(`${gateway.url}/quick`)).status).toBe(429);
    hold.open();
    await expect.poll(async () => (await fetch(`${gateway.url}/quick`)).status, { timeout: 5_000 }).toBe(200);
  });

  it('answers a WebSocket frame past the pool with Too Many Requests and refuses a $connect with 429; $disconnect still runs', async () => {
    hold = gate();
    const client = await openSocket(gateway.wsUrl);
    const started = nth('ws hold', 2);
    await send(client.socket, JSON.stringify({ action: 'hold' }));
    await send(client.socket, JSON.stringify({ action: 'hold' }));
    await started;
    const quickBefore = count('ws quick');
    await send(client.socket, JSON.stringify({ action: 'quick' }));
    expect(await within(client.next(), 'the throttling frame', 5000)).toMatch(
      errorFrame('Too Many Requests'),
    );
    expect(count('ws quick')).toBe(quickBefore);
    await expect(openSocket(gateway.wsUrl)).rejects.toMatchObject({ statusCode: 429 });
    // The connection stays; a connection that leaves is cleaned up whatever the pool holds.
    const other = nth('ws $disconnect', 1);
    client.socket.close();
    await other;
    hold.open();
    const again = await openSocket(gateway.wsUrl);
    await send(again.socket, JSON.stringify({ action: 'quick' }));
    expect(await within(again.next(), 'the route response', 5000)).toBe('done');
    again.socket.close();
  });
});
