import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGUI_REQUESTS,
  type AguiRequestKey,
  ENTRY_POINTS,
  HTTP_ROUTES,
  type HttpRouteKey,
  WEBSOCKET_ROUTES,
  type WebSocketRouteKey,
} from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

/**
 * Every entry point (each HTTP route, WebSocket action and AG-UI request: ENTRY_POINTS), for the
 * owner, another user of the same tenant, the same user id in another tenant, another tenant, a
 * reviewer (of the same tenant, whom the agent's `authorizeResolve` lets answer approvals only), and
 * a caller without a token. Alice owns a paused session and a file; nobody else reaches either, by
 * her id or by her ref, and nothing of hers changes; the reviewer answers an approval on every door
 * that answers one and is shown what HTTP shows her: its outcome, nothing else of the session.
 */
const pauses = pauseAgents();
const app = createSwitchboard();
app.registerHostAgent({
  ...pauses.definitions[0]!,
  hitl: {
    authorizeResolve: ({ user, owner, action }) =>
      user === owner || (user === 'reviewer' && action.type === 'tool_approval'),
  },
});
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  'alice-globex': { user: 'alice', tenant: 'globex' },
  mallory: { user: 'mallory', tenant: 'evilcorp' },
  reviewer: { user: 'reviewer', tenant: 'acme' },
};
const OTHERS = ['bob', 'alice-globex', 'mallory'] as const;
const SESSION = 'matrix';
const REF = refOf(SESSION, 'alice', 'acme');
const ACTION = 'req_wire';

let sandbox: Sandbox;
let fileId: string;
/** Alice's answer, the message her request was asked on. */
let answerId: string;
/** The request id of alice's message: an AG-UI `runId` that names her run. */
let aliceRequestId: string;

/** An answer's body: an error's code, or a route's own fields. */
type Answer = { error?: { code?: string }; [field: string]: unknown };

const call = (token: string | undefined, method: string, path: string, body?: unknown, type?: string) =>
  api<Answer>(sandbox.url, method, path, body, { token, type });

/** A request of each route, naming alice's session (by `name`: her id or her ref) and file. */
function requestOf(route: HttpRouteKey, name: string): [string, string, unknown?, string?] {
  const requests: Record<HttpRouteKey, [string, string, unknown?, string?]> = {
    'GET /api/agents': ['GET', '/api/agents'],
    'POST /api/chat': ['POST', '/api/chat', { session_id: name, content: 'hello' }],
    'GET /api/sessions': ['GET', '/api/sessions'],
    'GET /api/sessions/{id}': ['GET', `/api/sessions/${name}`],
    'GET /api/sessions/{id}/messages': ['GET', `/api/sessions/${name}/messages`],
    'GET /api/sessions/{id}/events': ['GET', `/api/sessions/${name}/events`],
    'GET /api/sessions/{id}/events/{seq}': ['GET', `/api/sessions/${name}/events/1`],
    'POST /api/sessions/{id}/actions/{actionId}': [
      'POST',
      `/api/sessions/${name}/actions/${ACTION}`,
      { decision: 'approve' },
    ],
    'POST /api/sessions/{id}/cancel': ['POST', `/api/sessions/${name}/cancel`],
    'POST /api/sessions/{id}/continue': ['POST', `/api/sessions/${name}/continue`, { id: 'continue-1' }],
    'DELETE /api/sessions/{id}': ['DELETE', `/api/sessions/${name}`],
    'POST /api/files': ['POST', '/api/files?name=x.txt', 'text', 'text/plain'],
    'GET /api/files/{id}': ['GET', `/api/files/${fileId}`],
    'DELETE /api/files/{id}': ['DELETE', `/api/files/${fileId}`],
    'POST /api/sessions/{id}/messages/{messageId}/feedback': [
      'POST',
      `/api/sessions/${name}/messages/${answerId}/feedback`,
      { rating: 'down' },
    ],
    'GET /api/sessions/{id}/export': ['GET', `/api/sessions/${name}/export`],
    'GET /api/sessions/{id}/messages/{messageId}/content': [
      'GET',
      `/api/sessions/${name}/messages/${answerId}/content`,
    ],
    'GET /api/sessions/{id}/remembered-tools': ['GET', `/api/sessions/${name}/remembered-tools`],
    'DELETE /api/sessions/{id}/remembered-tools/{name}': [
      'DELETE',
      `/api/sessions/${name}/remembered-tools/wire_money`,
    ],
  };
  return requests[route];
}

/** What someone other than alice gets on each route: never anything of hers. */
const OTHER_ANSWERS: Record<HttpRouteKey, (name: string) => { status: number; code?: string }> = {
  // The server's agents, the same for every caller (checked below): nothing of alice's.
  'GET /api/agents': () => ({ status: 200 }),
  // By her ref nothing can be created (by her id a message opens the caller's own session: the last test).
  'POST /api/chat': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions': () => ({ status: 200 }),
  'GET /api/sessions/{id}': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/messages': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/events': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/events/{seq}': () => ({ status: 404, code: 'session_not_found' }),
  'POST /api/sessions/{id}/actions/{actionId}': () => ({ status: 404, code: 'session_not_found' }),
  'POST /api/sessions/{id}/cancel': () => ({ status: 404, code: 'session_not_found' }),
  'POST /api/sessions/{id}/continue': () => ({ status: 404, code: 'session_not_found' }),
  'DELETE /api/sessions/{id}': () => ({ status: 404, code: 'session_not_found' }),
  'POST /api/files': () => ({ status: 201 }),
  'GET /api/files/{id}': () => ({ status: 404, code: 'file_not_found' }),
  'DELETE /api/files/{id}': () => ({ status: 404, code: 'file_not_found' }),
  'POST /api/sessions/{id}/messages/{messageId}/feedback': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/export': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/messages/{messageId}/content': () => ({ status: 404, code: 'session_not_found' }),
  'GET /api/sessions/{id}/remembered-tools': () => ({ status: 404, code: 'session_not_found' }),
  'DELETE /api/sessions/{id}/remembered-tools/{name}': () => ({ status: 404, code: 'session_not_found' }),
};

/** What `GET /api/agents` answers every caller: the one registered agent, nothing of a session. */
const AGENTS = { agents: [{ id: 'pauser' }], default_agent_id: 'pauser' };

/** What alice sees of her own session: the messages, the open request, the file. */
async function aliceState() {
  const session = await call('alice', 'GET', `/api/sessions/${SESSION}`);
  const messages = await call('alice', 'GET', `/api/sessions/${SESSION}/messages`);
  const file = await call('alice', 'GET', `/api/files/${fileId}`);
  return {
    status: session.json.status,
    pending: (session.json.pending_actions as { id: string }[]).map((a) => a.id),
    messages: (messages.json.messages as { id: string; content: string; feedback?: unknown }[]).map((m) => [
      m.id,
      m.content,
      m.feedback ?? null,
    ]),
    file: file.status,
  };
}

beforeAll(async () => {
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
  const alice = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
  const accepted = await alice.request({
    action: 'assistant_message',
    session_id: SESSION,
    agent_id: 'pauser',
    content: 'wire',
  });
  await alice.waitFor((f) => f.type === 'session.status_requires_action' && f.run_id === accepted.run_id);
  answerId = accepted.assistant_message_id as string;
  aliceRequestId = accepted.request_id as string;
  await alice.close();
  const uploaded = await call('alice', 'POST', '/api/files?name=secret.txt', 'private', 'text/plain');
  fileId = uploaded.json.id as string;
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the access matrix: every route and action, for every kind of caller', () => {
  it('names every entry point: each HTTP route, WebSocket action and AG-UI request', () => {
    const rows = [
      ...Object.keys(OTHER_ANSWERS),
      ...Object.keys(WS_OTHER).map((action) => `ws ${action}`),
      ...Object.keys(AGUI_BODIES).map((kind) => `agui ${kind}`),
    ];
    expect(rows.sort()).toEqual([...ENTRY_POINTS].sort());
  });

  it('refuses a caller without a token on every route with API Gateway’s 401, and the WebSocket upgrade', async () => {
    for (const route of HTTP_ROUTES) {
      const [method, path, body, type] = requestOf(route, SESSION);
      const { status, json } = await call(undefined, method, path, body, type);
      expect({ status, json }, route).toEqual({
        status: 401,
        json: { message: 'Unauthorized' },
      });
    }
    await expect(TestSocket.open(sandbox.wsUrl)).rejects.toThrow(/upgrade refused: 40[13]/);
    for (const kind of AGUI_REQUESTS) {
      const res = await agui(undefined, AGUI_BODIES[kind](REF));
      expect({ status: res.status, code: res.json.error?.code }, kind).toEqual({
        status: 401,
        code: 'unauthorized',
      });
    }
  });

  it.each(OTHERS)(
    'gives %s nothing of alice’s on every AG-UI request, by her id or her ref',
    async (other) => {
      const before = await aliceState();
      for (const kind of AGUI_REQUESTS) {
        for (const name of [SESSION, REF]) {
          // By her id a message or a run opens the caller's own session (as POST /api/chat does).
          if (kind !== 'resume' && name === SESSION) continue;
          const res = await agui(other, AGUI_BODIES[kind](name));
          expect(
            { status: res.status, code: res.json.error?.code },
            `agui ${kind} as ${other} naming ${name}`,
          ).toEqual({ status: 404, code: 'session_not_found' });
          expect(res.text, `agui ${kind} as ${other}`).not.toMatch(
            /pauser|req_wire|wire_money|I need your OK|wire/,
          );
        }
      }
      expect(await aliceState()).toEqual(before);
    },
  );

  it.each(OTHERS)('gives %s nothing of alice’s, by her id or her ref, on every HTTP route', async (other) => {
    const before = await aliceState();
    for (const route of HTTP_ROUTES) {
      for (const name of [SESSION, REF]) {
        if (route === 'POST /api/chat' && name === SESSION) continue;
        const [method, path, body, type] = requestOf(route, name);
        const expected = OTHER_ANSWERS[route](name);
        const res = await call(other, method, path, body, type);
        expect(res.status, `${route} as ${other} naming ${name}`).toBe(expected.status);
        if (expected.code) expect(res.json.error?.code, `${route} as ${other}`).toBe(expected.code);
        // Nothing in any answer names alice's session, her agent or her request; the list of agents
        // names the agent, as it does for anyone, and is the same for everyone.
        if (route === 'GET /api/agents') expect(res.json).toEqual(AGENTS);
        else
          expect(JSON.stringify(res.json), `${route} as ${other}`).not.toMatch(
            /pauser|req_wire|wire_money|secret/,
          );
        if (route === 'GET /api/sessions') {
          expect((res.json.sessions as { ref: string }[]).map((s) => s.ref)).not.toContain(REF);
        }
      }
    }
    expect(await aliceState()).toEqual(before);
  });

  it.each(OTHERS)('gives %s nothing of alice’s on every WebSocket action', async (other) => {
    const before = await aliceState();
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${other}`);
    try {
      for (const action of WEBSOCKET_ROUTES) {
        for (const name of [SESSION, REF]) {
          if (action === 'assistant_message' && name === SESSION) continue;
          const answer = await socket.request({ action, ...WS_FRAMES[action](name) });
          const expected = WS_OTHER[action](name);
          expect(answer.type, `${action} as ${other} naming ${name}`).toBe(expected.type);
          if (expected.errorType) expect((answer.error as Frame)?.type, action).toBe(expected.errorType);
          expect(JSON.stringify(answer), action).not.toMatch(/pauser|req_wire|wire_money/);
        }
      }
      // No event of alice's session reached this socket: none carries her agent's words or request.
      expect(JSON.stringify(socket.frames)).not.toMatch(/req_wire|wire_money|I need your OK/);
    } finally {
      await socket.close();
    }
    expect(await aliceState()).toEqual(before);
  });

  it('gives the reviewer nothing of alice’s on every door but the answer to an approval', async () => {
    const before = await aliceState();
    for (const route of HTTP_ROUTES) {
      // The doors that answer a request: the reviewer's own rows, below.
      if (route === 'POST /api/sessions/{id}/actions/{actionId}') continue;
      for (const name of [SESSION, REF]) {
        if (route === 'POST /api/chat' && name === SESSION) continue;
        const [method, path, body, type] = requestOf(route, name);
        const expected = OTHER_ANSWERS[route](name);
        const res = await call('reviewer', method, path, body, type);
        expect(res.status, `${route} as the reviewer naming ${name}`).toBe(expected.status);
        if (expected.code) expect(res.json.error?.code, route).toBe(expected.code);
        if (route === 'GET /api/agents') expect(res.json).toEqual(AGENTS);
        else expect(JSON.stringify(res.json), route).not.toMatch(/pauser|req_wire|wire_money|secret/);
      }
    }
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=reviewer`);
    try {
      for (const action of WEBSOCKET_ROUTES) {
        if (action === 'assistant_resolve_action') continue;
        for (const name of [SESSION, REF]) {
          if (action === 'assistant_message' && name === SESSION) continue;
          const answer = await socket.request({ action, ...WS_FRAMES[action](name) });
          expect(answer.type, `${action} as the reviewer naming ${name}`).toBe(WS_OTHER[action](name).type);
          expect(JSON.stringify(answer), action).not.toMatch(/pauser|req_wire|wire_money/);
        }
      }
      expect(JSON.stringify(socket.frames)).not.toMatch(/req_wire|wire_money|I need your OK/);
    } finally {
      await socket.close();
    }
    for (const kind of AGUI_REQUESTS) {
      if (kind === 'resume') continue;
      const res = await agui('reviewer', AGUI_BODIES[kind](REF));
      expect({ status: res.status, code: res.json.error?.code }, `agui ${kind}`).toEqual({
        status: 404,
        code: 'session_not_found',
      });
      expect(res.text, `agui ${kind}`).not.toMatch(/pauser|req_wire|wire_money|I need your OK/);
    }
    expect(await aliceState()).toEqual(before);
  });

  it('lets the owner do everything, by her id and by her ref', async () => {
    expect(await call('alice', 'GET', '/api/agents')).toMatchObject({ status: 200, json: AGENTS });
    for (const route of [
      'GET /api/sessions/{id}',
      'GET /api/sessions/{id}/messages',
      'GET /api/sessions/{id}/events',
      'GET /api/sessions/{id}/events/{seq}',
      'GET /api/sessions/{id}/export',
      'GET /api/sessions/{id}/messages/{messageId}/content',
      'GET /api/sessions/{id}/remembered-tools',
    ] as const) {
      for (const name of [SESSION, REF]) {
        const [method, path] = requestOf(route, name);
        expect((await call('alice', method, path)).status, `${route} ${name}`).toBe(200);
      }
    }
    // A host agent's session remembers no tool: there is nothing of hers to forget.
    for (const name of [SESSION, REF]) {
      const [method, path] = requestOf('DELETE /api/sessions/{id}/remembered-tools/{name}', name);
      expect(await call('alice', method, path), name).toMatchObject({
        status: 404,
        json: { error: { code: 'tool_not_remembered' } },
      });
    }
    // Her own run, posted again through AG-UI, streams from its start.
    const reposted = await agui('alice', AGUI_BODIES.repost(REF));
    expect(reposted.status).toBe(200);
    expect(reposted.text).toMatch(/RUN_STARTED[\s\S]*I need your OK/);
    const [fm, fp, fb] = requestOf('POST /api/sessions/{id}/messages/{messageId}/feedback', REF);
    expect(await call('alice', fm, fp, fb)).toMatchObject({ status: 200, json: { rating: 'down' } });
    const listed = await call('alice', 'GET', '/api/sessions');
    expect((listed.json.sessions as { ref: string }[]).map((s) => s.ref)).toContain(REF);
    expect((await call('alice', 'GET', `/api/files/${fileId}`)).status).toBe(200);
    expect((await call('alice', 'DELETE', `/api/files/${fileId}`)).status).toBe(200);
    expect((await call('alice', 'GET', `/api/files/${fileId}`)).status).toBe(404);
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
    try {
      expect((await socket.request({ action: 'assistant_join_session', session_id: REF })).type).toBe(
        'assistant:joined',
      );
      // She answers her request by her ref; then her session is idle, and a cancel reaches it with nothing to do.
      const [method, path, body] = requestOf('POST /api/sessions/{id}/actions/{actionId}', REF);
      const answered = await call('alice', method, path, body);
      expect(answered.status).toBe(202);
      await socket.waitFor(
        (f) => f.type === 'session.status_idle' && f.run_id === answered.json.run_id,
        'the answer’s turn to end',
      );
      const cancelled = await call('alice', 'POST', `/api/sessions/${SESSION}/cancel`);
      expect(cancelled).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_cancel' } } });
      // Her host agent's turn cannot be continued: the gate lets her in, the check refuses.
      for (const name of [SESSION, REF]) {
        const [cm, cp, cb] = requestOf('POST /api/sessions/{id}/continue', name);
        const continued = await call('alice', cm, cp, cb);
        expect(continued).toMatchObject({ status: 409, json: { error: { code: 'nothing_to_continue' } } });
      }
      expect((await call('alice', 'DELETE', `/api/sessions/${SESSION}`)).status).toBe(202);
      expect((await call('alice', 'GET', `/api/sessions/${SESSION}`)).status).toBe(404);
    } finally {
      await socket.close();
    }
  });
});

describe('the same id as alice’s, used by someone else', () => {
  it.each(OTHERS)('opens %s’s own session, which alice never sees', async (other) => {
    const before = await callState(other);
    const sent = await call(other, 'POST', '/api/chat', { session_id: SESSION, content: 'mine' });
    expect(sent.status).toBe(202);
    const own = await call(other, 'GET', `/api/sessions/${SESSION}`);
    expect(own.json.ref).toBe(refOf(SESSION, TOKENS[other]!.user, TOKENS[other]!.tenant));
    expect(before).toBe(404);
  });
});

/** Whether a caller has a session of the id (its GET status). */
async function callState(token: string): Promise<number> {
  return (await call(token, 'GET', `/api/sessions/${SESSION}`)).status;
}

/** A frame of each action naming alice's session (by her id or her ref). */
const WS_FRAMES: Record<WebSocketRouteKey, (name: string) => Record<string, unknown>> = {
  assistant_message: (name) => ({ session_id: name, content: 'hello' }),
  assistant_join_session: (name) => ({ session_id: name }),
  assistant_resolve_action: (name) => ({ session_id: name, action_id: ACTION, decision: 'approve' }),
  assistant_cancel: (name) => ({ session_id: name }),
  assistant_continue: (name) => ({ session_id: name }),
  assistant_feedback: (name) => ({ session_id: name, message_id: answerId, rating: 'down' }),
};

/** What someone other than alice gets on each action. */
const WS_OTHER: Record<WebSocketRouteKey, (name: string) => { type: string; errorType?: string }> = {
  assistant_message: () => ({ type: 'assistant:error', errorType: 'not_found' }),
  assistant_join_session: () => ({ type: 'assistant:error', errorType: 'not_found' }),
  assistant_resolve_action: () => ({ type: 'assistant:error', errorType: 'not_found' }),
  assistant_cancel: () => ({ type: 'assistant:error', errorType: 'not_found' }),
  assistant_continue: () => ({ type: 'assistant:error', errorType: 'not_found' }),
  assistant_feedback: () => ({ type: 'assistant:error', errorType: 'not_found' }),
};

/** An AG-UI request of each kind naming alice's session (by her id or her ref). */
const AGUI_BODIES: Record<AguiRequestKey, (name: string) => Record<string, unknown>> = {
  run: (name) => ({
    threadId: name,
    runId: `run-${name.length}-${Math.random()}`,
    messages: [{ id: 'm1', role: 'user', content: 'hello' }],
  }),
  repost: (name) => ({
    threadId: name,
    runId: aliceRequestId,
    messages: [{ id: 'm1', role: 'user', content: 'hello' }],
  }),
  resume: (name) => ({
    threadId: name,
    runId: `resume-${Math.random()}`,
    messages: [],
    resume: [{ interruptId: ACTION, status: 'cancelled' }],
  }),
};

/** A request to the AG-UI endpoint, as `token`'s holder. */
const agui = (token: string | undefined, body: unknown) =>
  api<Answer>(sandbox.aguiUrl, 'POST', '/pauser', body, { token });

describe('another owner’s session answers exactly as a missing one', () => {
  /** An answer with the session's name in it replaced, so two answers can be compared whole. */
  const scrub = (answer: unknown, name: string) => JSON.stringify(answer).replaceAll(name, '<id>');
  const MISSING = refOf('missing', 'alice', 'acme');

  it.each(OTHERS)('to %s, on every door that answers a request', async (other) => {
    const doors: Record<string, (ref: string) => Promise<unknown>> = {
      'POST /api/sessions/{id}/actions/{actionId}': async (ref) => {
        const [method, path, body] = requestOf('POST /api/sessions/{id}/actions/{actionId}', ref);
        const res = await call(other, method, path, body);
        return { status: res.status, json: res.json };
      },
      'ws assistant_resolve_action': async (ref) => {
        const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${other}`);
        try {
          const { id: _id, ...answer } = await socket.request({
            action: 'assistant_resolve_action',
            ...WS_FRAMES.assistant_resolve_action(ref),
          });
          return answer;
        } finally {
          await socket.close();
        }
      },
      'agui resume': async (ref) => {
        const res = await agui(other, { ...AGUI_BODIES.resume(ref), runId: 'same-run' });
        return { status: res.status, json: res.json };
      },
    };
    for (const [door, ask] of Object.entries(doors)) {
      const foreign = await ask(REF);
      const missing = await ask(MISSING);
      expect(scrub(foreign, SESSION), door).toEqual(scrub(missing, 'missing'));
      expect(JSON.stringify(foreign), door).toMatch(/session_not_found/);
      expect(JSON.stringify(foreign), door).not.toMatch(/question|approval|cancelled|pauser|req_wire|~/);
    }
  });
});

describe('what the reviewer is shown, on every door that answers a request', () => {
  /** The events of an AG-UI stream. */
  const eventsOf = (text: string) =>
    text
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice('data: '.length)) as Record<string, unknown>);

  /** Each door answering `action` of alice's session `name` as the reviewer: the answer that door shows her. */
  const doors: Record<string, (name: string, action: string, answer: object) => Promise<unknown>> = {
    'POST /api/sessions/{id}/actions/{actionId}': async (name, action, answer) => {
      const res = await call('reviewer', 'POST', `/api/sessions/${name}/actions/${action}`, answer);
      return res.status === 202 ? res.json : { status: res.status, error: res.json.error?.code };
    },
    'ws assistant_resolve_action': async (name, action, answer) => {
      const socket = await TestSocket.open(`${sandbox.wsUrl}?token=reviewer`);
      try {
        const {
          id: _id,
          type,
          ...frame
        } = await socket.request({
          action: 'assistant_resolve_action',
          session_id: name,
          action_id: action,
          ...answer,
        });
        if (type !== 'assistant:resolved') return { status: 404, error: (frame.error as Frame)?.type };
        // Nothing else of the session reaches her socket, before or after the answer's run.
        await waitForPause(name);
        expect(socket.frames.map((f) => f.type)).toEqual(['assistant:resolved']);
        return frame;
      } finally {
        await socket.close();
      }
    },
    'agui resume': async (name, action, answer) => {
      const res = await agui('reviewer', {
        threadId: name,
        runId: `review-${Math.random()}`,
        messages: [],
        resume: [{ interruptId: action, status: 'resolved', payload: answer }],
      });
      if (res.status !== 200) return { status: res.status, error: res.json.error?.code };
      const events = eventsOf(res.text);
      // RUN_STARTED, the answer's outcome, RUN_FINISHED: no text of alice's turn, no other interrupt.
      expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'CUSTOM', 'RUN_FINISHED']);
      expect(events[2]?.outcome).toEqual({ type: 'success' });
      expect(events[1]?.name).toBe('switchboard.answered');
      const { answers } = (events[1]?.value ?? { answers: [] }) as { answers: unknown[] };
      expect(answers).toHaveLength(1);
      return answers[0];
    },
  };

  /** Waits until alice's session waits on a request again (the answer's run ended). */
  async function waitForPause(name: string) {
    await expect
      .poll(async () => (await call('alice', 'GET', `/api/sessions/${name}`)).json.status, {
        timeout: 15_000,
      })
      .toBe('requires_action');
  }

  it('shows her the outcome of the approval she answered, as HTTP does, and refuses her the question', async () => {
    const alice = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
    const shown: Record<string, unknown> = {};
    try {
      for (const door of Object.keys(doors)) {
        const id = `review-${door.replace(/[^a-z]+/gi, '-')}`.slice(0, 60);
        const accepted = await alice.request({
          action: 'assistant_message',
          session_id: id,
          agent_id: 'pauser',
          content: 'two',
        });
        await alice.waitFor(
          (f) => f.type === 'session.status_requires_action' && f.run_id === accepted.run_id,
          'alice’s two requests',
        );
        const ref = refOf(id, 'alice', 'acme');
        const ask = doors[door]!;
        // The question is not hers to answer: as a missing session; by the plain id, her own scope: none.
        expect(await ask(ref, 'req_account', { answers: ['main'] }), door).toEqual({
          status: 404,
          error: door === 'ws assistant_resolve_action' ? 'not_found' : 'session_not_found',
        });
        expect(await ask(id, 'req_wire', { decision: 'approve' }), door).toMatchObject({ status: 404 });
        const answer = await ask(ref, 'req_wire', { decision: 'approve' });
        await waitForPause(id);
        // The answer took effect once; the question is still alice's to answer.
        const session = await call('alice', 'GET', `/api/sessions/${id}`);
        expect(
          (session.json.pending_actions as { id: string }[]).map((a) => a.id),
          door,
        ).toEqual(['req_account']);
        expect(JSON.stringify(answer), door).not.toMatch(/req_account|Which account|I need your OK|~/);
        // The same fields on every door: the session and run named as a placeholder.
        const { run_id, ...rest } = answer as { run_id: string };
        expect(run_id, door).toMatch(/^run_[0-9A-Z]{26}$/);
        shown[door] = JSON.parse(JSON.stringify({ ...rest, run_id: '<run>' }).replaceAll(id, '<session>'));
      }
    } finally {
      await alice.close();
    }
    const http = shown['POST /api/sessions/{id}/actions/{actionId}'];
    expect(http).toEqual({
      session_id: '<session>',
      action_id: 'req_wire',
      run_id: '<run>',
      status: 'queued',
      decision: { decision: 'approve' },
      duplicate: false,
    });
    for (const door of Object.keys(doors)) expect(shown[door], door).toEqual(http);
  });
});
