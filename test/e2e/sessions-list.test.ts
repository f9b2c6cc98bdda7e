import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';

const app = createSwitchboard();
app.registerHostAgent({ info: { id: 'echo' }, invoke: async ({ message }) => ({ content: message }) });
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  'alice-globex': { user: 'alice', tenant: 'globex' },
};
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
});
afterAll(async () => {
  await sandbox?.close();
});

const as = (token: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

type Listed = { id: string; ref: string; agent_id: string; created_at: string; metadata: unknown };

describe('GET /api/sessions lists the caller’s own sessions, newest first, from the owner index', () => {
  it('shows each owner only theirs, pages with next_before, and drops a deleted session', async () => {
    for (const [token, id] of [
      ['alice', 'l-1'],
      ['alice', 'l-2'],
      ['bob', 'l-bob'],
      ['alice-globex', 'l-1'],
      ['alice', 'l-3'],
    ] as const) {
      const sent = await as(token, 'POST', '/api/chat', {
        session_id: id,
        agent_id: 'echo',
        content: 'hi',
        metadata: { n: id },
      });
      expect(sent.status).toBe(202);
    }
    const all = await as('alice', 'GET', '/api/sessions');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ has_more: false, next_before: null });
    const listed = all.json.sessions as Listed[];
    expect(listed.map((s) => s.id)).toEqual(['l-3', 'l-2', 'l-1']);
    expect(listed[2]).toMatchObject({
      ref: refOf('l-1', 'alice', 'acme'),
      agent_id: 'echo',
      metadata: { n: 'l-1' },
    });
    expect(
      ((await as('alice-globex', 'GET', '/api/sessions')).json.sessions as Listed[]).map((s) => s.ref),
    ).toEqual([refOf('l-1', 'alice', 'globex')]);

    const first = await as('alice', 'GET', '/api/sessions?limit=2');
    expect((first.json.sessions as Listed[]).map((s) => s.id)).toEqual(['l-3', 'l-2']);
    expect(first.json.has_more).toBe(true);
    const cursor = first.json.next_before as string;
    const second = await as('alice', 'GET', `/api/sessions?limit=2&before=${encodeURIComponent(cursor)}`);
    expect((second.json.sessions as Listed[]).map((s) => s.id)).toEqual(['l-1']);

    expect((await as('alice', 'DELETE', '/api/sessions/l-2')).status).toBe(202);
    const after = (await as('alice', 'GET', '/api/sessions')).json.sessions as Listed[];
    expect(after.map((s) => s.id)).toEqual(['l-3', 'l-1']);
  });

  it('names each session by the start of its first message: folded, cut at 80 characters, null for files alone', async () => {
    const long = `${'ünïcødé '.repeat(12)}\n\n  and   more`;
    const first = await as('bob', 'POST', '/api/chat', {
      session_id: 't-long',
      agent_id: 'echo',
      content: long,
    });
    expect(first.status).toBe(202);
    // A later message does not rename it.
    await as('bob', 'POST', '/api/chat', { session_id: 't-long', agent_id: 'echo', content: 'second' });
    const { json } = await as('bob', 'GET', '/api/sessions');
    const title = (json.sessions as { id: string; title: string | null }[]).find(
      (s) => s.id === 't-long',
    )?.title;
    const folded = long.replace(/\s+/g, ' ').trim();
    expect([...title!]).toHaveLength(80);
    expect(title).toBe(`${[...folded].slice(0, 79).join('').trimEnd()}…`);
  });

  it('refuses a malformed cursor or limit at the field, with 422', async () => {
    for (const query of ['before=nope', 'limit=0', 'limit=101', 'owner=bob']) {
      const res = await as('alice', 'GET', `/api/sessions?${query}`);
      expect(res.status, query).toBe(422);
      expect((res.json.error as { issues: { path: unknown[] }[] }).issues[0]?.path, query).toEqual([
        query.split('=')[0],
      ]);
    }
  });
});
