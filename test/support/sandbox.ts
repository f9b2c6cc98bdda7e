import { createHash } from 'node:crypto';
import { sessionRef, withScope } from '../../lib/auth/index.ts';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/sandbox.ts';
import { TEST_LIMITS } from './limits.ts';

export { TEST_LIMITS };

/**
 * The session-ref key of every test sandbox, so a test can name a session by its ref ({@link refOf}).
 * A deployment's is its own secret.
 */
export const TEST_REF_KEY = 'a test sandbox key, never a deployment one: 32 bytes or more';

/** Starts a sandbox on free ports for one test file. */
export async function testSandbox(options: SandboxOptions): Promise<Sandbox> {
  return startSandbox({
    port: 0,
    logLevel: 'ERROR',
    visibilityTimeoutSeconds: 2,
    refKey: TEST_REF_KEY,
    ...options,
    settings: { limits: TEST_LIMITS, ...options.settings },
  });
}

/**
 * A request to the sandbox's HTTP API: a JSON body (or a string sent as `type`), as the caller
 * `token` names (`Authorization: Bearer`) when one is given. The answer's JSON, `{}` when it has none.
 */
export async function api<J = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string; type?: string } = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
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

/** The base64 of the bytes' SHA-256: what `POST /api/files` takes as `sha256` for an upload URL. */
export function sha256Of(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('base64');
}

/** Session ids unique within a test file: `${prefix}-${name}-${n}`, so no test meets another's session. */
export function sessionIds(prefix: string): (name: string) => string {
  let n = 0;
  return (name) => {
    n += 1;
    return `${prefix}-${name}-${n}`;
  };
}

/**
 * The ref under which a session is stored, and which its agent sees as `conversationId`: the
 * host's id in its owner's scope (the sandbox's anonymous user unless a user is named).
 */
export function refOf(id: string, user = 'anonymous', tenant?: string): string {
  const identity = { user, data: tenant === undefined ? {} : { tenant } };
  return sessionRef(withScope(new TextEncoder().encode(TEST_REF_KEY), identity), id);
}
