import { connect } from 'node:net';
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { type Gateway, startGateway, type WebSocketEvent } from '../../sandbox/gateway/index.ts';
import { within } from '../support/wait.ts';
import { openSocket, Recorder, send, UpgradeRefused } from './helpers.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('gateway HTTP API', () => {
  let gateway: Gateway;
  const seen = new Recorder<APIGatewayProxyEventV2>();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      static: (req, res) => {
        if (req.url !== '/') return false;
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>demo</h1>');
        return true;
      },
      http: {
        routes: [
          'POST /api/chat',
          'GET /api/sessions/{id}',
          'GET /api/sessions/{id}/events',
          'GET /api/sessions/latest',
          'ANY /api/files/{path+}',
          'GET /api/boom',
        ],
        handler: async (event) => {
          seen.push(event);
          switch (event.routeKey) {
            case 'POST /api/chat':
              return {
                statusCode: 201,
                headers: { 'X-Turn': 'queued' },
                cookies: ['turn=1; Path=/'],
                body: JSON.stringify({ got: JSON.parse(event.body ?? 'null') }),
              };
            case 'GET /api/sessions/{id}':
              return { id: event.pathParameters?.id };
            case 'GET /api/sessions/{id}/events':
              return `events of ${event.pathParameters?.id}`;
            case 'ANY /api/files/{path+}':
              return { statusCode: 200, body: event.body ?? '', isBase64Encoded: event.isBase64Encoded };
            case 'GET /api/boom':
              throw new Error('boom');
            default:
              return { routeKey: event.routeKey };
          }
        },
      },
    });
  });
  afterAll(() => gateway.close());

  it('matches method and path templates, preferring literal segments, and fills pathParameters', async () => {
    const one = await fetch(`${gateway.url}/api/sessions/s%201`);
    expect(await one.json()).toEqual({ id: 's 1' });
    const latest = await fetch(`${gateway.url}/api/sessions/latest`);
    expect(await latest.json()).toEqual({ routeKey: 'GET /api/sessions/latest' });
    const events = await fetch(`${gateway.url}/api/sessions/abc/events?after=3`);
    expect(await events.text()).toBe('events of abc');
    const event = await seen.waitFor((e) => e.rawPath === '/api/sessions/abc/events');
    expect(event.routeKey).toBe('GET /api/sessions/{id}/events');
    expect(event.requestContext.routeKey).toBe('GET /api/sessions/{id}/events');
    expect(event.pathParameters).toEqual({ id: 'abc' });
    expect(event.queryStringParameters).toEqual({ after: '3' });
  });

  it('serves GET requests the static hook answers, before any route', async () => {
    const res = await fetch(`${gateway.url}/`);
    expect(await res.text()).toBe('<h1>demo</h1>');
  });

  it('gives a greedy variable the rest of the path', async () => {
    await fetch(`${gateway.url}/api/files/a/b/c.txt`, {
      method: 'PUT',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    const event = await seen.waitFor((e) => e.rawPath === '/api/files/a/b/c.txt');
    expect(event.pathParameters).toEqual({ path: 'a/b/c.txt' });
    expect(event.requestContext.http.method).toBe('PUT');
  });

  it('maps a structured result to status, headers, cookies and body', async () => {
    const res = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'a=1; b=2' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-turn')).toBe('queued');
    expect(res.headers.getSetCookie()).toEqual(['turn=1; Path=/']);
    expect(await res.json()).toEqual({ got: { text: 'hi' } });
    const event = await seen.waitFor((e) => e.rawPath === '/api/chat');
    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('answers an object without statusCode as 200 JSON', async () => {
    const res = await fetch(`${gateway.url}/api/sessions/x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it('base64-encodes a body whose content type is not text', async () => {
    const bytes = Buffer.from([0, 255, 1, 254]);
    const res = await fetch(`${gateway.url}/api/files/blob`, {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    const event = await seen.waitFor((e) => e.rawPath === '/api/files/blob');
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).toBe(bytes.toString('base64'));
  });

  it('answers 404 Not Found for a path or method no route matches', async () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['DELETE', '/api/chat'],
    ] as const) {
      const res = await fetch(`${gateway.url}${path}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'Not Found' });
    }
  });

  it('answers 413 for a body over 10 MB without calling the handler', async () => {
    const before = seen.items.length;
    const res = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      body: Buffer.alloc(10 * 1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(seen.items.length).toBe(before);
  });

  it('answers 500 Internal Server Error when the handler throws', async () => {
    const res = await fetch(`${gateway.url}/api/boom`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
  });
});

describe('gateway HTTP API with a Lambda authoriser', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      http: {
        routes: ['$default'],
        authorizer: async (event) => (event.headers?.authorization === 'Bearer ok' ? { userId: 'u1' } : null),
        handler: async (event) => ({
          authorizer: Reflect.get(event.requestContext, 'authorizer'),
          key: event.routeKey,
        }),
      },
    });
  });
  afterAll(() => gateway.close());

  it("puts the authoriser's context in requestContext.authorizer.lambda", async () => {
    const res = await fetch(`${gateway.url}/anything`, { headers: { authorization: 'Bearer ok' } });
    expect(await res.json()).toEqual({ authorizer: { lambda: { userId: 'u1' } }, key: '$default' });
  });

  it('answers 403 Forbidden when the authoriser refuses', async () => {
    const res = await fetch(`${gateway.url}/anything`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'Forbidden' });
  });
});

describe('gateway HTTP API with an identity source', () => {
  let gateway: Gateway;
  const asked = new Recorder<string | undefined>();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      http: {
        routes: ['$default'],
        identityHeaders: ['authorization'],
        authorizer: async (event) => {
          asked.push(event.headers?.authorization);
          return event.headers?.authorization === 'Bearer ok' ? { userId: 'u1' } : null;
        },
        handler: async () => ({ ok: true }),
      },
    });
  });
  afterAll(() => gateway.close());

  it('answers 401 Unauthorized without calling the authoriser when the header is missing or empty', async () => {
    const before = asked.items.length;
    for (const headers of [{}, { authorization: '' }, { authorization: '   ' }] as Record<string, string>[]) {
      const res = await fetch(`${gateway.url}/anything`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'Unauthorized' });
    }
    expect(asked.items.slice(before)).toEqual([]);
  });

  it('asks the authoriser when the header is there', async () => {
    const before = asked.items.length;
    expect((await fetch(`${gateway.url}/anything`, { headers: { authorization: 'Bearer ok' } })).status).toBe(
      200,
    );
    expect((await fetch(`${gateway.url}/anything`, { headers: { authorization: 'nope' } })).status).toBe(403);
    expect(asked.items.slice(before)).toEqual(['Bearer ok', 'nope']);
  });
});

describe('gateway WebSocket API', () => {
  let gateway: Gateway;
  let management: ApiGatewayManagementApiClient;
  const events = new Recorder<WebSocketEvent>();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      websocket: {
        routes: ['echo', 'whoami'],
        handler: async (event) => {
          events.push(event);
          const { routeKey, connectionId } = event.requestContext;
          if (
            routeKey === '$connect' &&
            'queryStringParameters' in event &&
            event.queryStringParameters?.refuse
          ) {
            return { statusCode: 403 };
          }
          if (routeKey === 'echo' && 'body' in event) return { statusCode: 200, body: `echo ${event.body}` };
          if (routeKey === 'whoami') return { statusCode: 200, body: connectionId };
          return { statusCode: 200 };
        },
      },
    });
    management = new ApiGatewayManagementApiClient({
      endpoint: gateway.managementEndpoint,
      region: 'us-east-1',
      credentials,
    });
  });
  afterAll(() => gateway.close());

  async function connect(): Promise<{ client: Awaited<ReturnType<typeof openSocket>>; id: string }> {
    const client = await openSocket(gateway.wsUrl);
    await send(client.socket, JSON.stringify({ action: 'whoami' }));
    return { client, id: await client.next() };
  }

  it("refuses the upgrade with the $connect handler's status", async () => {
    const refused = await openSocket(`${gateway.wsUrl}?refuse=1`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).statusCode).toBe(403);
    expect(gateway.connections()).toEqual([]);
  });

  it('routes a frame by its action and sends the route response back to the caller', async () => {
    const { client, id } = await connect();
    expect(gateway.connections()).toContain(id);
    const frame = JSON.stringify({ action: 'echo', text: 'hello' });
    await send(client.socket, frame);
    expect(await client.next()).toBe(`echo ${frame}`);
    const event = await events.waitFor((e) => e.requestContext.routeKey === 'echo');
    expect(event.requestContext.connectionId).toBe(id);
    expect('body' in event && event.body).toBe(frame);
    client.socket.close();
  });

  it('sends a frame that is not JSON, or names no known route, to $default', async () => {
    const { client, id } = await connect();
    await send(client.socket, 'plain words');
    await send(client.socket, JSON.stringify({ action: 'unknown' }));
    const isDefault = (body: string) => (e: WebSocketEvent) =>
      e.requestContext.routeKey === '$default' &&
      e.requestContext.connectionId === id &&
      'body' in e &&
      e.body === body;
    await events.waitFor(isDefault('plain words'));
    await events.waitFor(isDefault(JSON.stringify({ action: 'unknown' })));
    client.socket.close();
  });

  it('delivers a management PostToConnection to the socket as a text frame', async () => {
    const { client, id } = await connect();
    await management.send(
      new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('{"type":"delta"}') }),
    );
    expect(await client.next()).toBe('{"type":"delta"}');
    client.socket.close();
  });

  it('answers PostToConnection for an unknown connection with GoneException', async () => {
    const error = await management
      .send(new PostToConnectionCommand({ ConnectionId: 'R1kmxc2VNjMCFIA=', Data: Buffer.from('x') }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'GoneException', $metadata: { httpStatusCode: 410 } });
  });

  it('answers PostToConnection over 128 KB with PayloadTooLargeException', async () => {
    const { client, id } = await connect();
    const error = await management
      .send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.alloc(128 * 1024 + 1, 'a') }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PayloadTooLargeException', $metadata: { httpStatusCode: 413 } });
    client.socket.close();
  });

  it('answers GetConnection with connectedAt, lastActiveAt and identity', async () => {
    const before = Date.now();
    const client = await openSocket(gateway.wsUrl, { 'user-agent': 'gateway-test/1' });
    await send(client.socket, JSON.stringify({ action: 'whoami' }));
    const id = await client.next();
    const info = await management.send(new GetConnectionCommand({ ConnectionId: id }));
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    expect(info.ConnectedAt!.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(info.LastActiveAt!.getTime()).toBeGreaterThanOrEqual(info.ConnectedAt!.getTime());
    expect(info.Identity).toEqual({ SourceIp: '127.0.0.1', UserAgent: 'gateway-test/1' });
    client.socket.close();
  });

  it('closes the socket on DeleteConnection and fires $disconnect', async () => {
    const { client, id } = await connect();
    await management.send(new DeleteConnectionCommand({ ConnectionId: id }));
    await client.closed;
    const event = await events.waitFor(
      (e) => e.requestContext.routeKey === '$disconnect' && e.requestContext.connectionId === id,
    );
    expect(event.requestContext.eventType).toBe('DISCONNECT');
    expect(gateway.connections()).not.toContain(id);
  });

  it('refuses an unsigned @connections request with 403 Missing Authentication Token, doing nothing', async () => {
    const { client, id } = await connect();
    const url = `${gateway.managementEndpoint}/@connections/${encodeURIComponent(id)}`;
    const refusals = [
      fetch(url, { method: 'POST', body: 'unsigned' }),
      fetch(url, { method: 'POST', body: 'bearer', headers: { authorization: 'Bearer anything' } }),
      fetch(url, { method: 'GET' }),
      fetch(url, { method: 'DELETE' }),
    ];
    for (const res of await Promise.all(refusals)) {
      expect(res.status).toBe(403);
      expect(res.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
      expect(await res.json()).toEqual({ message: 'Missing Authentication Token' });
    }
    // The socket is still open and got none of them: the next frame it receives is a signed post.
    await management.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('signed') }));
    expect(await client.next()).toBe('signed');
    expect(gateway.connections()).toContain(id);
    client.socket.close();
  });

  it('closes with 1003 on a binary frame, as API Gateway does not take them', async () => {
    const { client } = await connect();
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await client.closed).code).toBe(1003);
  });
});

describe('gateway WebSocket frame and message sizes', () => {
  let gateway: Gateway;
  const KB = 1024;

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      // Every message is answered with its length, so a test sees what arrived whole.
      websocket: {
        routes: [],
        handler: async (event) =>
          'body' in event && typeof event.body === 'string'
            ? { statusCode: 200, body: String(event.body.length) }
            : { statusCode: 200 },
      },
    });
  });
  afterAll(() => gateway.close());

  /** Sends one message as these frames: the first a text frame, the others its continuations. */
  async function sendFrames(socket: WebSocket, parts: string[]): Promise<void> {
    for (const [i, part] of parts.entries()) {
      await new Promise<void>((resolve, reject) =>
        socket.send(part, { fin: i === parts.length - 1 }, (error) => (error ? reject(error) : resolve())),
      );
    }
  }

  it('takes a frame of exactly 32 KB', async () => {
    const client = await openSocket(gateway.wsUrl);
    await send(client.socket, 'x'.repeat(32 * KB));
    expect(await within(client.next(), 'the route response', 5000)).toBe(String(32 * KB));
    client.socket.close();
  });

  it('closes the connection with 1009 on a frame of 32 KB + 1, as browsers send a message as one frame', async () => {
    const client = await openSocket(gateway.wsUrl);
    client.socket.send('x'.repeat(32 * KB + 1));
    expect((await within(client.closed, 'the close', 5000)).code).toBe(1009);
  });

  it('takes a message of three 30 KB frames, reassembled', async () => {
    const client = await openSocket(gateway.wsUrl);
    await sendFrames(client.socket, ['a'.repeat(30 * KB), 'b'.repeat(30 * KB), 'c'.repeat(30 * KB)]);
    expect(await within(client.next(), 'the route response', 5000)).toBe(String(90 * KB));
    client.socket.close();
  });

  it('closes the connection with 1009 on a message over 128 KB, though each of its frames is under 32 KB', async () => {
    const client = await openSocket(gateway.wsUrl);
    const frames = [...Array.from({ length: 4 }, () => 'x'.repeat(32 * KB)), 'y'];
    void sendFrames(client.socket, frames).catch(() => {});
    expect((await within(client.closed, 'the close', 5000)).code).toBe(1009);
  });
});

describe('gateway WebSocket limits and authoriser', () => {
  let gateway: Gateway;
  const events = new Recorder<WebSocketEvent>();

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      websocket: {
        routes: [],
        idleTimeoutMs: 200,
        authorizer: async (event) =>
          event.queryStringParameters?.token === 'ok' ? { principalId: 'u1', tenant: 't1' } : null,
        handler: async (event) => {
          events.push(event);
        },
      },
    });
  });
  afterAll(() => gateway.close());

  it('refuses the upgrade with 403 when the authoriser returns null', async () => {
    const refused = await openSocket(`${gateway.wsUrl}?token=bad`).catch((error: unknown) => error);
    expect((refused as UpgradeRefused).statusCode).toBe(403);
  });

  it("puts the authoriser's principalId and context on every later event", async () => {
    const client = await openSocket(`${gateway.wsUrl}?token=ok`);
    await send(client.socket, 'hi');
    const message = await events.waitFor((e) => e.requestContext.eventType === 'MESSAGE');
    expect(message.requestContext.authorizer).toEqual({ principalId: 'u1', tenant: 't1' });
    const connect = await events.waitFor(
      (e) =>
        e.requestContext.eventType === 'CONNECT' &&
        e.requestContext.connectionId === message.requestContext.connectionId,
    );
    expect(connect.requestContext.authorizer).toMatchObject({ principalId: 'u1', tenant: 't1' });
    client.socket.close();
  });

  it('closes an idle connection with 1001 after idleTimeoutMs', async () => {
    const client = await openSocket(`${gateway.wsUrl}?token=ok`);
    const { code } = await within(client.closed, 'the idle close');
    expect(code).toBe(1001);
    // The gateway itself still runs: it was this connection's idleness, not a shutdown, that closed it.
    const next = await openSocket(`${gateway.wsUrl}?token=ok`);
    next.socket.close();
  });

  it('fires $disconnect for open sockets when the gateway closes', async () => {
    const other = await startGateway({
      port: 0,
      websocket: { routes: [], handler: async (event) => void events.push(event) },
    });
    const client = await openSocket(other.wsUrl);
    const [id] = other.connections();
    await other.close();
    expect((await client.closed).code).toBe(1001);
    expect(
      events.items.some(
        (e) => e.requestContext.routeKey === '$disconnect' && e.requestContext.connectionId === id,
      ),
    ).toBe(true);
  });
});

describe("gateway WebSocket authoriser's identity source", () => {
  let gateway: Gateway;
  /** The requests the authoriser was called for, by their query string. */
  const called: string[] = [];

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      websocket: {
        routes: [],
        identitySource: ['route.request.querystring.token', 'route.request.header.Sec-WebSocket-Protocol'],
        authorizer: async (event) => {
          called.push(event.queryStringParameters?.token ?? '(none)');
          return { principalId: 'u1' };
        },
        handler: async () => undefined,
      },
    });
  });
  afterAll(() => gateway.close());

  /** Opens with the given query token and subprotocol header; the status it was refused with, or 101. */
  async function statusOf(token: string | undefined, protocol: string | undefined): Promise<number> {
    const url = token === undefined ? gateway.wsUrl : `${gateway.wsUrl}?token=${token}`;
    const headers: Record<string, string> =
      protocol === undefined ? {} : { 'Sec-WebSocket-Protocol': protocol };
    try {
      const client = await openSocket(url, headers);
      client.socket.close();
      return 101;
    } catch (error) {
      return (error as UpgradeRefused).statusCode;
    }
  }

  it('refuses with 401, without calling the authoriser, a $connect missing any named source', async () => {
    expect(await statusOf(undefined, 'switchboard')).toBe(401);
    expect(await statusOf('t1', undefined)).toBe(401);
    expect(called).toEqual([]);
  });

  it('refuses an empty source as a missing one', async () => {
    expect(await statusOf('', 'switchboard')).toBe(401);
    expect(await statusOf('%20', 'switchboard')).toBe(401);
    expect(called).toEqual([]);
  });

  it('calls the authoriser when every named source is there', async () => {
    expect(await statusOf('t2', 'switchboard')).not.toBe(401);
    expect(called).toEqual(['t2']);
  });

  it('refuses to start with a source it cannot check, rather than letting everything through', async () => {
    await expect(
      startGateway({
        port: 0,
        websocket: {
          routes: [],
          identitySource: ['stageVariables.key'],
          authorizer: async () => ({}),
          handler: async () => undefined,
        },
      }),
    ).rejects.toThrow(/identitySource: the sandbox cannot check "stageVariables.key"/);
  });
});

describe('slow clients', () => {
  let slow: Gateway;
  beforeAll(async () => {
    slow = await startGateway({
      port: 0,
      readTimeoutMs: 300,
      http: { routes: ['POST /echo'], handler: async () => ({ statusCode: 200, body: 'ok' }) },
    });
  });
  afterAll(async () => {
    await slow?.close();
  });

  /** Writes `parts` to a raw connection and returns what came back before the gateway closed it. */
  function drip(parts: string[]): Promise<string> {
    const socket = connect(slow.port, '127.0.0.1');
    for (const part of parts) socket.write(part);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    return within(
      new Promise<string>((resolve) => socket.on('close', () => resolve(answer))),
      'the gateway to close a slow connection',
    );
  }

  it('answers 408 and closes a connection whose headers never end', async () => {
    expect(await drip(['POST /echo HTTP/1.1\r\nHost: localhost\r\n'])).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers 408 and closes a connection whose body never arrives whole', async () => {
    const answer = await drip(['POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n', 'a']);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('gateway close', () => {
  it('waits for the HTTP, WebSocket and $disconnect invocations still running', async () => {
    const ended: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const entered = new Recorder<string>();
    const slow = async (name: string) => {
      entered.push(name);
      await held;
      ended.push(name);
    };
    const gateway = await startGateway({
      port: 0,
      http: {
        routes: ['GET /slow'],
        handler: async () => {
          await slow('http');
          return { statusCode: 200 };
        },
      },
      websocket: {
        routes: ['slow'],
        handler: async (event) => {
          const { routeKey } = event.requestContext;
          if (routeKey === 'slow') await slow('route');
          if (routeKey === '$disconnect') {
            ended.push('$disconnect');
            entered.push('$disconnect');
          }
          return { statusCode: 200 };
        },
      },
    });
    void fetch(`${gateway.url}/slow`).catch(() => undefined);
    const client = await openSocket(gateway.wsUrl);
    client.socket.send(JSON.stringify({ action: 'slow' }));
    await entered.waitFor((name) => name === 'http');
    await entered.waitFor((name) => name === 'route');
    let endedAtClose: string[] = [];
    const closing = gateway.close().then(() => {
      endedAtClose = [...ended].sort();
    });
    // The sockets are closed and `$disconnect` has run, while the route and the request are still held:
    // a close that did not wait for them would be over by now.
    await entered.waitFor((name) => name === '$disconnect');
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    release();
    await closing;
    expect(endedAtClose).toEqual(['$disconnect', 'http', 'route']);
  });
});
