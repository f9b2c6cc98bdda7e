/**
 * The client's `token`: a function it calls for each request and each connection. It hands out the
 * token it holds until that one is about to expire, then asks `fetchToken` for a new one (one call
 * at a time, however many requests wait). `fetchToken` is where an app plugs in its sign-in: return
 * your identity provider's current access token (refreshing it as the provider does). Pure (no
 * React Native), so a test checks it.
 */
export function tokenProvider(
  fetchToken: () => string | Promise<string>,
  options: { now?: () => number; leewaySeconds?: number } = {},
): () => Promise<string> {
  const now = options.now ?? Date.now;
  const leewayMs = (options.leewaySeconds ?? 60) * 1000;
  let held: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return async () => {
    if (held && now() < held.expiresAt - leewayMs) return held.token;
    pending ??= (async () => {
      try {
        const token = await fetchToken();
        held = { token, expiresAt: expiryOf(token) ?? Number.POSITIVE_INFINITY };
        return token;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
}

/** A JWT's `exp` in milliseconds, or undefined when the token has none (or is no JWT). */
export function expiryOf(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const { exp } = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='))) as {
      exp?: unknown;
    };
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
