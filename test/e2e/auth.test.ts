import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultResolveContext } from '../../lib/auth/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { DEV_ISSUER, DEV_KEY_ID, mintDevToken } from '../../sandbox/dev-key.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { recordingAgent } from '../support/recorder.ts';
import { testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

const recorder = recordingAgent('recorder');
// The app's own resolveContext: the default (sub, tenant) and the token's role claim.
const app = createSwitchboard({
  resolveContext: (claims) => {
    const base = defaultResolveContext(claims);
    return { ...base, data: { ...base.data, ...(typeof claims.role === 'string' && { role: claims.role }) } };
  },
});
app.registerHostAgent(recorder.definition);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
const run = promisify(execFile);

/** Everything the functions, the gateway and the authoriser write while the tests run. */
const logged: string[] = [];
const restore: (() => void)[] = [];
function capture(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stream.write;
  restore.push(() => {
    stream.write = write as typeof stream.write;
  });
}

let sandbox: Sandbox;
let alice: string;
/** Every token a test sent, good or bad: none may appear in a log. */
const sent: string[] = [];

/** A token of the development key, remembered so the log check looks for it. */
async function token(...args: Parameters<typeof mintDevToken>): Promise<string> {
  const minted = await mintDevToken(...args);
  sent.push(minted);
  return minted;
}

/** Tokens each refused for one reason. */
async function refusedTokens(): Promise<Record<string, string>> {
  const otherKey = await generateKeyPair('RS256');
  const forged = await new SignJWT({ tenant: 'acme' })
    .setProtectedHeader({ alg: 'RS256', kid: DEV_KEY_ID })
    .setIssuer(DEV_ISSUER)
    .setSubject('alice')
    .setAudience('switchboard-sandbox')
    .setExpirationTime('1h')
    .sign(otherKey.privateKey);
  const part = (value: unknown) => base64url.encode(JSON.stringify(value));
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: DEV_ISSUER, sub: 'alice', aud: 'switchboard-sandbox', exp })}.`;
  const hmac = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', kid: DEV_KEY_ID })
    .setIssuer(DEV_ISSUER)
    .setSubject('alice')
    .setAudience('switchboard-sandbox')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('a shared secret anybody could guess'));
  const tokens = {
    expired: await token({ user: 'alice', tenant: 'acme', ttlSeconds: -60 }),
    'wrong issuer': await token({ user: 'alice', tenant: 'acme', issuer: 'https://login.example.com' }),
    'wrong audience': await token({ user: 'alice', tenant: 'acme', audience: 'another-app' }),
    'bad signature': forged,
    'alg none': unsigned,
    'alg HS256': hmac,
    'not a JWT': 'opaque-token-value',
  };
  sent.push(...Object.values(tokens));
  return tokens;
}

let refused: Record<string, string>;

beforeAll(async () => {
  capture(process.stdout);
  capture(process.stderr);
  // DEBUG, so that whatever the functions and the authoriser can log, they do.
  sandbox = await testSandbox({ app, jwt: true, logLevel: 'DEBUG' });
  alice = await token({ user: 'alice', tenant: 'acme', claims: { role: 'viewer' } });
  refused = await refusedTokens();
});
afterAll(async () => {
  await sandbox?.close();
  for (const undo of restore) undo();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.url}${path}`, { headers }).then(async (res) => ({
    status: res.status,
    json: (await res.json().catch(() => ({}))) as Record<string, unknown>,
  }));

const idleOf = (runId: unknown) => (f: Frame) => f.type === 'session.status_idle' && f.run_id === runId;

describe('JWT authentication, as the stack with built-in auth', () => {
  it('hands the agent the user and tenant of a valid token sent over HTTP', async () => {
    const res = await fetch(`${sandbox.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'auth-http', agent_id: 'recorder', content: 'hello' }),
    });
    expect(res.status).toBe(202);
    const [turn] = await recorder.turns('auth-http');
    expect(turn?.input.context).toEqual({ user: { id: 'alice' }, data: { tenant: 'acme', role: 'viewer' } });
    expect((await get('/api/sessions/auth-http', { authorization: alice })).status).toBe(200);
  });

  it('answers 401 {"message":"Unauthorized"} over HTTP for a missing token and for each refused one', async () => {
    expect(await get('/api/sessions/auth-http')).toEqual({ status: 401, json: { message: 'Unauthorized' } });
    for (const [why, bad] of Object.entries(refused)) {
      expect(await get('/api/sessions/auth-http', { authorization: `Bearer ${bad}` }), why).toEqual({
        status: 401,
        json: { message: 'Unauthorized' },
      });
    }
  });

  it('refuses the WebSocket upgrade (401) without a token and for each refused one, in the query or the subprotocol', async () => {
    await expect(TestSocket.open(sandbox.wsUrl)).rejects.toThrow(/upgrade refused: 401/);
    for (const [why, bad] of Object.entries(refused)) {
      await expect(TestSocket.open(`${sandbox.wsUrl}?token=${encodeURIComponent(bad)}`), why).rejects.toThrow(
        /upgrade refused: 401/,
      );
      // A subprotocol cannot hold every character: the forged ones that can are offered that way too.
      if (/^[\w.-]+$/.test(bad)) {
        await expect(
          TestSocket.open(sandbox.wsUrl, ['switchboard', `switchboard.bearer.${bad}`]),
          why,
        ).rejects.toThrow(/upgrade refused: 401/);
      }
    }
  });

  it('takes the token as a subprotocol, answers with the switchboard one, and the connection works', async () => {
    const socket = await TestSocket.open(sandbox.wsUrl, ['switchboard', `switchboard.bearer.${alice}`]);
    expect(socket.socket.protocol).toBe('switchboard');
    const accepted = await socket.request({
      action: 'assistant_message',
      session_id: 'auth-ws-protocol',
      agent_id: 'recorder',
      content: 'hi',
    });
    expect(accepted.type).toBe('assistant:accepted');
    await socket.waitFor(idleOf(accepted.run_id), 'the end of the turn');
    const [turn] = await recorder.turns('auth-ws-protocol');
    expect(turn?.input.context).toEqual({ user: { id: 'alice' }, data: { tenant: 'acme', role: 'viewer' } });
    await socket.close();
  });

  it('takes the token from the query string, choosing no subprotocol', async () => {
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${alice}`);
    expect(socket.socket.protocol).toBe('');
    const accepted = await socket.request({
      action: 'assistant_message',
      session_id: 'auth-ws-query',
      agent_id: 'recorder',
      content: 'hi',
    });
    await socket.waitFor(idleOf(accepted.run_id), 'the end of the turn');
    const [turn] = await recorder.turns('auth-ws-query');
    expect(turn?.input.context.user).toEqual({ id: 'alice' });
    await socket.close();
  });

  it('never echoes the token-bearing subprotocol: a client that did not offer switchboard gets none back', async () => {
    // The ws client, like a browser, fails a handshake that answers none of the protocols it offered.
    await expect(TestSocket.open(sandbox.wsUrl, [`switchboard.bearer.${alice}`])).rejects.toThrow(
      /no subprotocol/,
    );
  });

  it('lets a host that claims another user, tenant or role in host_context or metadata gain nothing', async () => {
    const claim = { user: 'bob', tenant: 'globex', role: 'admin', sub: 'bob', 'custom:tenant': 'globex' };
    const socket = await TestSocket.open(sandbox.wsUrl, ['switchboard', `switchboard.bearer.${alice}`]);
    const accepted = await socket.request({
      action: 'assistant_message',
      session_id: 'auth-claims',
      agent_id: 'recorder',
      content: 'I am an admin now',
      metadata: claim,
      host_context: {
        host: { name: 'bob', kind: 'browser', version: 'admin' },
        view: { name: 'admin', data: claim, state: claim },
        extensions: { identity: claim, ...claim },
      },
    });
    await socket.waitFor(idleOf(accepted.run_id), 'the end of the turn');
    const [turn] = await recorder.turns('auth-claims');
    expect(turn?.input.context).toEqual({ user: { id: 'alice' }, data: { tenant: 'acme', role: 'viewer' } });
    // What the host said is still there as what the host said, and nowhere else.
    expect(turn?.input.metadata).toMatchObject({ user: 'bob', role: 'admin' });
    await socket.close();
    const bob = await token({ user: 'bob', tenant: 'globex', claims: { role: 'admin' } });
    expect((await get('/api/sessions/auth-claims', { authorization: `Bearer ${bob}` })).status).toBe(404);
  });

  it('accepts a token the switchboard token command mints, and the command refuses bad arguments', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, [TSX, 'bin/switchboard.ts', 'token', ...args], { cwd: ROOT, timeout: 60_000 });
    const { stdout } = await cli('--user', 'carol', '--tenant', 'initech', '--ttl', '5m');
    const minted = stdout.trim();
    sent.push(minted);
    expect(minted).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await get('/api/sessions/none', { authorization: `Bearer ${minted}` })).status).toBe(404);
    const socket = await TestSocket.open(sandbox.wsUrl, ['switchboard', `switchboard.bearer.${minted}`]);
    await socket.close();
    await expect(cli('--tenant', 'initech')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--user is required'),
    });
    await expect(cli('--user', 'carol', '--ttl', 'soon')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--ttl must be'),
    });
  }, 120_000);

  it('serves the demo page a token of its demo user', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/token`);
    const body = (await res.json()) as { token: string; user: string };
    sent.push(body.token);
    expect(body.user).toBe('demo');
    expect((await get('/api/sessions/none', { authorization: `Bearer ${body.token}` })).status).toBe(404);
  });

  it('refuses a sub or tenant with a control character (C0, DEL, C1): 401 invalid_token over HTTP, a refused upgrade (401)', async () => {
    for (const c of ['\u0000', '\u001b', '\u007f', '\u0085']) {
      for (const claims of [
        { user: `alice${c}`, tenant: 'acme' },
        { user: 'alice', tenant: `acme${c}` },
      ]) {
        const bad = await token(claims);
        const why = JSON.stringify(claims);
        const res = await get('/api/sessions/auth-http', { authorization: `Bearer ${bad}` });
        expect({ status: res.status, code: (res.json.error as { code?: string })?.code }, why).toEqual({
          status: 401,
          code: 'invalid_token',
        });
        await expect(TestSocket.open(`${sandbox.wsUrl}?token=${bad}`), why).rejects.toThrow(
          /upgrade refused: 401/,
        );
      }
    }
  });

  it('takes an empty tenant claim as no tenant: the same owner as a token without one', async () => {
    const empty = await token({ user: 'erin', tenant: '' });
    const none = await token({ user: 'erin' });
    const res = await fetch(`${sandbox.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${empty}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'auth-no-tenant', agent_id: 'recorder', content: 'hello' }),
    });
    expect(res.status).toBe(202);
    const [turn] = await recorder.turns('auth-no-tenant');
    expect(turn?.input.context).toEqual({ user: { id: 'erin' }, data: {} });
    const byEmpty = await get('/api/sessions/auth-no-tenant', { authorization: `Bearer ${empty}` });
    const byNone = await get('/api/sessions/auth-no-tenant', { authorization: `Bearer ${none}` });
    // The same session, under the same ref (its status may have moved on between the two reads).
    expect([byEmpty.status, byNone.status]).toEqual([200, 200]);
    expect(byNone.json.ref).toBe(byEmpty.json.ref);
  });

  it('writes no token to any log: not the functions, not the authoriser, not the gateway', () => {
    const text = logged.join('');
    // Refusals were logged (with their reason), so the check below looked at real output.
    expect(text).toMatch(/\$connect refused: The token has expired/);
    for (const value of sent) {
      // The signature is the secret part; the payload of a forged token may repeat a real one's.
      const signature = value.split('.')[2] || value;
      expect(text.includes(signature), `a token (${value.slice(0, 12)}…) is in the logs`).toBe(false);
    }
  });
});
