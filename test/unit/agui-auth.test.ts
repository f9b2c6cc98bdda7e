import { describe, expect, it } from 'vitest';
import { aguiAuthenticationFromEnv } from '../../lib/agui/index.ts';

describe('the AG-UI function’s authentication', () => {
  it('fails closed: neither an issuer nor an explicit allowAnonymous refuses to start, naming both', () => {
    expect(() => aguiAuthenticationFromEnv({})).toThrow(
      /SWITCHBOARD_AUTH_ISSUER \(built-in auth\) or SWITCHBOARD_ALLOW_ANONYMOUS=true/,
    );
    expect(() => aguiAuthenticationFromEnv({ SWITCHBOARD_ALLOW_ANONYMOUS: 'yes' })).toThrow();
  });

  it('serves anonymous callers only when told, and verifies JWTs with built-in auth', async () => {
    expect(aguiAuthenticationFromEnv({ SWITCHBOARD_ALLOW_ANONYMOUS: 'true' })).toBeUndefined();
    const authenticate = aguiAuthenticationFromEnv({
      SWITCHBOARD_AUTH_ISSUER: 'https://issuer.example.com',
      SWITCHBOARD_AUTH_AUDIENCE: '["hosts"]',
    });
    expect(authenticate).toBeTypeOf('function');
    // No bearer token: refused before any key is fetched.
    await expect(
      authenticate!({ headers: {} } as Parameters<NonNullable<typeof authenticate>>[0]),
    ).rejects.toMatchObject({ status: 401 });
  });
});
