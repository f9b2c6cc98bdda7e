import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { sessionRef, withScope } from '../../lib/auth/index.ts';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/sandbox.ts';
import { TEST_LIMITS } from './limits.ts';
import { queued } from './wait.ts';

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

/** An event of a session's log as `GET /api/sessions/{id}/events` answers it. */
export type LoggedEvent = { type: string; run_id?: unknown; seq?: number; data: Record<string, unknown> };

/**
 * The events of one run from the session's log (what an HTTP host reads), once the run has ended
 * (idle, or waiting on a request): polled until then.
 */
export async function runEvents(base: string, sessionId: string, runId: unknown): Promise<LoggedEvent[]> {
  let events: LoggedEvent[] = [];
  const ended = (e: LoggedEvent) =>
    e.type === 'session.status_idle' || e.type === 'session.status_requires_action';
  await expect
    .poll(
      async () => {
        const res = await api(base, 'GET', `/api/sessions/${sessionId}/events?after=0&limit=1000`);
        events = (res.json.events as LoggedEvent[]).filter((e) => e.run_id === runId);
        return events.some(ended);
      },
      queued(`the end of run ${String(runId)}`),
    )
    .toBe(true);
  return events;
}
