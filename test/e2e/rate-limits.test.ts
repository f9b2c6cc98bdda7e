import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem, Query } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { limitUser } from '../../lib/limits/index.ts';
import { keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { TestSocket } from '../support/ws-client.ts';

const PER_USER = 8;
const PER_CONNECTION = 3;
const WINDOW_SECONDS = 60;
/** The clock the functions' limits read: 10 s into a window, moved on only by the tests. */
const WINDOW_START = Date.UTC(2031, 0, 1);
let now = WINDOW_START + 10_000;

let sandbox: Sandbox;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({ info: { id: 'echo' }, invoke: async ({ message }) => ({ content: message }) });
  sandbox = await testSandbox({
    app,
    clock: () => now,
    settings: {
      limits: {
        perUser: { requests: PER_USER, windowSeconds: WINDOW_SECONDS },
        perConnection: { requests: PER_CONNECTION, windowSeconds: WINDOW_SECONDS },
      },
    },
    // A token is `user.tenant`.
    tokens: (token) => {
      const [user = '', tenant] = token.split('.');
      return { user, tenant };
    },
  });
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await sandbox?.close();
});

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await api<{ error?: Record<string, unknown> }>(sandbox.url, method, path, body, { token });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: res.json };
}

/** Spends `n` of the user's requests on reads of a session that does not exist. */
async function spend(token: string, n: number) {
  for (let i = 0; i < n; i += 1) {
    expect((await call(token, 'GET', '/api/sessions/rl-nowhere')).status).toBe(404);
  }
}

async function socketOf(token: string): Promise<TestSocket> {
  const socket = await TestSocket.open(`${sandbox.wsUrl}?token=${token}`);
  sockets.push(socket);
  return socket;
}

/** Every item of a session's partition: none means nothing of it was stored. */
async function partition(sessionId: string) {
  const { Items = [] } = await sandbox.runtime.db.send(
    new Query({
      TableName: sandbox.runtime.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `SESSION#${sessionId}` },
      ConsistentRead: true,
    }),
  );
  return Items;
}

const chat = (sessionId: string) => ({ session_id: sessionId, agent_id: 'echo', content: 'hi' });

describe('per-user rate limits over HTTP', () => {
  it('answers a user over the limit 429 rate_limited with Retry-After, and stores nothing of the refused chat', async () => {
    await spend('ann.acme', PER_USER - 1);
    expect((await call('ann.acme', 'POST', '/api/chat', chat('rl-ann-ok'))).status).toBe(202);
    const refused = await call('ann.acme', 'POST', '/api/chat', chat('rl-ann-refused'));
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('50');
    expect(refused.json.error).toMatchObject({ code: 'rate_limited' });
    expect(refused.json.error?.message).toContain(`at most ${PER_USER} requests per 60 seconds`);
    expect(await partition('rl-ann-refused')).toEqual([]);
    // The refusal itself was not counted either: the window holds exactly the limit.
    const { Item } = await sandbox.runtime.db.send(
      new GetItem({
        TableName: sandbox.runtime.table,
        Key: keys.userRate('acme', 'ann', WINDOW_START / 1000),
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ count: PER_USER, ttl: WINDOW_START / 1000 + 2 * WINDOW_SECONDS });
  });

  it('lets a browser host read Retry-After', async () => {
    const res = await fetch(`${sandbox.url}/api/sessions/rl-nowhere`, {
      headers: { authorization: 'Bearer ann.acme', origin: 'https://app.example.com' },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
  });

  it('leaves another user, and the same user id in another tenant, unaffected', async () => {
    expect((await call('ann.acme', 'GET', '/api/sessions/rl-nowhere')).status).toBe(429);
    expect((await call('bob.acme', 'GET', '/api/sessions/rl-nowhere')).status).toBe(404);
    expect((await call('ann.globex', 'GET', '/api/sessions/rl-nowhere')).status).toBe(404);
  });
});

describe('rate limits over WebSocket', () => {
  it('answers a frame over the user’s limit with assistant:error rate_limited, and stores nothing of it', async () => {
    await spend('cat.acme', PER_USER);
    const socket = await socketOf('cat.acme');
    const answer = await socket.request({ action: 'assistant_message', id: 'rl-cat-1', ...chat('rl-cat') });
    expect(answer).toMatchObject({
      type: 'assistant:error',
      request_id: 'rl-cat-1',
      error: { type: 'limit', code: 'rate_limited', retry_after: 50, path: [] },
    });
    expect((answer.error as { message: string }).message).toContain('for each user');
    expect(await partition('rl-cat')).toEqual([]);
  });

  it('refuses a connection over its frame limit while the user’s other connection works', async () => {
    const [first, second] = [await socketOf('dan.acme'), await socketOf('dan.acme')];
    for (let i = 0; i < PER_CONNECTION; i += 1) {
      const answer = await first.request({ action: 'assistant_join_session', session_id: 'rl-nowhere' });
      expect(answer).toMatchObject({ type: 'assistant:error', error: { code: 'session_not_found' } });
    }
    const refused = await first.request({ action: 'assistant_message', id: 'rl-dan-1', ...chat('rl-dan') });
    expect(refused).toMatchObject({
      type: 'assistant:error',
      error: { type: 'limit', code: 'rate_limited', retry_after: 50 },
    });
    expect((refused.error as { message: string }).message).toContain(
      `at most ${PER_CONNECTION} frames per 60 seconds`,
    );
    expect(await partition('rl-dan')).toEqual([]);
    const accepted = await second.request({ action: 'assistant_message', id: 'rl-dan-2', ...chat('rl-dan') });
    expect(accepted).toMatchObject({ type: 'assistant:accepted', session_id: 'rl-dan' });
    // A frame refused for its connection spent nothing of the user's: the user still has room over HTTP.
    await spend('dan.acme', PER_USER - PER_CONNECTION - 1);
    expect((await call('dan.acme', 'GET', '/api/sessions/rl-nowhere')).status).toBe(429);
  });
});

describe('the window', () => {
  it('says how long until the next window, at least a second', async () => {
    const at = (offsetMs: number) => limitUser(sandbox.runtimes.http, { user: 'eve', data: {} }, offsetMs);
    const next = WINDOW_START + 3_600_000;
    for (let i = 0; i < PER_USER; i += 1) await at(next + 59_500);
    await expect(at(next + 59_900)).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    await expect(at(next + 60_000)).resolves.toBeUndefined();
  });

  it('serves a refused user again once the next window starts', async () => {
    expect((await call('ann.acme', 'GET', '/api/sessions/rl-nowhere')).status).toBe(429);
    now = WINDOW_START + WINDOW_SECONDS * 1000;
    expect((await call('ann.acme', 'POST', '/api/chat', chat('rl-ann-refused'))).status).toBe(202);
    const socket = await socketOf('cat.acme');
    expect(await socket.request({ action: 'assistant_join_session', session_id: 'rl-cat' })).toMatchObject({
      type: 'assistant:error',
      error: { code: 'session_not_found' },
    });
  });
});
