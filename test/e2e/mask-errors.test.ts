import { inspect } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidHostResultError } from '../../lib/errors/index.ts';
import { createSwitchboard, type HostAgentDefinition, type Switchboard } from '../../lib/index.ts';
import { errorFrame } from '../../lib/transport/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import type { Frame } from '../support/ws-client.ts';

/** What the logger was called with, errors included (JSON.stringify drops an error's message). */
const logText = (calls: unknown[][]) => inspect(calls, { depth: 10 });

/** What the agents reveal when they fail: it must reach the log, and a masked caller never. */
const SECRET = 'db-password=hunter2';

const agents: HostAgentDefinition[] = [
  // An unusable result: its detail names the field.
  { info: { id: 'unusable' }, invoke: async () => ({ status: `bogus ${SECRET}` }) },
  // A failure of its own: its message is the agent's.
  {
    info: { id: 'throws' },
    invoke: async () => {
      throw new Error(SECRET);
    },
  },
  // Answers; its feedback hook fails with a message of its own.
  {
    info: { id: 'rated' },
    invoke: async () => ({ content: 'ok' }),
    feedback: () => {
      throw new Error(SECRET);
    },
  },
];

/** The server's `resolveContext` is broken for one user: a 500 `invalid_context` naming what it returned. */
function server(maskServerErrors: boolean): Switchboard {
  const app = createSwitchboard({
    maskServerErrors,
    resolveContext: (claims) =>
      claims.user === 'broken'
        ? { user: { id: 'broken' }, data: { tenant: { secret: SECRET } } }
        : { user: { id: String(claims.user) }, data: {} },
  });
  for (const agent of agents) app.registerHostAgent(agent);
  return app;
}

const tokens = (token: string) => ({ user: token });
let masked: Sandbox;
let plain: Sandbox;
const sid = sessionIds('mask');

beforeAll(async () => {
  [masked, plain] = await Promise.all([
    testSandbox({ app: server(true), tokens }),
    testSandbox({ app: server(false), tokens }),
  ]);
});
afterAll(async () => {
  await Promise.all([masked?.close(), plain?.close()]);
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function as(sandbox: Sandbox, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Sends a message to `agent` and returns the turn's `session.error` data and the run as GET shows it. */
async function failedTurn(sandbox: Sandbox, agent: string) {
  const id = sid(agent);
  const sent = await as(sandbox, 'alice', 'POST', '/api/chat', {
    session_id: id,
    agent_id: agent,
    content: 'hi',
  });
  expect(sent.status).toBe(202);
  let events: Frame[] = [];
  await expect
    .poll(async () => {
      const res = await as(sandbox, 'alice', 'GET', `/api/sessions/${id}/events?after=0&wait=1`);
      events = res.json.events as Frame[];
      return events.some((e) => e.type === 'session.status_idle');
    }, queued('the failed turn'))
    .toBe(true);
  const error = events.find((e) => e.type === 'session.error')?.data as Record<string, unknown>;
  const run = (await as(sandbox, 'alice', 'GET', `/api/sessions/${id}`)).json.last_run as Record<
    string,
    unknown
  >;
  return { error, run };
}

describe('maskServerErrors', () => {
  it.each([
    ['returns an unusable result', 'unusable', 'invalid_host_result', 'unusable result at status'],
    ['throws', 'throws', 'agent_error', SECRET],
  ])(
    'makes the 500 of a turn whose agent %s generic in session.error and on the run; the detail is logged',
    async (_what, agent, code, detail) => {
      const logged = vi.spyOn(Logger.prototype, 'error');
      const { error, run } = await failedTurn(masked, agent);
      expect(error).toEqual({ code, message: 'Something went wrong on our side.', status: 500 });
      expect(run.error).toEqual({ code, message: 'Something went wrong on our side.' });
      expect(logText(logged.mock.calls)).toContain(detail);
    },
  );

  it('leaves the detail of an unusable result in session.error without it', async () => {
    const { error } = await failedTurn(plain, 'unusable');
    expect(error).toMatchObject({ code: 'invalid_host_result', status: 500 });
    expect(String(error.message)).toContain('status');
  });

  it('answers a chat request that waits for an unusable result with the 500, generic when masked', async () => {
    const body = (id: string) => ({ session_id: id, agent_id: 'unusable', content: 'hi', wait_ms: 15_000 });
    const hidden = await as(masked, 'alice', 'POST', '/api/chat', body(sid('wait-masked')));
    expect(hidden.status).toBe(500);
    expect(hidden.json).toEqual({
      error: { code: 'invalid_host_result', message: 'Something went wrong on our side.' },
    });
    const shown = await as(plain, 'alice', 'POST', '/api/chat', body(sid('wait-plain')));
    expect(shown.status).toBe(500);
    expect(shown.json.error).toMatchObject({ code: 'invalid_host_result' });
    expect(JSON.stringify(shown.json)).toContain('status');
  });

  it('makes an HTTP 500’s message generic, keeping its code, and logs the detail', async () => {
    const logged = vi.spyOn(Logger.prototype, 'error');
    const res = await as(masked, 'broken', 'GET', '/api/sessions');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      error: { code: 'invalid_context', message: 'Something went wrong on our side.' },
    });
    expect(logText(logged.mock.calls)).toContain('tenant');
    const unmasked = await as(plain, 'broken', 'GET', '/api/sessions');
    expect(unmasked.status).toBe(500);
    expect(JSON.stringify(unmasked.json)).toContain('tenant');
  });

  it('fails a rating whose feedback hook threw with the hook’s message, generic when masked; the detail is logged', async () => {
    const rate = async (sandbox: Sandbox, id: string) => {
      const sent = await as(sandbox, 'alice', 'POST', '/api/chat', {
        session_id: id,
        agent_id: 'rated',
        content: 'hi',
        wait_ms: 15_000,
      });
      expect(sent.status).toBe(200);
      const listed = await as(sandbox, 'alice', 'GET', `/api/sessions/${id}/messages`);
      const answer = (listed.json.messages as { id: string; role: string }[]).find(
        (m) => m.role === 'assistant',
      );
      return as(sandbox, 'alice', 'POST', `/api/sessions/${id}/messages/${answer?.id}/feedback`, {
        rating: 'down',
      });
    };
    const logged = vi.spyOn(Logger.prototype, 'error');
    const hidden = await rate(masked, sid('rated-masked'));
    expect(hidden.status).toBe(500);
    expect(hidden.json).toEqual({
      error: { code: 'feedback_failed', message: 'Something went wrong on our side.' },
    });
    expect(logText(logged.mock.calls)).toContain(SECRET);
    const shown = await rate(plain, sid('rated-plain'));
    expect(shown.status).toBe(500);
    expect(shown.json.error).toMatchObject({ code: 'feedback_failed' });
    expect(JSON.stringify(shown.json)).toContain(SECRET);
  });

  it('makes an error frame’s 500 generic on the WebSocket, where the same mapping answers', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const error = new InvalidHostResultError(`unusable: ${SECRET}`);
    expect(errorFrame(error, logger, 'r1', { maskServerErrors: true })).toEqual({
      type: 'assistant:error',
      request_id: 'r1',
      error: {
        type: 'internal',
        code: 'invalid_host_result',
        message: 'Something went wrong on our side.',
        path: [],
      },
    });
    expect(JSON.stringify(errorFrame(error, logger, 'r1'))).toContain(SECRET);
  });
});
