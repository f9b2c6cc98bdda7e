import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type HostAgentInput } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

const pauses = pauseAgents();
const seen: HostAgentInput[] = [];
const app = createSwitchboard();
// An agent whose requests nobody can answer (no resolveAction).
app.registerHostAgent(pauses.definitions[2]!);
app.registerHostAgent({
  ...pauses.definitions[0]!,
  info: { id: 'reviewed' },
  hitl: { authorizeResolve: ({ user, owner }) => user === owner || user === 'reviewer' },
  async invoke(input, io) {
    seen.push(input);
    return pauses.definitions[0]!.invoke(input, io);
  },
});
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  'token-alice': { user: 'alice', tenant: 'acme' },
  'token-bob': { user: 'bob', tenant: 'globex' },
  'token-alice-globex': { user: 'alice', tenant: 'globex' },
  'token-reviewer': { user: 'reviewer', tenant: 'acme' },
  'token-reviewer-globex': { user: 'reviewer', tenant: 'globex' },
};
let sandbox: Sandbox;
let alice: TestSocket;

beforeAll(async () => {
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
  alice = await TestSocket.open(`${sandbox.wsUrl}?token=token-alice`);
});
afterAll(async () => {
  await alice?.close();
  await sandbox?.close();
});

const as = (token: string | undefined, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

/** Alice sends a message over her socket and waits until its turn has ended. */
async function aliceTurn(sessionId: string, agentId: string, content: string): Promise<void> {
  const accepted = await alice.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: agentId,
    content,
  });
  await alice.waitFor(ended(accepted.run_id));
}

const ended = (runId: unknown) => turnEnded(runId);

describe('identity comes from the authoriser, and a user reaches only their own sessions', () => {
  it('takes the token alone or after Bearer, as a JWT authoriser on the Authorization header does', async () => {
    for (const authorization of ['token-alice', 'Bearer token-alice', 'bearer token-alice']) {
      const res = await fetch(`${sandbox.url}/api/sessions/i-none`, { headers: { authorization } });
      expect(res.status, authorization).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'session_not_found' } });
    }
    const unknown = await fetch(`${sandbox.url}/api/sessions/i-none`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(unknown.status).toBe(403);
  });

  it('refuses a request without a known token (401 without one, 403 for an unknown one on HTTP, the upgrade refused on WebSocket)', async () => {
    const missing = await as(undefined, 'GET', '/api/sessions/x');
    expect({ status: missing.status, json: missing.json }).toEqual({
      status: 401,
      json: { message: 'Unauthorized' },
    });
    expect(
      (await as('token-mallory', 'POST', '/api/chat', { agent_id: 'reviewed', content: 'hi' })).status,
    ).toBe(403);
    await expect(TestSocket.open(`${sandbox.wsUrl}?token=nope`)).rejects.toThrow(/403/);
  });

  it('hands the agent the user and the tenant the authoriser gave, never what the host says', async () => {
    const accepted = await alice.request({
      action: 'assistant_message',
      session_id: 'alice-1',
      agent_id: 'reviewed',
      content: 'hello',
      // A host that names another user and tenant everywhere it can speak gains nothing by it.
      metadata: { user: 'root', tenant: 'globex', sub: 'bob' },
      host_context: {
        host: { name: 'bob' },
        view: { name: 'admin', data: { user: 'bob', tenant: 'globex' } },
        extensions: { user: 'bob', tenant: 'globex', 'custom:tenant': 'globex' },
      },
    });
    await alice.waitFor(ended(accepted.run_id), 'the end of the turn');
    expect(
      seen
        .filter((input) => input.conversationId === refOf('alice-1', 'alice', 'acme'))
        .map((input) => input.context),
    ).toEqual([{ user: { id: 'alice' }, data: { tenant: 'acme' } }]);
  });

  it.each([
    ['token-bob', 'another user'],
    ['token-alice-globex', 'the same user id in another tenant'],
  ])('answers %s’s caller (%s) alice’s session exactly like a missing one, on every route', async (other) => {
    const id = `alice-2-${other}`;
    await aliceTurn(id, 'reviewed', 'hello');
    const { ref } = (await as('token-alice', 'GET', `/api/sessions/${id}`)).json as { ref: string };
    // By her id the caller reaches a session of their own scope (none); by its ref, hers, as missing.
    for (const name of [id, ref]) {
      for (const path of [
        `/api/sessions/${name}`,
        `/api/sessions/${name}/messages`,
        `/api/sessions/${name}/events`,
      ]) {
        const res = await as(other, 'GET', path);
        expect(res.status, path).toBe(404);
        expect(res.json.error).toMatchObject({ code: 'session_not_found' });
      }
      expect((await as(other, 'POST', `/api/sessions/${name}/cancel`)).status).toBe(404);
      expect((await as(other, 'DELETE', `/api/sessions/${name}`)).status).toBe(404);
      const bob = await TestSocket.open(`${sandbox.wsUrl}?token=${other}`);
      expect(await bob.request({ action: 'assistant_join_session', session_id: name })).toMatchObject({
        error: { type: 'not_found' },
      });
      expect(await bob.request({ action: 'assistant_cancel', session_id: name })).toMatchObject({
        error: { type: 'not_found' },
      });
      await bob.close();
    }
    // Nothing can be created in her scope, through her ref.
    const intoRef = await as(other, 'POST', '/api/chat', {
      session_id: ref,
      agent_id: 'reviewed',
      content: 'x',
    });
    expect(intoRef.status).toBe(404);
    expect(intoRef.json.error).toMatchObject({ code: 'session_not_found' });
    const mine = await as('token-alice', 'GET', `/api/sessions/${id}/messages`);
    expect(mine.status).toBe(200);
    expect((mine.json.messages as unknown[]).length).toBe(2);
  });

  it('lets nobody take an id before its owner uses it: the same id is a session of each owner', async () => {
    // Bob uses the id first; alice's message to the same id still opens her own session.
    const bob = await as('token-bob', 'POST', '/api/chat', {
      session_id: 'taken',
      agent_id: 'reviewed',
      content: 'b',
    });
    const own = await as('token-alice', 'POST', '/api/chat', {
      session_id: 'taken',
      agent_id: 'reviewed',
      content: 'a',
    });
    expect([bob.status, own.status]).toEqual([202, 202]);
    expect(own.json.session_id).toBe('taken');
    await alice.request({ action: 'assistant_join_session', session_id: 'taken' });
    await alice.waitFor(ended(own.json.run_id), 'the end of alice’s turn');
    expect(seen.map((input) => input.conversationId)).toContain(refOf('taken', 'alice', 'acme'));
    // Each sees their own session under the id, with their own message in it.
    for (const [token, user, tenant, content] of [
      ['token-alice', 'alice', 'acme', 'a'],
      ['token-bob', 'bob', 'globex', 'b'],
    ] as const) {
      const session = await as(token, 'GET', '/api/sessions/taken');
      expect(session.json).toMatchObject({ id: 'taken', ref: refOf('taken', user, tenant) });
      const messages = await as(token, 'GET', '/api/sessions/taken/messages');
      expect((messages.json.messages as { content: string }[])[0]?.content).toBe(content);
    }
  });

  it('gives the same user id in two tenants two sessions for the same request id without a session_id', async () => {
    const body = { id: 'same-request', agent_id: 'reviewed', content: 'hello' };
    const acme = await as('token-alice', 'POST', '/api/chat', body);
    const globex = await as('token-alice-globex', 'POST', '/api/chat', body);
    expect([acme.status, globex.status]).toEqual([202, 202]);
    // The id derived from the request id is the same; each is a session of its own owner.
    const id = acme.json.session_id as string;
    expect((await as('token-alice', 'GET', `/api/sessions/${id}`)).json.ref).toBe(refOf(id, 'alice', 'acme'));
    expect((await as('token-alice-globex', 'GET', `/api/sessions/${id}`)).json.ref).toBe(
      refOf(globex.json.session_id as string, 'alice', 'globex'),
    );
  });

  it('answers a file of the same user id in another tenant as missing', async () => {
    const res = await fetch(`${sandbox.url}/api/files?name=notes.txt`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-alice', 'content-type': 'text/plain' },
      body: 'private',
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect((await as('token-alice', 'GET', `/api/files/${id}`)).status).toBe(200);
    const other = await as('token-alice-globex', 'GET', `/api/files/${id}`);
    expect(other.status).toBe(404);
    expect(other.json.error).toMatchObject({ code: 'file_not_found' });
  });

  it('never tells another user that an agent cannot take answers, nor which agent serves the session', async () => {
    await aliceTurn('alice-mute', 'mute', 'wire');
    const owner = await as('token-alice', 'POST', '/api/sessions/alice-mute/actions/req_wire', {
      decision: 'approve',
    });
    expect(owner.json.error).toMatchObject({ code: 'resolve_not_supported' });
    for (const other of ['token-bob', 'token-alice-globex']) {
      const answer = await as(other, 'POST', '/api/sessions/alice-mute/actions/req_wire', {
        decision: 'approve',
      });
      expect(answer.status, other).toBe(404);
      expect(answer.json.error, other).toMatchObject({ code: 'session_not_found' });
      expect(JSON.stringify(answer.json), other).not.toMatch(/agent|resolve/i);
      const missing = await as(other, 'POST', '/api/sessions/alice-mute/actions/req_none', {
        decision: 'approve',
      });
      expect(missing.json.error, other).toMatchObject({ code: 'session_not_found' });
    }
  });

  it('lets hitl.authorizeResolve decide who may answer: the owner and a reviewer, not anybody else', async () => {
    await aliceTurn('alice-3', 'reviewed', 'two');
    // Someone else names the session by its ref, which the owner's GET shows.
    const { ref } = (await as('token-alice', 'GET', '/api/sessions/alice-3')).json as { ref: string };
    expect(
      (await as('token-bob', 'POST', `/api/sessions/${ref}/actions/req_wire`, { decision: 'approve' }))
        .status,
    ).toBe(404);
    // The hook allows any "reviewer": only the one of the session's own tenant is asked about.
    const outsider = await as('token-reviewer-globex', 'POST', `/api/sessions/${ref}/actions/req_wire`, {
      decision: 'approve',
    });
    expect(outsider.status).toBe(404);
    expect(outsider.json.error).toMatchObject({ code: 'session_not_found' });
    // By the plain id the reviewer reaches a session of their own scope: none.
    expect(
      (await as('token-reviewer', 'POST', '/api/sessions/alice-3/actions/req_wire', { decision: 'approve' }))
        .status,
    ).toBe(404);
    const reviewed = await as('token-reviewer', 'POST', `/api/sessions/${ref}/actions/req_wire`, {
      decision: 'approve',
    });
    expect(reviewed.status).toBe(202);
    await alice.waitFor(ended(reviewed.json.run_id), 'the end of the reviewer’s answer');
    expect(pauses.resolved.filter((input) => input.conversationId === ref)).toMatchObject([
      {
        actionId: 'req_wire',
        actor: 'reviewer',
        context: { user: { id: 'reviewer' }, data: { tenant: 'acme' } },
      },
    ]);
    expect(
      (await as('token-alice', 'POST', '/api/sessions/alice-3/actions/req_account', { answers: ['main'] }))
        .status,
    ).toBe(202);
  });
});
