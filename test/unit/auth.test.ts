import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectToken,
  defaultResolveContext,
  gatewayClaims,
  identityFromContext,
  resolveIdentity,
} from '../../lib/auth/index.ts';
import { createJwtVerifier } from '../../lib/auth/jwt.ts';

const ISSUER = 'https://issuer.example.com';
const keys = await generateKeyPair('RS256', { extractable: true });
let server: Server;
let discoveryUrl: string;
let discoveredIssuer = ISSUER;

beforeAll(async () => {
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256' };
  // An identity provider on a real socket: its discovery document and its key set.
  server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      res.end(JSON.stringify({ issuer: discoveredIssuer, jwks_uri: `${base}/jwks` }));
    else res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  discoveryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/openid-configuration`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const verifier = () => createJwtVerifier({ issuer: ISSUER, audience: ['app-client'], discoveryUrl });

/** A token of the provider's key with these claims, expiring in a minute unless `exp` says otherwise (null: no `exp`). */
function signed(claims: Record<string, unknown>, exp: number | null = Date.now() / 1000 + 60) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(ISSUER);
  if (exp !== null) jwt.setExpirationTime(Math.floor(exp));
  return jwt.sign(keys.privateKey);
}

describe('JWT verification', () => {
  it('accepts a Cognito access token, whose audience is its client_id, and refuses one for another client', async () => {
    const verify = verifier();
    expect(await verify(await signed({ sub: 'u1', client_id: 'app-client' }))).toMatchObject({ sub: 'u1' });
    await expect(verify(await signed({ sub: 'u1', client_id: 'other' }))).rejects.toThrow(
      /not for this audience/,
    );
    // `aud`, when present, decides: a matching client_id does not rescue a foreign aud.
    await expect(verify(await signed({ sub: 'u1', aud: 'other', client_id: 'app-client' }))).rejects.toThrow(
      /not for this audience/,
    );
  });

  it('refuses a token without exp, issued in the future, or not yet valid', async () => {
    const verify = verifier();
    const now = Date.now() / 1000;
    await expect(verify(await signed({ sub: 'u1', aud: 'app-client' }, null))).rejects.toThrow(/"exp"/);
    await expect(
      verify(await signed({ sub: 'u1', aud: 'app-client', iat: Math.floor(now + 600) })),
    ).rejects.toThrow(/issued in the future/);
    await expect(
      verify(await signed({ sub: 'u1', aud: 'app-client', nbf: Math.floor(now + 600) })),
    ).rejects.toThrow(/"nbf"/);
  });

  it('refuses every token when the discovery document names another issuer', async () => {
    discoveredIssuer = 'https://impostor.example.com';
    try {
      await expect(verifier()(await signed({ sub: 'u1', aud: 'app-client' }))).rejects.toThrow(
        /keys could not be read: The discovery document names issuer/,
      );
    } finally {
      discoveredIssuer = ISSUER;
    }
  });
});

describe('claims and context', () => {
  it('hands claims on as API Gateway does: every value a string', () => {
    expect(
      gatewayClaims({ sub: 'u1', exp: 17, admin: true, groups: ['a', 'b'], addr: { c: 1 }, gone: null }),
    ).toEqual({ sub: 'u1', exp: '17', admin: 'true', groups: '[a b]', addr: '{"c":1}' });
  });

  it('takes the token from the Authorization header, then the subprotocol, then the query', () => {
    const headers = { 'Sec-WebSocket-Protocol': 'switchboard, switchboard.bearer.from-protocol' };
    const query = { token: 'from-query' };
    expect(
      connectToken({
        headers: { ...headers, Authorization: 'Bearer from-header' },
        queryStringParameters: query,
      }),
    ).toBe('from-header');
    expect(connectToken({ headers, queryStringParameters: query })).toBe('from-protocol');
    expect(connectToken({ headers: {}, queryStringParameters: query })).toBe('from-query');
    expect(connectToken({ headers: { 'sec-websocket-protocol': 'switchboard' } })).toBeUndefined();
  });

  it('reads sub and tenant or custom:tenant by default, and nothing else', () => {
    expect(defaultResolveContext({ sub: 'u1', 'custom:tenant': 'acme', role: 'admin' })).toEqual({
      user: { id: 'u1' },
      data: { tenant: 'acme' },
    });
    expect(defaultResolveContext({ principalId: 'p1', tenant: 'globex' })).toEqual({
      user: { id: 'p1' },
      data: { tenant: 'globex' },
    });
  });

  it('refuses a context without a user or too long to hold (401) and one of the wrong shape (500), never anonymous', async () => {
    await expect(resolveIdentity({ jwt: { claims: { email: 'x@example.com' } } })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    await expect(
      resolveIdentity({ jwt: { claims: { sub: 'u1' } } }, () => ({ user: null })),
    ).rejects.toMatchObject({
      status: 401,
    });
    await expect(
      resolveIdentity({ jwt: { claims: { sub: 'u1' } } }, () => {
        throw new Error('unknown tenant');
      }),
    ).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/unknown tenant/) });
    expect(() => identityFromContext({ user: { id: 'u1' }, data: { tenant: 7 } })).toThrow(/data.tenant/);
    // Values the token brought (an id or a context too long to hold) are the caller's: 401 invalid_token.
    expect(() => identityFromContext({ user: { id: 'u1' }, data: { big: 'x'.repeat(9000) } })).toThrow(
      expect.objectContaining({
        status: 401,
        code: 'invalid_token',
        message: expect.stringMatching(/at most/),
      }),
    );
    expect(() => identityFromContext({ user: { id: '名'.repeat(257) }, data: {} })).toThrow(
      expect.objectContaining({ status: 401, code: 'invalid_token' }),
    );
    expect(() => identityFromContext({ user: 'u1' })).toThrow(/resolveContext returned no usable context/);
    expect(await resolveIdentity(undefined)).toEqual({ user: 'anonymous', data: {} });
  });

  it('refuses a user or tenant holding a control character (C0, DEL, C1) with 401 invalid_token', async () => {
    const controls = ['\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f'];
    for (const c of controls) {
      const hex = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      for (const claims of [
        { sub: `ali${c}ce`, tenant: 'acme' },
        { sub: 'alice', tenant: `ac${c}me` },
        { sub: 'alice', 'custom:tenant': `${c}acme` },
        { principalId: `alice${c}` },
      ]) {
        for (const authorizer of [{ jwt: { claims } }, { lambda: claims }]) {
          await expect(resolveIdentity(authorizer), JSON.stringify(claims)).rejects.toMatchObject({
            status: 401,
            code: 'invalid_token',
            message: expect.stringContaining(`U+${hex}`),
          });
        }
      }
    }
    // Two owners NUL would have made one: tenant "a" with user "b<NUL>c", tenant "a<NUL>b" with user "c".
    await expect(resolveIdentity({ jwt: { claims: { sub: 'b\u0000c', tenant: 'a' } } })).rejects.toThrow(
      /user id holds a control character \(U\+0000 at position 1\)/,
    );
    await expect(resolveIdentity({ jwt: { claims: { sub: 'c', tenant: 'a\u0000b' } } })).rejects.toThrow(
      /tenant holds a control character/,
    );
    // A hook's own result is held to the same rule.
    await expect(
      resolveIdentity({ jwt: { claims: { sub: 'u1' } } }, () => ({
        user: { id: 'u1' },
        data: { tenant: 'x\ty' },
      })),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    // Neither format characters, nor other spaces, nor letters of any script are controls.
    for (const id of ['a\u00a0b', 'a\u200bb', '用户', 'ü', '𠀀']) {
      expect(await resolveIdentity({ jwt: { claims: { sub: id, tenant: id } } })).toEqual({
        user: id,
        data: { tenant: id },
      });
    }
  });

  it('takes an empty tenant claim as no tenant (the same owner as a token without one)', async () => {
    expect(await resolveIdentity({ jwt: { claims: { sub: 'u1', tenant: '' } } })).toEqual(
      await resolveIdentity({ jwt: { claims: { sub: 'u1' } } }),
    );
    expect(defaultResolveContext({ sub: 'u1', tenant: '' })).toEqual({ user: { id: 'u1' }, data: {} });
    // An empty `tenant` gives way to `custom:tenant`, as a missing one does.
    expect(defaultResolveContext({ sub: 'u1', tenant: '', 'custom:tenant': 'acme' })).toEqual({
      user: { id: 'u1' },
      data: { tenant: 'acme' },
    });
  });
});
