import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { TEST_LIMITS } from '../../bench/support/limits.ts';
import { api, refOf, TEST_REF_KEY } from '../../bench/support/sandbox-api.ts';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/sandbox.ts';
import { queued } from './wait.ts';

// The sandbox's client and settings are the bench's (bench/support), which depends on nothing of test/.
export { api, refOf, TEST_LIMITS, TEST_REF_KEY };

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
