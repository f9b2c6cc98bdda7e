import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChatRequest, parseHostContext } from '../../lib/contract/index.ts';
import { TooDeepError } from '../../lib/errors/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { ownedItems } from '../../lib/operate/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, sessionIds, sha256Of, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

const app = createSwitchboard();
for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('h');

beforeAll(async () => {
  sandbox = await testSandbox({ app });
  host = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

/**
 * JSON text nesting `levels` objects (`{"a":…}`) or arrays (`[…]`) around 1, built as text: a value
 * this deep cannot go through JSON.stringify. Arrays keep 10,000 levels inside a WebSocket frame.
 */
const nested = (levels: number, kind: 'object' | 'array' = 'object') =>
  kind === 'object'
    ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
    : `${'['.repeat(levels)}1${']'.repeat(levels)}`;

const firstIssue = (json: Record<string, unknown>) =>
  (json.error as { issues?: { path: (string | number)[] }[] }).issues?.[0]?.path ?? [];

/** Sends raw JSON text over the socket and waits for its route response. */
async function sendRaw(text: string): Promise<Frame> {
  const before = host.frames.length;
  host.socket.send(text);
  return host.waitFor(
    (f) => host.frames.indexOf(f) >= before && f.type.startsWith('assistant:'),
    'the answer to a raw frame',
  );
}

const errorOf = (frame: Frame) => frame.error as { type: string; code: string; path: (string | number)[] };

const HOST_ACTIONS = [
  { name: 'select_issue', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
  { name: 'open_page', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
];

/** Starts a turn over the socket and waits until it has ended (on its pending actions or host call). */
async function paused(sessionId: string, agentId: string, content: string) {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: agentId,
    content,
    // The driver's tools are host tools only when the host declares them.
    ...(agentId === 'driver' && { host_context: { actions: HOST_ACTIONS } }),
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  await host.waitFor(
    (f) =>
      (f.type === 'session.status_requires_action' || f.type === 'session.status_idle') &&
      f.run_id === accepted.run_id,
    'the end of the turn',
  );
}

async function sessionStatus(id: string) {
  return (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json.status;
}

/** The host tool call a session waits on (GET /api/sessions/{id}'s pending_action). */
async function pendingCall(id: string) {
  return ((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json.pending_action as { call_id?: string })
    ?.call_id;
}
describe('deeply nested JSON is a 422 too_deep at its path, never a 500', () => {
  it('rejects metadata nested 10,000 levels over HTTP and stores no session', async () => {
    const id = sid('meta');
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      `{"session_id":"${id}","agent_id":"pauser","content":"x","metadata":${nested(10_000)}}`,
    );
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'too_deep' });
    // The body is level 1, metadata level 2: the first level past 64 is 63 keys below metadata.
    expect(firstIssue(res.json)).toEqual(['metadata', ...Array(63).fill('a')]);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
  });

  it('takes metadata up to 64 levels in all, and refuses one level more', async () => {
    const deepest = sid('deepest');
    const ok = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      `{"session_id":"${deepest}","agent_id":"pauser","content":"x","metadata":${nested(63)}}`,
    );
    expect(ok.status, ok.text).toBe(202);
    const over = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      `{"session_id":"${sid('over')}","agent_id":"pauser","content":"x","metadata":${nested(64)}}`,
    );
    expect(over.status).toBe(422);
    expect(over.json.error).toMatchObject({ code: 'too_deep' });
  });

  it('rejects a deep host_context view.state over HTTP', async () => {
    const id = sid('state');
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      `{"session_id":"${id}","agent_id":"pauser","content":"x","host_context":{"view":{"name":"v","state":${nested(10_000)}}}}`,
    );
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'too_deep' });
    expect(firstIssue(res.json).slice(0, 3)).toEqual(['host_context', 'view', 'state']);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
  });

  it('rejects a deep tool_result of a continuation over HTTP and leaves the call pending', async () => {
    const id = sid('cont');
    await paused(id, 'driver', 'one');
    expect(await pendingCall(id)).toBe('call_select');
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      `{"session_id":"${id}","content":"","tool_call_id":"call_select","tool_result":${nested(10_000)}}`,
    );
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'too_deep' });
    expect(firstIssue(res.json)).toEqual(['tool_result', ...Array(63).fill('a')]);
    expect(await pendingCall(id)).toBe('call_select');
  });

  it('rejects deep answers to a question over HTTP and leaves the question open', async () => {
    const id = sid('answer');
    await paused(id, 'pauser', 'two');
    expect(await sessionStatus(id)).toBe('requires_action');
    const res = await api(
      sandbox.url,
      'POST',
      `/api/sessions/${id}/actions/req_account`,
      `{"answers":${nested(10_000, 'array')}}`,
    );
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'too_deep' });
    expect(firstIssue(res.json)).toEqual(['answers', ...Array(63).fill(0)]);
    const messages = await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`);
    const stored = messages.json.messages as { pending_actions?: { id: string; status: string }[] }[];
    expect(stored.at(-1)?.pending_actions).toMatchObject([
      { id: 'req_wire', status: 'pending' },
      { id: 'req_account', status: 'pending' },
    ]);
  });

  it('rejects deep metadata and tool_result in an assistant_message frame, storing nothing', async () => {
    const id = sid('ws-meta');
    const meta = await sendRaw(
      `{"action":"assistant_message","session_id":"${id}","agent_id":"pauser","content":"x","metadata":{"a":${nested(10_000, 'array')}}}`,
    );
    expect(meta.type).toBe('assistant:error');
    expect(errorOf(meta)).toMatchObject({ type: 'validation', code: 'too_deep' });
    expect(errorOf(meta).path).toEqual(['metadata', 'a', ...Array(62).fill(0)]);
    expect(await host.request({ action: 'assistant_join_session', session_id: id })).toMatchObject({
      error: { code: 'session_not_found' },
    });

    const cont = sid('ws-cont');
    await paused(cont, 'driver', 'one');
    expect(await pendingCall(cont)).toBe('call_select');
    const result = await sendRaw(
      `{"action":"assistant_message","session_id":"${cont}","content":"","tool_call_id":"call_select","tool_result":${nested(10_000, 'array')}}`,
    );
    expect(errorOf(result)).toMatchObject({ type: 'validation', code: 'too_deep' });
    expect(errorOf(result).path.slice(0, 2)).toEqual(['tool_result', 0]);
    expect(await pendingCall(cont)).toBe('call_select');
  });

  it('rejects deep answers in an assistant_resolve_action frame', async () => {
    const id = sid('ws-answer');
    await paused(id, 'pauser', 'two');
    expect(await sessionStatus(id)).toBe('requires_action');
    const frame = await sendRaw(
      `{"action":"assistant_resolve_action","session_id":"${id}","action_id":"req_account","answers":${nested(10_000, 'array')}}`,
    );
    expect(errorOf(frame)).toMatchObject({ type: 'validation', code: 'too_deep' });
    expect(errorOf(frame).path).toEqual(['answers', ...Array(63).fill(0)]);
    expect(await sessionStatus(id)).toBe('requires_action');
  });

  it('bounds the contract walk itself for a value that never went through the parse', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10_000; i += 1) deep = { a: deep };
    const message = { agent_id: 'pauser', content: 'x', metadata: deep };
    expect(() => parseChatRequest(message)).toThrow(TooDeepError);
    expect(() => parseChatRequest(message)).toThrow(/at metadata\.a\.a/);
    const cyclic: Record<string, unknown> = { name: 'v' };
    cyclic.state = cyclic;
    expect(() => parseHostContext({ view: cyclic })).toThrow(TooDeepError);
  });

  it('refuses an upload request over its 16 KiB before reading it', async () => {
    const res = await api(sandbox.url, 'POST', '/api/files', {
      name: 'x.txt',
      size: 1,
      padding: 'x'.repeat(20_000),
    });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: 'payload_too_large' });
  });
});

describe('an id that breaks the id rule is not found on a path and a 422 in a body', () => {
  const long = 'x'.repeat(3_000);
  const wide = 'é'.repeat(1_100); // 2,200 bytes of UTF-8: past DynamoDB's key limit in fewer characters

  it.each([
    ['GET a long session', 'GET', `/api/sessions/${long}`],
    ['GET the messages of a long session', 'GET', `/api/sessions/${long}/messages`],
    ['GET the events of a long session', 'GET', `/api/sessions/${long}/events`],
    ['cancel a long session', 'POST', `/api/sessions/${long}/cancel`],
    ['DELETE a long session', 'DELETE', `/api/sessions/${long}`],
    ['GET a session of 2,200 bytes of UTF-8', 'GET', `/api/sessions/${encodeURIComponent(wide)}`],
    ['GET a session with a space', 'GET', '/api/sessions/a%20b'],
  ])('%s answers 404 session_not_found naming the id', async (_what, method, path) => {
    const res = await api(sandbox.url, method, path);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'session_not_found' });
    expect(firstIssue(res.json)).toEqual(['id']);
  });

  it('answers 404 for a long session id or action id on the answer route', async () => {
    const badSession = await api(sandbox.url, 'POST', `/api/sessions/${long}/actions/req_wire`, {
      decision: 'approve',
    });
    expect(badSession.status).toBe(404);
    expect(badSession.json.error).toMatchObject({ code: 'session_not_found' });
    const id = sid('action');
    await paused(id, 'pauser', 'wire');
    expect(await sessionStatus(id)).toBe('requires_action');
    const badAction = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${long}`, {
      decision: 'approve',
    });
    expect(badAction.status).toBe(404);
    expect(badAction.json.error).toMatchObject({ code: 'action_not_found' });
    expect(firstIssue(badAction.json)).toEqual(['actionId']);
    expect(await sessionStatus(id)).toBe('requires_action');
  });

  it('answers 404 file_not_found for a long file id', async () => {
    const res = await api(sandbox.url, 'GET', `/api/files/${long}`);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'file_not_found' });
    expect(firstIssue(res.json)).toEqual(['id']);
  });

  it('rejects a long session_id or tool_call_id in a message body with 422 at the field, storing nothing', async () => {
    const session = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: long,
      agent_id: 'pauser',
      content: 'x',
    });
    expect(session.status).toBe(422);
    expect(firstIssue(session.json)).toEqual(['session_id']);

    const id = sid('call');
    await paused(id, 'driver', 'one');
    expect(await pendingCall(id)).toBe('call_select');
    const call = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      content: '',
      tool_call_id: wide,
      tool_result: 'ok',
    });
    expect(call.status).toBe(422);
    expect(firstIssue(call.json)).toEqual(['tool_call_id']);
    expect(await pendingCall(id)).toBe('call_select');
  });

  it('rejects long ids in WebSocket frames at their field', async () => {
    for (const [frame, path] of [
      [{ action: 'assistant_message', session_id: long, agent_id: 'pauser', content: 'x' }, ['session_id']],
      [{ action: 'assistant_join_session', session_id: long }, ['session_id']],
      [{ action: 'assistant_cancel', session_id: long }, ['session_id']],
      [
        { action: 'assistant_resolve_action', session_id: 'h-none', action_id: wide, decision: 'approve' },
        ['action_id'],
      ],
    ] as const) {
      const answer = await host.request(frame);
      expect(errorOf(answer), frame.action).toMatchObject({ type: 'validation', code: 'validation_error' });
      expect(errorOf(answer).path).toEqual(path);
    }
  });

  it('still takes ids with every character of the rule, as the demo page makes them', async () => {
    const id = `web-${crypto.randomUUID()}.a:b_c`;
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      agent_id: 'pauser',
      content: 'x',
    });
    expect(res.status, res.text).toBe(202);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${encodeURIComponent(id)}`)).status).toBe(200);
  });
});

describe('POST /api/files takes only a media type as its content type', () => {
  const upload = (contentType: string) =>
    fetch(`${sandbox.url}/api/files?name=notes.txt`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: 'hello',
    }).then(async (res) => ({ status: res.status, json: (await res.json()) as Record<string, unknown> }));

  it.each([
    ['a form encoding', 'application/x-www-form-urlencoded'],
    ['a multipart form', 'multipart/form-data; boundary=x'],
    ['a path', '../../x'],
    ['a type without a subtype', 'text'],
    ['a 2,000-character type', `application/${'a'.repeat(1_988)}`],
  ])('answers 415 unsupported_media_type for %s', async (_what, contentType) => {
    const res = await upload(contentType);
    expect(res.status).toBe(415);
    expect(res.json.error).toMatchObject({ code: 'unsupported_media_type' });
    expect(firstIssue(res.json)).toEqual(['content-type']);
  });

  it('stores a file under any valid media type, without its parameters', async () => {
    const vendor = await upload('application/vnd.example+yaml');
    expect(vendor.status).toBe(201);
    expect(vendor.json).toMatchObject({ media_type: 'application/vnd.example+yaml', status: 'stored' });
    const text = await upload('text/plain; charset=utf-8');
    expect(text.json).toMatchObject({ media_type: 'text/plain' });
  });

  it('rejects a media_type in an upload request that is not one, at media_type', async () => {
    const res = await api(sandbox.url, 'POST', '/api/files', {
      name: 'x.bin',
      media_type: '../../x',
      size: 10,
    });
    expect(res.status).toBe(422);
    expect(firstIssue(res.json)).toEqual(['media_type']);
  });
});

describe('POST /api/files caps a name sent as ?name= as the JSON form caps its name', () => {
  const raw = (name: string) =>
    api(sandbox.url, 'POST', `/api/files?name=${encodeURIComponent(name)}`, 'hello', { type: 'text/plain' });
  const asJson = (name: string) =>
    api(sandbox.url, 'POST', '/api/files', { name, size: 5, sha256: sha256Of('hello') });
  const files = async () => (await ownedItems(sandbox.runtime, { owner: 'anonymous' })).files.length;

  it('takes 512 characters either way, multi-byte ones too', async () => {
    for (const name of ['n'.repeat(512), '名'.repeat(512), '𠀀'.repeat(512)]) {
      expect((await raw(name)).status).toBe(201);
      expect((await asJson(name)).status).toBe(201);
    }
  });

  it('refuses 513 characters with the JSON form’s answer, at name, and stores nothing', async () => {
    const before = await files();
    for (const name of ['n'.repeat(513), '名'.repeat(513), 'x'.repeat(2_000)]) {
      const [byQuery, byJson] = [await raw(name), await asJson(name)];
      expect(byQuery.status).toBe(422);
      expect(byQuery.json.error).toMatchObject({ code: 'validation_error' });
      expect(firstIssue(byQuery.json)).toEqual(['name']);
      expect(byJson.status).toBe(byQuery.status);
      expect(firstIssue(byJson.json)).toEqual(firstIssue(byQuery.json));
    }
    expect(await files()).toBe(before);
  });
});
