import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testApp } from '../support/agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { TestSocket } from '../support/ws-client.ts';

let sandbox: Sandbox;
let host: TestSocket;
const { app } = testApp();

beforeAll(async () => {
  sandbox = await testSandbox({ app });
  host = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

const issuesOf = (json: Record<string, unknown>) =>
  (json.error as { issues?: { path: unknown[] }[] }).issues?.map((i) => i.path);

describe('bad input over HTTP gets a clear error and loses nothing', () => {
  it('rejects an unknown field with 422 and its path', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: 's',
      agent_id: 'demo',
      content: 'x',
      colour: 'red',
    });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'validation_error' });
    expect(issuesOf(res.json)).toEqual([['colour']]);
  });

  it.each([
    ['a missing content', { session_id: 's', agent_id: 'demo' }, ['content']],
    ['an empty content', { session_id: 's', agent_id: 'demo', content: '' }, ['content']],
    ['a session id with a slash', { session_id: 'a/b', agent_id: 'demo', content: 'x' }, ['session_id']],
    ['a request id with a space', { id: 'a b', agent_id: 'demo', content: 'x' }, ['id']],
    ['metadata that is not an object', { agent_id: 'demo', content: 'x', metadata: [1] }, ['metadata']],
  ])('rejects %s with 422 at its path', async (_what, body, path) => {
    const res = await api(sandbox.url, 'POST', '/api/chat', body);
    expect(res.status).toBe(422);
    expect(issuesOf(res.json)).toContainEqual(path);
  });

  it('rejects a body that is not JSON with 400', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', '{"content": ');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_json' });
  });

  it('answers 404 for an agent nobody registered, naming agent_id', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: 'nobody',
      agent_id: 'nobody',
      content: 'x',
    });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'agent_not_found' });
    expect(issuesOf(res.json)).toEqual([['agent_id']]);
    expect((await api(sandbox.url, 'GET', '/api/sessions/nobody')).status).toBe(404);
  });

  it('requires agent_id for a new session when several agents are registered', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', { session_id: 'which', content: 'x' });
    expect(res.status).toBe(422);
    expect(issuesOf(res.json)).toEqual([['agent_id']]);
  });

  it('answers 409 when a message names another agent than its session has', async () => {
    expect(
      (await api(sandbox.url, 'POST', '/api/chat', { session_id: 'owned', agent_id: 'picky', content: 'a' }))
        .status,
    ).toBe(202);
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: 'owned',
      agent_id: 'demo',
      content: 'b',
    });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'agent_mismatch' });
  });

  it('answers 404 for a session that does not exist, on every session route', async () => {
    for (const path of ['/api/sessions/none', '/api/sessions/none/messages', '/api/sessions/none/events']) {
      const res = await api(sandbox.url, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: 'session_not_found' });
    }
  });

  it('rejects an events query with an unknown or negative parameter', async () => {
    await api(sandbox.url, 'POST', '/api/chat', { session_id: 'q', agent_id: 'picky', content: 'a' });
    const negative = await api(sandbox.url, 'GET', '/api/sessions/q/events?after=-1');
    expect(negative.status).toBe(422);
    expect(issuesOf(negative.json)).toEqual([['after']]);
    const unknown = await api(sandbox.url, 'GET', '/api/sessions/q/events?since=3');
    expect(issuesOf(unknown.json)).toEqual([['since']]);
  });

  it('answers 404, not 500, for a path parameter with a broken percent-encoding', async () => {
    for (const path of ['/api/sessions/%E0%A4%A', '/api/sessions/%zz/messages', '/api/files/%E0']) {
      const res = await api(sandbox.url, 'GET', path);
      expect(res.status, path).toBe(404);
    }
    expect(
      (await api(sandbox.url, 'POST', '/api/sessions/%E0/actions/%E0', { decision: 'approve' })).status,
    ).toBe(404);
  });

  it('answers 404 for a route that does not exist', async () => {
    expect((await api(sandbox.url, 'GET', '/api/nowhere')).status).toBe(404);
  });
});

describe('bad frames over the WebSocket get an assistant:error frame', () => {
  it('rejects an unknown field as a validation error with its path', async () => {
    const frame = await host.request({
      action: 'assistant_message',
      id: 'ws-bad',
      session_id: 's',
      agent_id: 'demo',
      content: 'x',
      extra: 1,
    });
    expect(frame).toMatchObject({
      type: 'assistant:error',
      request_id: 'ws-bad',
      error: { type: 'validation', code: 'validation_error', path: ['extra'] },
    });
  });

  it('rejects an unknown action and a frame that is not JSON', async () => {
    expect(await host.request({ action: 'assistant_shout' })).toMatchObject({
      error: { type: 'validation', code: 'unknown_action', path: ['action'] },
    });
    const before = host.frames.length;
    host.socket.send('not json at all');
    const frame = await host.waitFor((f) => host.frames.indexOf(f) >= before && f.type === 'assistant:error');
    expect(frame).toMatchObject({ error: { type: 'validation', code: 'invalid_json' } });
  });

  it('refuses to join a session that does not exist, and a join with a bad after_seq', async () => {
    expect(await host.request({ action: 'assistant_join_session', session_id: 'ghost' })).toMatchObject({
      error: { type: 'not_found', code: 'session_not_found' },
    });
    expect(
      await host.request({ action: 'assistant_join_session', session_id: 'ghost', after_seq: 'x' }),
    ).toMatchObject({ error: { type: 'validation', path: ['after_seq'] } });
  });
});
