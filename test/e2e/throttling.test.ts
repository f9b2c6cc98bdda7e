import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type WebSocketConstructor } from '../../client/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { getSession } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

/**
 * More requests at once than the sandbox's pool takes: each is either done and answered, or refused
 * before the function runs (nothing stored) with API Gateway's throttling answer, which the client
 * sends again, unchanged, until it is taken.
 */
const POOL = 4;
const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'echo' },
  invoke: async ({ message }) => ({ content: `echo: ${message}` }),
});

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({ app, concurrency: POOL });
});
afterAll(async () => {
  await sandbox?.close();
});

/** API Gateway's throttling frame, in its own spacing. */
const THROTTLED = /^\{"message": "Too Many Requests", "connectionId":"[^"]+", "requestId":"[^"]+"\}$/;

/** The messages of a session, as its owner (the sandbox's anonymous user) reads them. */
async function messagesOf(id: string): Promise<{ role: string; content: string }[]> {
  const res = await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`);
  expect(res.status, res.text).toBe(200);
  return res.json.messages as { role: string; content: string }[];
}

describe("a pool that is full refuses before anything is done, and the client's retry lands each message once", () => {
  it('answers every pipelined frame with its answer or Too Many Requests, and stores nothing of a refused one', async () => {
    const FRAMES = 40;
    const socket = await TestSocket.open(sandbox.wsUrl);
    const raw: string[] = [];
    socket.socket.on('message', (data) => raw.push(String(data)));
    const ids = Array.from({ length: FRAMES }, (_, i) => `pipe-${i}`);
    for (const id of ids)
      socket.send({
        action: 'assistant_message',
        id: `req-${id}`,
        session_id: id,
        agent_id: 'echo',
        content: id,
      });
    const answers = () => raw.filter((r) => THROTTLED.test(r) || r.includes('"type":"assistant:'));
    await expect
      .poll(() => answers().length, queued('an answer to every frame'))
      .toBeGreaterThanOrEqual(FRAMES);
    const accepted = socket.frames.filter((f: Frame) => f.type === 'assistant:accepted');
    const refused = raw.filter((r) => THROTTLED.test(r));
    // Nothing else: no error of the function's, no "Internal server error", no timeout.
    expect(socket.frames.filter((f) => f.type === undefined || f.type === 'assistant:error')).toHaveLength(
      refused.length,
    );
    expect(accepted.length + refused.length).toBe(FRAMES);
    expect(refused.length, 'the pool was full at some point').toBeGreaterThan(0);
    const done = new Set(accepted.map((f) => f.session_id as string));
    for (const id of ids) {
      const stored = await getSession(sandbox.runtime, refOf(id));
      expect(stored !== undefined, `${id} stored as it was answered`).toBe(done.has(id));
    }
    await socket.close();
  });

  it('has the client send a throttled message again with the same id until it is taken, each landing once, each session joined', async () => {
    const SESSIONS = 24;
    const statuses: number[] = [];
    const sentBodies = new Map<string, string[]>();
    const client = createClient({
      url: sandbox.url,
      wsUrl: sandbox.wsUrl,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      // As many attempts as it takes: on a loaded machine the pool of 4 stays full for seconds.
      retry: { attempts: 1_000, initialDelayMs: 10, maxDelayMs: 200 },
      fetch: async (input, init) => {
        const res = await fetch(input, init as RequestInit);
        statuses.push(res.status);
        if (init?.method === 'POST' && typeof init.body === 'string') {
          const { session_id: id } = JSON.parse(init.body) as { session_id: string };
          sentBodies.set(id, [...(sentBodies.get(id) ?? []), init.body]);
        }
        return res;
      },
    });
    try {
      const ids = Array.from({ length: SESSIONS }, (_, i) => `retry-${i}`);
      const sessions = ids.map((id) => client.session(id, { agentId: 'echo' }));
      const accepted = await Promise.all(sessions.map((s, i) => s.send(`hello ${i}`)));
      // Every session's turn reaches it over the socket: its join, throttled or not, was made again.
      await Promise.all(sessions.map((s, i) => s.waitForTurn(accepted[i]!.run_id, { timeoutMs: 50_000 })));
      expect(statuses.filter((s) => s === 429).length, 'some requests were throttled').toBeGreaterThan(0);
      for (const [i, id] of ids.entries()) {
        // Each attempt sent the same body, its request id included.
        const bodies = sentBodies.get(id) ?? [];
        expect(new Set(bodies).size, id).toBe(1);
        expect(JSON.parse(bodies[0]!).id).toBe(accepted[i]!.request_id);
        const messages = await messagesOf(id);
        expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([`hello ${i}`]);
      }
    } finally {
      client.close();
    }
  }, 90_000);
});
