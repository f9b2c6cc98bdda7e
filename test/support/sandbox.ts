import { sessionRef } from '../../lib/auth/index.ts';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/sandbox.ts';

/**
 * Rate limits far above what any suite sends (they poll the API every 50 ms while they wait), so
 * that no suite meets the production defaults by accident. The limiter still counts every request;
 * a suite that tests limits (test/e2e/rate-limits.test.ts) passes its own `limits`.
 */
export const TEST_LIMITS = {
  perUser: { requests: 1_000_000, windowSeconds: 60 },
  perConnection: { requests: 1_000_000, windowSeconds: 60 },
};

/** Starts a sandbox on free ports for one test file. */
export async function testSandbox(options: SandboxOptions): Promise<Sandbox> {
  return startSandbox({
    port: 0,
    logLevel: 'ERROR',
    visibilityTimeoutSeconds: 2,
    ...options,
    settings: { limits: TEST_LIMITS, ...options.settings },
  });
}

/** A JSON request to the sandbox's HTTP API. */
export async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  return { status: res.status, json, text };
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
  return sessionRef({ user, data: tenant === undefined ? {} : { tenant } }, id);
}
