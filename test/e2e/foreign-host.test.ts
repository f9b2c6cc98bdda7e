import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretArn } from '../../sandbox/aws/index.ts';
import { mintDevToken } from '../../sandbox/dev-key.ts';
import { startScriptedModel } from '../../sandbox/model/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { startSecretsManager } from '../../sandbox/secrets-manager.ts';
import { SANDBOX_REGION } from '../../sandbox/services.ts';
import { testApp } from '../support/agents.ts';
import { testSandbox } from '../support/sandbox.ts';

/** What a raw request got: its status and body, or `upgraded` for a WebSocket upgrade that was taken. */
interface Answer {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * A raw request to `base` (a loopback address) naming `headers.host` as its host, as a page whose
 * name was rebound to this machine would send it; WebSocket upgrades answer status 101 once taken.
 */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(base);
  return new Promise<Answer>((resolve, reject) => {
    const out = request(
      // Without a `host` header, none is sent (`setHost: false`).
      { host: url.hostname, port: url.port, method, path, headers, agent: false, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
      },
    );
    out.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '', headers: res.headers });
    });
    out.on('error', reject);
    out.end(body);
  });
}

const upgrade = () => ({
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-version': '13',
  'sec-websocket-key': randomBytes(16).toString('base64'),
});

let sandbox: Sandbox;
let port = '';
let token = '';

beforeAll(async () => {
  sandbox = await testSandbox({ app: testApp().app, jwt: true, allowHosts: ['10.0.2.2'] });
  port = new URL(sandbox.url).port;
  token = await mintDevToken({ user: 'alice' });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the sandbox refuses a request naming a foreign host (DNS rebinding)', () => {
  const foreign = () => `attacker.example:${port}`;

  it('answers 403 on every route, and hands nothing out', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const calls: [string, string, Record<string, string>, string?][] = [
      ['GET', '/sandbox/token', {}],
      ['GET', '/sandbox/operate', {}],
      ['GET', '/sandbox/faults', {}],
      ['GET', '/sandbox/metrics', {}],
      ['GET', '/sandbox/inspect', {}],
      ['GET', '/sandbox/traces', {}],
      ['GET', '/sandbox/traces?session=s1', {}],
      ['POST', '/sandbox/otlp/v1/traces', { 'content-type': 'application/json' }, '{"resourceSpans":[]}'],
      ['GET', '/', {}],
      ['GET', '/app.js', {}],
      ['GET', '/styles.css', {}],
      ['GET', '/.well-known/openid-configuration', {}],
      ['GET', '/api/sessions', bearer],
      [
        'POST',
        '/api/chat',
        { ...bearer, 'content-type': 'application/json' },
        '{"session_id":"s1","agent_id":"echo","content":"hi"}',
      ],
      [
        'OPTIONS',
        '/api/chat',
        { origin: 'http://attacker.example', 'access-control-request-method': 'POST' },
      ],
      ['POST', '/agui/echo', { ...bearer, 'content-type': 'application/json' }, '{}'],
      ['GET', '/local/@connections/abc', {}],
    ];
    for (const [method, path, headers, body] of calls) {
      const answer = await raw(sandbox.url, method, path, { ...headers, host: foreign() }, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body).not.toMatch(/token|refKey|eyJ/);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
    // Nothing of the refused turn was started.
    const listed = await raw(sandbox.url, 'GET', '/api/sessions', { ...bearer, host: `localhost:${port}` });
    expect(listed.status).toBe(200);
    expect(listed.body).not.toContain('s1');
  });

  it('refuses a WebSocket upgrade, with a valid token', async () => {
    const path = `${new URL(sandbox.wsUrl).pathname}?token=${token}`;
    expect((await raw(sandbox.url, 'GET', path, { ...upgrade(), host: foreign() })).status).toBe(403);
    expect(sandbox.connections()).toEqual([]);
    expect((await raw(sandbox.url, 'GET', path, { ...upgrade(), host: `127.0.0.1:${port}` })).status).toBe(
      101,
    );
  });

  it('refuses a request without a Host, or with one it cannot read', async () => {
    // HTTP/1.1 without a Host: Node's server answers 400 before the sandbox sees it.
    expect((await raw(sandbox.url, 'GET', '/sandbox/token', {})).status).toBe(400);
    for (const host of ['localhost:3000:1', 'localhost.attacker.example', '127.0.0.1.nip.io']) {
      const answer = await raw(sandbox.url, 'GET', '/sandbox/token', { host });
      expect(answer.status, host).toBe(403);
    }
  });

  it('answers localhost, 127.0.0.1, [::1] (any port) and the names --allow-host gives', async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      'LOCALHOST',
      `10.0.2.2:${port}`,
    ]) {
      const answer = await raw(sandbox.url, 'GET', '/sandbox/token', { host });
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ token: expect.any(String) });
    }
    const path = `${new URL(sandbox.wsUrl).pathname}?token=${token}`;
    const upgraded = await raw(sandbox.url, 'GET', path, { ...upgrade(), host: `10.0.2.2:${port}` });
    expect(upgraded.status).toBe(101);
  });

  it("refuses /sandbox/* to a page of a foreign Origin, and serves a dev server's on another port", async () => {
    const host = `localhost:${port}`;
    for (const origin of ['http://attacker.example', 'null', `http://attacker.example:${port}`, 'file://']) {
      for (const path of ['/sandbox/token', '/sandbox/operate']) {
        const answer = await raw(sandbox.url, 'GET', path, { host, origin });
        expect(answer.status, `${origin} ${path}`).toBe(403);
        expect(answer.body).not.toMatch(/token|refKey|eyJ/);
      }
    }
    for (const origin of [
      'http://localhost:5173',
      'http://127.0.0.1:8080',
      'http://[::1]:5173',
      `http://10.0.2.2:${port}`,
    ]) {
      const answer = await raw(sandbox.url, 'GET', '/sandbox/token', { host, origin });
      expect(answer.status, origin).toBe(200);
    }
  });

  it('keeps the stack’s CORS on /api/*: a foreign Origin is not refused there, only not allowed', async () => {
    const answer = await raw(sandbox.url, 'GET', '/api/sessions', {
      host: `localhost:${port}`,
      origin: 'http://attacker.example',
      authorization: `Bearer ${token}`,
    });
    expect(answer.status).toBe(200);
  });

  it("refuses a foreign host on the emulators' ports too", async () => {
    const operate = await raw(sandbox.url, 'GET', '/sandbox/operate', { host: `localhost:${port}` });
    const { endpoints } = JSON.parse(operate.body) as { endpoints: Record<string, string> };
    // The function's front (what its table client calls), and a Secrets Manager like the sandbox's.
    const front = await sandbox.runtimes.http.db.endpoint();
    const secrets = await startSecretsManager({ name: 'n', arn: secretArn('n', SANDBOX_REGION), value: 'v' });
    try {
      for (const endpoint of [endpoints.dynamodb, endpoints.sqs, endpoints.events, front, secrets.url]) {
        const url = new URL(endpoint ?? '');
        const refused = await raw(
          endpoint ?? '',
          'POST',
          '/',
          { host: `attacker.example:${url.port}` },
          '{}',
        );
        expect(refused.status, endpoint).toBe(403);
      }
    } finally {
      await secrets.close();
    }
  });

  it('refuses a foreign host on the scripted model’s port, and answers the agents’ loopback calls', async () => {
    const model = await startScriptedModel();
    try {
      const { port: modelPort } = new URL(model.baseURL);
      const body = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
      const headers = { 'content-type': 'application/json' };
      const call = (host: string) =>
        raw(model.baseURL, 'POST', '/v1/chat/completions', { ...headers, host }, body);
      expect((await call(`attacker.example:${modelPort}`)).status).toBe(403);
      expect(model.requests).toHaveLength(0);
      expect((await call(`127.0.0.1:${modelPort}`)).status).toBe(200);
    } finally {
      await model.close();
    }
  });
});
