import { sessionRef, withScope } from '../../lib/auth/index.ts';

/**
 * The session-ref key of every sandbox the tests and the bench start, so that they can name a
 * session by its ref ({@link refOf}). A deployment's is its own secret.
 */
export const TEST_REF_KEY = 'a test sandbox key, never a deployment one: 32 bytes or more';

/**
 * A request to the sandbox's HTTP API: a JSON body (or a string sent as `type`), as the caller
 * `token` names (`Authorization: Bearer`) when one is given. The answer's JSON, `{}` when it has none.
 */
export async function api<J = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string; type?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...options.headers,
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(body !== undefined && { 'content-type': options.type ?? 'application/json' }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = {} as J;
  try {
    json = JSON.parse(text) as J;
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}

/**
 * The ref under which a session is stored, and which its agent sees as `conversationId`: the
 * host's id in its owner's scope (the sandbox's anonymous user unless a user is named).
 */
export function refOf(id: string, user = 'anonymous', tenant?: string): string {
  const identity = { user, data: tenant === undefined ? {} : { tenant } };
  return sessionRef(withScope(new TextEncoder().encode(TEST_REF_KEY), identity), id);
}
