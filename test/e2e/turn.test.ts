import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PutItem } from '../../lib/aws/index.ts';
import { keys, subscribers } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testApp } from '../support/agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

let sandbox: Sandbox;
const agents = testApp();
const sockets: TestSocket[] = [];

async function socket(): Promise<TestSocket> {
  const s = await TestSocket.open(sandbox.wsUrl);
  sockets.push(s);
  return s;
}

const idleOf = (runId: unknown) => turnEnded(runId);

const seqs = (frames: Frame[]) => frames.map((f) => f.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

beforeAll(async () => {
  // A window shorter than the demo agent's pace between chunks, so the answer streams in pieces.
  sandbox = await testSandbox({ app: agents.app, settings: { stream: { coalesceMs: 2 } } });
});

afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await sandbox?.close();
});

describe('one turn through the gateway, the queue, the worker and the table', () => {
  it('streams the events of a turn in order to the socket that sent the message, and the answer is readable over HTTP', async () => {
    const host = await socket();
    const accepted = await host.request({
      action: 'assistant_message',
      id: 'stream-1',
      session_id: 'stream',
      agent_id: 'demo',
      content: 'hello streaming world',
    });
    expect(accepted).toMatchObject({
      type: 'assistant:accepted',
      session_id: 'stream',
      request_id: 'stream-1',
      duplicate: false,
    });
    await host.waitFor(idleOf(accepted.run_id), 'the end of the turn');

    const events = host.events('stream');
    expect(seqs(events)).toEqual(range(1, events.length));
    const types = events.map((f) => f.type);
    expect(types.slice(0, 4)).toEqual([
      'session.status_running',
      'user.message',
      'agent.tool_use',
      'agent.tool_result',
    ]);
    expect(types.slice(-2)).toEqual(['final_response', 'session.status_idle']);
    const deltas = events.filter((f) => f.type === 'agent.message.delta');
    expect(deltas.length).toBeGreaterThan(1);
    const streamed = deltas.map((f) => (f.data as { text: string }).text).join('');
    const final = events.find((f) => f.type === 'final_response')?.data as { content: string };
    expect(final.content).toBe(streamed);

    const messages = await api(sandbox.url, 'GET', '/api/sessions/stream/messages');
    expect(messages.status).toBe(200);
    const stored = messages.json.messages as { role: string; content: string; tool_calls?: unknown[] }[];
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.content).toBe(streamed);
    expect(stored[1]?.tool_calls).toHaveLength(1);

    const session = await api(sandbox.url, 'GET', '/api/sessions/stream');
    expect(session.json).toMatchObject({
      id: 'stream',
      agent_id: 'demo',
      status: 'idle',
      last_run: { id: accepted.run_id, status: 'completed', stop_reason: 'end_turn' },
    });

    const log = await api(sandbox.url, 'GET', '/api/sessions/stream/events?after=0');
    expect((log.json.events as Frame[]).map((e) => e.seq)).toEqual(seqs(events));
  });

  it('hands the agent the conversation so far, this message included', async () => {
    const host = await socket();
    const first = await host.request({
      action: 'assistant_message',
      id: 'hist-1',
      session_id: 'history',
      agent_id: 'demo',
      content: 'one',
    });
    await host.waitFor(idleOf(first.run_id));
    const second = await host.request({
      action: 'assistant_message',
      id: 'hist-2',
      session_id: 'history',
      content: 'two',
    });
    await host.waitFor(idleOf(second.run_id));
    const final = host
      .events('history')
      .filter((f) => f.type === 'final_response')
      .at(-1)?.data as { content: string };
    expect(final.content).toContain('message 2 of our conversation');
  });

  it('sends a socket that joins late exactly the events it missed, then the live ones', async () => {
    const sender = await socket();
    const accepted = await sender.request({
      action: 'assistant_message',
      id: 'late-1',
      session_id: 'late',
      agent_id: 'held',
      content: 'the question',
    });
    await agents.reached('late');
    await sender.waitFor((f) => f.type === 'agent.message.delta' && f.session_id === 'late');

    const late = await socket();
    const joined = await late.request({ action: 'assistant_join_session', session_id: 'late', after_seq: 1 });
    expect(joined).toMatchObject({ type: 'assistant:joined', session_id: 'late' });
    const lastSeen = joined.last_seq as number;
    expect(seqs(late.events('late'))).toEqual(range(2, lastSeen));

    agents.release('late');
    await late.waitFor(idleOf(accepted.run_id));
    const all = late.events('late');
    expect(seqs(all)).toEqual(range(2, all.length + 1));
    expect(all.some((f) => f.type === 'final_response' && f.seq! > lastSeen)).toBe(true);
  });

  it('starts one turn for a request id sent twice, over HTTP and over the socket', async () => {
    const watcher = await socket();
    const body = { id: 'dup-1', session_id: 'dup', agent_id: 'picky', content: 'once' };
    const first = await api(sandbox.url, 'POST', '/api/chat', body);
    expect(first.status).toBe(202);
    await watcher.request({ action: 'assistant_join_session', session_id: 'dup' });
    const second = await api(sandbox.url, 'POST', '/api/chat', body);
    const third = await watcher.request({ action: 'assistant_message', ...body });
    expect(second.status).toBe(202);
    expect(second.json).toMatchObject({
      run_id: first.json.run_id,
      message_id: first.json.message_id,
      duplicate: true,
    });
    expect(third).toMatchObject({ run_id: first.json.run_id, duplicate: true });
    await watcher.waitFor(idleOf(first.json.run_id));
    const messages = await api(sandbox.url, 'GET', '/api/sessions/dup/messages');
    expect((messages.json.messages as unknown[]).length).toBe(2);
    // One turn started: one running event in the log (a join may deliver a seq twice, live and in its
    // replay; hosts drop a seq they have seen, and so does this count).
    const running = watcher.events('dup').filter((f) => f.type === 'session.status_running');
    expect(new Set(running.map((f) => f.seq)).size).toBe(1);
  });

  it('closes a turn whose agent returned an unusable result as error, stores nothing of it, and takes the next message', async () => {
    const host = await socket();
    const bad = await host.request({
      action: 'assistant_message',
      id: 'bad-1',
      session_id: 'bad',
      agent_id: 'picky',
      content: 'break',
    });
    await host.waitFor(idleOf(bad.run_id));
    const error = host.events('bad').find((f) => f.type === 'session.error');
    expect(error?.data).toMatchObject({ code: 'invalid_host_result', status: 500 });
    expect(host.events('bad').find(idleOf(bad.run_id))?.data).toMatchObject({
      status: 'error',
      stop_reason: 'error',
    });
    const afterBad = await api(sandbox.url, 'GET', '/api/sessions/bad/messages');
    expect((afterBad.json.messages as { role: string }[]).map((m) => m.role)).toEqual(['user']);
    expect((await api(sandbox.url, 'GET', '/api/sessions/bad')).json).toMatchObject({
      status: 'idle',
      last_run: { status: 'error', error: { code: 'invalid_host_result' } },
    });

    const good = await host.request({
      action: 'assistant_message',
      id: 'bad-2',
      session_id: 'bad',
      content: 'again',
    });
    await host.waitFor(idleOf(good.run_id));
    const messages = await api(sandbox.url, 'GET', '/api/sessions/bad/messages');
    const stored = messages.json.messages as { role: string; content: string }[];
    expect(stored.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(stored[2]?.content).toBe('fine: again');
  });

  it('reads status requires_action with no pending actions as completed, and logs a warning with the run', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    try {
      const host = await socket();
      const sent = await host.request({
        action: 'assistant_message',
        session_id: 'pause-on-nothing',
        agent_id: 'picky',
        content: 'pause on nothing',
      });
      await host.waitFor(idleOf(sent.run_id));
      expect(host.events('pause-on-nothing').find(idleOf(sent.run_id))?.data).toMatchObject({
        status: 'completed',
        stop_reason: 'end_turn',
      });
      const warned = warn.mock.calls.find((c) => String(c[0]).includes('requires_action with no pending'));
      expect(warned?.[1]).toMatchObject({
        agentId: 'picky',
        sessionId: refOf('pause-on-nothing'),
        runId: sent.run_id,
      });
    } finally {
      warn.mockRestore();
    }
  });

  it('finishes a turn whose sender vanished mid-stream, and forgets a connection API Gateway reports gone', async () => {
    const sender = await socket();
    const watcher = await socket();
    const accepted = await sender.request({
      action: 'assistant_message',
      id: 'gone-1',
      session_id: 'gone',
      agent_id: 'held',
      content: 'are you there',
    });
    await agents.reached('gone');
    await watcher.request({ action: 'assistant_join_session', session_id: 'gone' });
    // A connection the table still lists but the gateway no longer knows: its $disconnect never came.
    await sandbox.runtime.db.send(
      new PutItem({
        TableName: sandbox.runtime.table,
        Item: {
          ...keys.subscriber(refOf('gone'), 'ghostConnId='),
          type: 'subscriber',
          connectionId: 'ghostConnId=',
        },
      }),
    );
    await sender.kill();
    agents.release('gone');
    await watcher.waitFor(idleOf(accepted.run_id));
    const session = await api(sandbox.url, 'GET', '/api/sessions/gone');
    expect(session.json).toMatchObject({ status: 'idle', last_run: { status: 'completed' } });
    const messages = await api(sandbox.url, 'GET', '/api/sessions/gone/messages');
    expect((messages.json.messages as { content: string }[])[1]?.content).toBe(
      'first half of are you there; second half.',
    );
    expect((await subscribers(sandbox.runtime, refOf('gone'))).map((s) => s.connectionId)).not.toContain(
      'ghostConnId=',
    );
  });

  it('ignores malformed events and drops events that arrive after their turn ended', async () => {
    const host = await socket();
    for (const id of ['sloppy-1', 'sloppy-2']) {
      const accepted = await host.request({
        action: 'assistant_message',
        id,
        session_id: 'sloppy',
        agent_id: 'sloppy',
        content: id,
      });
      await host.waitFor(idleOf(accepted.run_id));
    }
    const events = host.events('sloppy');
    expect(seqs(events)).toEqual(range(1, events.length));
    const texts = events
      .filter((f) => f.type === 'agent.message.delta')
      .map((f) => (f.data as { text: string }).text);
    expect(texts).toEqual(['fresh', 'fresh']);
    expect(events.some((f) => f.type === 'agent.tool_use')).toBe(false);
  });
});
