import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEV_ISSUER, DEV_PUBLIC_JWK, mintDevToken } from './dev-key.ts';

/** Where the sandbox serves its OpenID discovery document and key set. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
const JWKS_PATH = '/.well-known/jwks.json';
/** The sandbox-only endpoint the demo page takes its token from. Nothing like it exists on AWS. */
export const DEMO_TOKEN_PATH = '/sandbox/token';

/** Who the demo page is. */
export const DEMO_USER = { user: 'demo', tenant: 'demo' } as const;

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Serves what an identity provider would, for the development key: the discovery document (its
 * issuer is {@link DEV_ISSUER}, its `jwks_uri` on this server) and the key set, so the sandbox's
 * verifier runs the same discovery and key look-up as on AWS; and, for the demo page, a token for the
 * demo user. Returns true when it answered.
 */
export function serveDevAuth(req: IncomingMessage, res: ServerResponse, audience: string): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path === DISCOVERY_PATH) {
    sendJson(res, { issuer: DEV_ISSUER, jwks_uri: `http://${req.headers.host}${JWKS_PATH}` });
  } else if (path === JWKS_PATH) {
    sendJson(res, { keys: [DEV_PUBLIC_JWK] });
  } else if (path === DEMO_TOKEN_PATH) {
    const ttlSeconds = 3600;
    mintDevToken({ ...DEMO_USER, audience, ttlSeconds }).then(
      (token) => sendJson(res, { token, expires_in: ttlSeconds, ...DEMO_USER }),
      () => {
        res.writeHead(500).end();
      },
    );
  } else return false;
  return true;
}
