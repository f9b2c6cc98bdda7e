import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityFromContext, MAX_DATA_BYTES } from '../../lib/auth/resolve.ts';
import {
  HTTP_ROUTES,
  type HttpRouteKey,
  WEBSOCKET_ROUTES,
  type WebSocketRouteKey,
} from '../../lib/contract/index.ts';
import { InvalidTokenError } from '../../lib/errors/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { ownedItems, resumeTenant, suspendTenant, tenantOwners } from '../../lib/operate/index.ts';
import { daySpend, ownerPartition, tenantPartition } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * The longest ids the claims may carry, in characters of several UTF-8 bytes, through every HTTP
 * route and WebSocket action: each answers as it would for a short id, never 5xx. A user id is at
 * most 256 characters (code points, as the schema counts them: 1 KB in 4-byte characters); a tenant
 * is bounded by the context's data (8 KB of JSON).
 */
const MAX_USER = 256;

/** The longest tenant of `char`s whose context data, `{"tenant":"…"}`, is within its bound. */
function longestTenant(char: string): string {
  const room = MAX_DATA_BYTES - Buffer.byteLength(JSON.stringify({ tenant: '' }));
  return char.repeat(Math.floor(room / Buffer.byteLength(char)));
}

/** Who each token is: in CJK (3 bytes a character), in astral characters (4 bytes), and without a tenant. */
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  cjk: { user: '用'.repeat(MAX_USER), tenant: longestTenant('租') },
  astral: { user: '𠀀'.repeat(MAX_USER), tenant: longestTenant('𠀀') },
  untenanted: { user: '名'.repeat(MAX_USER) },
};
const WHO = Object.keys(TOKENS);

const pauses = pauseAgents();
const app = createSwitchboard();
// The pausing agent, spending a little on each turn so that the spend ledgers are written.
app.registerHostAgent({
  ...pauses.definitions[0]!,
  info: { id: 'spender' },
  async invoke(input, io) {
    io.emit({ type: 'usage', usage: { costUsd: 0.01 } });
    return pauses.definitions[0]!.invoke(input, io);
  },
});

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    tokens: (token) => TOKENS[token] ?? null,
    settings: {
      budgets: { perUserDailyUsd: 100, perTenantDailyUsd: 100 },
      files: { quotaBytesPerUser: 1_000_000 },
    },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

const call = (token: string, method: string, path: string, body?: unknown, type?: string) =>
  api(sandbox.url, method, path, body, { token, type });

/** What one owner has made so far: their session's answer, their file. */
interface Made {
  answerId?: string;
  fileId?: string;
}

/**
 * Each route's request and the status it answers the owner, in the order they run: the session is
 * made first, paused on two requests; one is answered, the other withdrawn by the cancel; the
 * session is deleted last.
 */
const ROUTES: [HttpRouteKey, (made: Made) => [string, string, unknown?, string?], number][] = [
  ['GET /api/agents', () => ['GET', '/api/agents'], 200],
  [
    'POST /api/chat',
    () => ['POST', '/api/chat', { session_id: 'http', agent_id: 'spender', content: 'two' }],
    202,
  ],
  ['GET /api/sessions', () => ['GET', '/api/sessions'], 200],
  ['GET /api/sessions/{id}', () => ['GET', '/api/sessions/http'], 200],
  ['GET /api/sessions/{id}/messages', () => ['GET', '/api/sessions/http/messages'], 200],
  ['GET /api/sessions/{id}/events', () => ['GET', '/api/sessions/http/events'], 200],
  ['GET /api/sessions/{id}/events/{seq}', () => ['GET', '/api/sessions/http/events/1'], 200],
  [
    'GET /api/sessions/{id}/messages/{messageId}/content',
    (made) => ['GET', `/api/sessions/http/messages/${made.answerId}/content`],
    200,
  ],
  [
    'POST /api/sessions/{id}/messages/{messageId}/feedback',
    (made) => ['POST', `/api/sessions/http/messages/${made.answerId}/feedback`, { rating: 'up' }],
    200,
  ],
  ['GET /api/sessions/{id}/export', () => ['GET', '/api/sessions/http/export'], 200],
  ['GET /api/sessions/{id}/remembered-tools', () => ['GET', '/api/sessions/http/remembered-tools'], 200],
  [
    'DELETE /api/sessions/{id}/remembered-tools/{name}',
    () => ['DELETE', '/api/sessions/http/remembered-tools/wire_money'],
    404,
  ],
  [
    'POST /api/sessions/{id}/actions/{actionId}',
    () => ['POST', '/api/sessions/http/actions/req_wire', { decision: 'approve' }],
    202,
  ],
  ['POST /api/sessions/{id}/cancel', () => ['POST', '/api/sessions/http/cancel'], 202],
  // A host agent's turn is never carried on: the check past the gate answers, as for any owner.
  ['POST /api/sessions/{id}/continue', () => ['POST', '/api/sessions/http/continue'], 409],
  ['POST /api/files', () => ['POST', '/api/files?name=notes.txt', 'some notes', 'text/plain'], 201],
  ['GET /api/files/{id}', (made) => ['GET', `/api/files/${made.fileId}`], 200],
  ['DELETE /api/files/{id}', (made) => ['DELETE', `/api/files/${made.fileId}`], 200],
  ['DELETE /api/sessions/{id}', () => ['DELETE', '/api/sessions/http'], 202],
];

/** Each WebSocket action's frame and the answer the owner gets, in the order they run. */
const FRAMES: [WebSocketRouteKey, (made: Made) => Record<string, unknown>, string][] = [
  [
    'assistant_message',
    () => ({ session_id: 'ws', agent_id: 'spender', content: 'two' }),
    'assistant:accepted',
  ],
  ['assistant_join_session', () => ({ session_id: 'ws' }), 'assistant:joined'],
  [
    'assistant_feedback',
    (made) => ({ session_id: 'ws', message_id: made.answerId, rating: 'down' }),
    'assistant:feedback',
  ],
  [
    'assistant_resolve_action',
    () => ({ session_id: 'ws', action_id: 'req_wire', decision: 'approve' }),
    'assistant:resolved',
  ],
  ['assistant_cancel', () => ({ session_id: 'ws' }), 'assistant:cancelled'],
  // A host agent's turn is never carried on: the 409 nothing_to_continue, as for any owner.
  ['assistant_continue', () => ({ session_id: 'ws' }), 'assistant:error'],
];

describe('the longest ids the claims allow, in multi-byte characters', () => {
  it('are the longest: one character more is refused', () => {
    for (const { user, tenant } of Object.values(TOKENS)) {
      const data = tenant === undefined ? {} : { tenant };
      expect(identityFromContext({ user: { id: user }, data })).toEqual({ user, data });
      expect(() => identityFromContext({ user: { id: `${user}x` }, data })).toThrow(InvalidTokenError);
      if (tenant !== undefined)
        expect(() =>
          identityFromContext({ user: { id: user }, data: { tenant: `${tenant}${[...tenant].at(-1)}` } }),
        ).toThrow(InvalidTokenError);
    }
  });

  it('covers every HTTP route and WebSocket action', () => {
    expect(ROUTES.map(([route]) => route).sort()).toEqual([...HTTP_ROUTES].sort());
    expect(FRAMES.map(([action]) => action).sort()).toEqual([...WEBSOCKET_ROUTES].sort());
  });

  it.each(WHO)('answer %s on every HTTP route as for any owner, never 5xx', async (who) => {
    const made: Made = {};
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${who}`);
    try {
      for (const [route, requestOf, status] of ROUTES) {
        const [method, path, body, type] = requestOf(made);
        const res = await call(who, method, path, body, type);
        expect({ route, status: res.status }, res.text).toEqual({ route, status });
        if (route === 'POST /api/chat') {
          made.answerId = res.json.assistant_message_id as string;
          expect((await socket.request({ action: 'assistant_join_session', session_id: 'http' })).type).toBe(
            'assistant:joined',
          );
          await socket.waitFor(turnEnded(res.json.run_id), 'the turn to pause');
        }
        if (route === 'GET /api/sessions')
          expect((res.json.sessions as { id: string }[]).map((s) => s.id)).toContain('http');
        if (route === 'POST /api/sessions/{id}/actions/{actionId}')
          await socket.waitFor(turnEnded(res.json.run_id), 'the answer’s turn to end');
        if (route === 'POST /api/files') made.fileId = res.json.id as string;
      }
    } finally {
      await socket.close();
    }
  });

  it.each(WHO)('answer %s on every WebSocket action as for any owner, never an error', async (who) => {
    const made: Made = {};
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${who}`);
    try {
      for (const [action, frameOf, type] of FRAMES) {
        const answer = await socket.request({ action, ...frameOf(made) });
        expect({ action, type: answer.type }, JSON.stringify(answer)).toEqual({ action, type });
        if (action === 'assistant_message') {
          made.answerId = answer.assistant_message_id as string;
          await socket.waitFor(turnEnded(answer.run_id), 'the turn to pause');
        }
        if (action === 'assistant_resolve_action')
          await socket.waitFor(turnEnded(answer.run_id), 'the answer’s turn to end');
      }
      // API Gateway's own error frames (`{"message": "Internal server error", …}`) have no type.
      expect(socket.frames.filter((f: Frame) => f.type === undefined)).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  it.each(WHO)(
    'keep %s’s items findable by the operator tools: owner index, ledgers, suspension',
    async (who) => {
      const { user, tenant } = TOKENS[who]!;
      const owner = { owner: user, ...(tenant !== undefined && { tenant }) };
      const sent = await call(who, 'POST', '/api/chat', {
        session_id: 'ops',
        agent_id: 'spender',
        content: 'hi',
      });
      expect(sent.status).toBe(202);
      const file = await call(who, 'POST', '/api/files?name=kept.txt', 'kept', 'text/plain');
      expect(file.status).toBe(201);
      const owned = await ownedItems(sandbox.runtime, owner);
      expect(owned.sessions.length).toBeGreaterThan(0);
      expect(owned.files).toContain(file.json.id);
      const now = Date.now();
      await expect
        .poll(() => daySpend(sandbox.runtime, ownerPartition(tenant, user), now), { timeout: 15_000 })
        .toBeGreaterThan(0);
      if (tenant === undefined) return;
      expect(await daySpend(sandbox.runtime, tenantPartition(tenant), now)).toBeGreaterThan(0);
      expect(await tenantOwners(sandbox.runtime, tenant)).toEqual([owner]);
      await suspendTenant(sandbox.runtime, tenant, 'a test');
      try {
        const refused = await call(who, 'POST', '/api/chat', { session_id: 'ops', content: 'again' });
        expect({ status: refused.status, code: (refused.json.error as { code?: string })?.code }).toEqual({
          status: 403,
          code: 'tenant_suspended',
        });
      } finally {
        await resumeTenant(sandbox.runtime, tenant);
      }
    },
  );
});
