import { type BaseEvent, EventType } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSessionId } from '../../lib/auth/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type Gate, gate } from '../support/agents.ts';
import { runAgUi } from '../support/agui.ts';
import { api, runEvents, sessionIds, testSandbox } from '../support/sandbox.ts';
import { within } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/** Per session: the gate a handler waits on, and whether its signal was aborted. */
const gates = new Map<string, { reached: Gate; answer: Gate<string>; aborted: Gate<boolean> }>();
/** The gates of a session, by the host's session id (the agent sees its ref as `conversationId`). */
const gatesOf = (conversationId: string) => {
  const id = hostSessionId(conversationId);
  let entry = gates.get(id);
  if (!entry) {
    entry = { reached: gate(), answer: gate<string>(), aborted: gate<boolean>() };
    gates.set(id, entry);
  }
  return entry;
};

const app = createSwitchboard({ pricing: { faq: { input: 1_000_000, output: 2_000_000 } } });
app.registerCustomAgent({
  info: { id: 'faq' },
  async handler({ message, conversationId, files }, { signal }) {
    const g = gatesOf(conversationId);
    g.reached.open();
    signal.addEventListener('abort', () => g.aborted.open(true), { once: true });
    const answer = message.startsWith('wait') ? await g.answer.opened : `The answer to "${message}".`;
    if (signal.aborted) throw signal.reason;
    return {
      content: `${answer} (${files.length} files)`,
      usage: { inputTokens: 3, outputTokens: 2, model: 'faq' },
    };
  },
});
app.registerCustomAgent({
  info: { id: 'asker' },
  handler: async ({ runId }) => ({
    content: 'May I?',
    pendingActions: [{ id: `ask_${runId}`, type: 'tool_approval', toolName: 'delete_all', args: {} }],
  }),
});

let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('custom');

beforeAll(async () => {
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

/** The events of a run read back over HTTP, once its end is logged. */
const runEventsOf = async (id: string, runId: unknown) =>
  (await runEvents(sandbox.url, id, runId)) as unknown as Frame[];

describe('registerCustomAgent', () => {
  it('answers over HTTP with the handler’s content as one text event, its usage priced by the server’s table', async () => {
    const id = sid('http');
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      agent_id: 'faq',
      content: 'why?',
    });
    expect(res.status).toBe(202);
    const events = await runEventsOf(id, res.json.run_id);
    const deltas = events.filter((e) => e.type === 'agent.message.delta');
    expect(deltas.map((e) => (e.data as { text: string }).text)).toEqual(['The answer to "why?". (0 files)']);
    expect(events.find((e) => e.type === 'final_response')?.data).toMatchObject({
      content: 'The answer to "why?". (0 files)',
      stop_reason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 2, costUsd: 7, model: 'faq' },
    });
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      role: string;
      content: string;
    }[];
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'why?'],
      ['assistant', 'The answer to "why?". (0 files)'],
    ]);
  });

  it('streams nothing over WebSocket until the handler returns, then the whole answer at once', async () => {
    const id = sid('ws');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'faq',
      content: 'wait for it',
    });
    expect(accepted.type).toBe('assistant:accepted');
    const g = gatesOf(id);
    await within(g.reached.opened, 'the handler');
    expect(host.events(id).filter((f) => f.type === 'agent.message.delta')).toEqual([]);
    g.answer.open('Forty-two.');
    await host.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn');
    const deltas = host.events(id).filter((f) => f.type === 'agent.message.delta');
    expect(deltas.map((f) => (f.data as { text: string }).text)).toEqual(['Forty-two. (0 files)']);
  });

  it('aborts the handler’s signal when the turn is cancelled, and stores no answer', async () => {
    const id = sid('cancel');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'faq',
      content: 'wait forever',
    });
    const g = gatesOf(id);
    await within(g.reached.opened, 'the handler');
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).status).toBe(202);
    expect(await within(g.aborted.opened, 'the abort')).toBe(true);
    g.answer.open('Too late.');
    const end = await host.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn');
    expect(end.data).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    expect(host.events(id).filter((f) => f.type === 'agent.message.delta')).toEqual([]);
  });

  it('takes a host-agent result: a handler that returns pending actions pauses the turn', async () => {
    const id = sid('pause');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'asker',
      content: 'clean up',
    });
    const end = await host.waitFor(turnEnded(accepted.run_id, id), 'the end of the turn');
    expect(end.type).toBe('session.status_requires_action');
    const session = (await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json;
    expect(session).toMatchObject({ status: 'requires_action' });
  });

  it('refuses a definition without a handler when it is registered', () => {
    expect(() => createSwitchboard().registerCustomAgent({ info: { id: 'x' } } as never)).toThrow(
      'Custom agent "x" needs a handler function.',
    );
  });
});

describe('registerCustomAgent over AG-UI', () => {
  it('answers a run with the handler’s content as one text message, between RUN_STARTED and RUN_FINISHED', async () => {
    const { events } = await runAgUi(`${sandbox.aguiUrl}/faq`, sid('agui'), 'Where is my parcel?');
    const types = events.map((e) => e.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    const deltas = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as BaseEvent & { delta: string }).delta);
    // One answer, whole: the handler returns once.
    expect(deltas).toEqual(['The answer to "Where is my parcel?". (0 files)']);
  });
});
