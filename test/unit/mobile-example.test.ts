import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { expiryOf, tokenProvider } from '../../examples/mobile/auth.ts';
import { SESSION_ID_PATTERN, sessionToOpen, TAP } from '../../examples/mobile/notifications.ts';
import { SESSION_ID_PATTERN as SERVER_SESSION_ID_PATTERN } from '../../lib/contract/ids.ts';

/**
 * The Expo example's parts that need no device: which session a tapped notification opens, the
 * token provider the client calls, and the check that its bundle holds one React.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const tap = (data: unknown, actionIdentifier = TAP) => ({
  actionIdentifier,
  notification: { request: { content: { data } } },
});

describe('examples/mobile: a notification tap', () => {
  it('opens the session its data names (the push of docs/hosts.md: { sessionId, actionId })', () => {
    expect(sessionToOpen(tap({ sessionId: 'support-42', actionId: 'act_1' }))).toBe('support-42');
    const ref = `${'a'.repeat(32)}~support-42`;
    expect(sessionToOpen(tap({ sessionId: ref }))).toBe(ref);
  });

  it('opens nothing for a button of the notification, no response, or data that names no session', () => {
    expect(sessionToOpen(tap({ sessionId: 'support-42' }, 'approve'))).toBeUndefined();
    expect(sessionToOpen(null)).toBeUndefined();
    expect(sessionToOpen(undefined)).toBeUndefined();
    for (const data of [undefined, null, 'support-42', 42, {}, { sessionId: 42 }, { session: 'support-42' }])
      expect(sessionToOpen(tap(data))).toBeUndefined();
    for (const sessionId of ['', '-x', '../admin', 'a b', 'a'.repeat(129), `${'a'.repeat(31)}~x`])
      expect(sessionToOpen(tap({ sessionId }))).toBeUndefined();
  });

  it("accepts the session ids the server does: the pattern is the server's", () => {
    expect(SESSION_ID_PATTERN.source).toBe(SERVER_SESSION_ID_PATTERN.source);
  });
});

/** A JWT (unsigned: only its payload matters here) that expires at `exp` seconds. */
function jwt(exp: number | undefined, sub = 'alice'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part({ sub, ...(exp !== undefined && { exp }) })}.signature`;
}

describe('examples/mobile: the token provider', () => {
  it("reads a JWT's exp, and nothing of what is no JWT", () => {
    expect(expiryOf(jwt(1_800_000_000))).toBe(1_800_000_000_000);
    // base64url's "-" and "_" (a subject of "~~~>" and "???" makes both) decode as well.
    expect(expiryOf(jwt(1_800_000_000, '~~~>???'))).toBe(1_800_000_000_000);
    expect(expiryOf(jwt(undefined))).toBeUndefined();
    expect(expiryOf('opaque-token')).toBeUndefined();
    expect(expiryOf('a.!!!.c')).toBeUndefined();
  });

  it('holds a token until a minute before it expires, then asks for a new one', async () => {
    let now = 1_000_000_000_000;
    const tokens = [jwt(now / 1000 + 3600, 'first'), jwt(now / 1000 + 7200, 'second')];
    const fetchToken = vi.fn(async () => tokens.shift()!);
    const token = tokenProvider(fetchToken, { now: () => now });
    const first = await token();
    expect(await token()).toBe(first);
    now += 3600_000 - 61_000;
    expect(await token()).toBe(first);
    now += 2_000;
    const second = await token();
    expect(second).not.toBe(first);
    expect(await token()).toBe(second);
    expect(fetchToken).toHaveBeenCalledTimes(2);
  });

  it('asks once for the requests that wait together, and again after a failure', async () => {
    let release: (token: string) => void = () => {};
    const fetchToken = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(new Error('signed out'))
      .mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const token = tokenProvider(fetchToken);
    await expect(token()).rejects.toThrow('signed out');
    const waiting = [token(), token(), token()];
    await vi.waitFor(() => expect(fetchToken).toHaveBeenCalledTimes(2));
    release('opaque');
    expect(await Promise.all(waiting)).toEqual(['opaque', 'opaque', 'opaque']);
    // A token without exp is held until the app asks for another client.
    expect(await token()).toBe('opaque');
    expect(fetchToken).toHaveBeenCalledTimes(2);
  });
});

describe('examples/mobile: the one-React check', () => {
  const work = mkdtempSync(join(tmpdir(), 'switchboard-one-react-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Runs the check on a folder holding one source map with these sources. */
  function check(name: string, sources: string[] | undefined) {
    const dir = join(work, name);
    mkdirSync(join(dir, '_expo'), { recursive: true });
    if (sources) writeFileSync(join(dir, '_expo', 'index.hbc.map'), JSON.stringify({ version: 3, sources }));
    return new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'examples/mobile/scripts/check-one-react.mjs'), '--maps', dir],
        (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
      );
    });
  }

  const app = ['/App.tsx', '/node_modules/react/index.js', '/node_modules/react/cjs/react.production.js'];

  it('passes a bundle with one React', async () => {
    const { code, output } = await check('one', [...app, '/node_modules/switchboard/dist/react/index.js']);
    expect(output).toContain('one React in the bundle');
    expect(code).toBe(0);
  });

  it('fails a bundle with two: the app’s and the one the package resolved to', async () => {
    const { code, output } = await check('two', [...app, '/../../node_modules/react/index.js']);
    expect(output).toContain('2 copies of React');
    expect(output).toContain('/../../node_modules/react (1 modules)');
    expect(code).toBe(1);
  });

  it('fails when it has nothing to count: no React, no source map', async () => {
    expect((await check('none', ['/App.tsx', '/node_modules/react-native/index.js'])).code).toBe(1);
    expect((await check('no-map', undefined)).code).toBe(1);
  });
});
