import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSessionId } from '../../lib/auth/index.ts';
import { createSwitchboard, type HostAgentInput } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('dec');
const inputs = new Map<string, HostAgentInput>();
const PROSE = 'SECRET-PROSE';

const CONTEXT = {
  actions: [
    {
      name: 'set_position',
      description: "Set the controlled object's position",
      parameters: {
        type: 'object',
        properties: { x: { type: 'number' } },
        required: ['x'],
        additionalProperties: false,
      },
    },
  ],
  view: { name: 'scene', data: { current_x: 0, revision: 3 } },
};

/** A controller's planner: what it proposes is named by the message. */
function plannerApp() {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'planner' },
    tools: [{ name: 'lookup', description: 'A backend tool' }],
    async invoke(input, io) {
      inputs.set(hostSessionId(input.conversationId), input);
      io.emit({ type: 'text', text: PROSE });
      io.emit({ type: 'tool_use', id: 'b1', name: 'lookup', args: { q: PROSE } });
      io.emit({ type: 'tool_result', id: 'b1', name: 'lookup', result: PROSE });
      const move = (id: string, x: number) =>
        io.emit({ type: 'tool_use', id, name: 'set_position', args: { x } });
      switch (input.message) {
        case 'move':
          move('c1', 5);
          break;
        case 'two':
          move('c1', 5);
          move('c2', 6);
          break;
        case 'hold':
          io.emit({ type: 'tool_use', id: 'h1', name: 'hold', args: {} });
          break;
        case 'hold beside':
          move('c1', 5);
          io.emit({ type: 'tool_use', id: 'h1', name: 'hold', args: {} });
          break;
        case 'slow':
          await new Promise((resolve) => io.signal.addEventListener('abort', resolve));
          return { content: PROSE, status: 'cancelled' };
        case 'bad result':
          return { content: 42 } as never;
        case 'limit':
          return { content: PROSE, status: 'incomplete', stopReason: 'limit' };
      }
      return { content: PROSE };
    },
  });
  return app;
}

beforeAll(async () => {
  sandbox = await testSandbox({
    app: plannerApp(),
    settings: {
      tools: {
        hostTools: [{ name: 'open_page', parameters: { type: 'object', properties: {} } }],
        pageScopes: {},
      },
    },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

const endOf = (runId: unknown) => turnEnded(runId);

/** Sends a decision request over the socket; resolves with the run's events once it ended. */
async function decide(sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: 'planner',
    output_mode: 'host_tools',
    content,
    host_context: CONTEXT,
    ...extra,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  await host.waitFor(endOf(accepted.run_id), `the end of ${content}`);
  return { accepted, events: host.events(sessionId).filter((f) => f.run_id === accepted.run_id) };
}

const finalOf = (events: Frame[]) =>
  events.find((f) => f.type === 'final_response')?.data as Record<string, unknown> | undefined;

async function storedText(sessionId: string): Promise<string> {
  const res = await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`);
  expect(res.status).toBe(200);
  return res.text;
}

describe('output_mode "host_tools": what the agent is offered', () => {
  it('offers only the context actions and hold, with outputMode', async () => {
    const session = sid('tools');
    await decide(session, 'hold');
    const input = inputs.get(session)!;
    expect(input.outputMode).toBe('host_tools');
    expect(input.tools.host.map((t) => t.name)).toEqual(['set_position', 'hold']);
    expect(input.tools.backend).toEqual([]);
  });

  it("uses the session's last context when the message carries none", async () => {
    const session = sid('last');
    await decide(session, 'hold');
    await decide(session, 'hold', { host_context: undefined });
    expect(inputs.get(session)!.tools.host.map((t) => t.name)).toEqual(['set_position', 'hold']);
  });

  it('refuses hold as an action name, and steering, over HTTP and WebSocket', async () => {
    const bad = [
      [
        { host_context: { actions: [{ name: 'hold', parameters: { type: 'object' } }] } },
        'host_context.actions.0.name',
      ],
      [{ steer: true }, 'steer'],
      [{ on_busy: 'steer' }, 'on_busy'],
    ] as const;
    for (const [extra, path] of bad) {
      const session = sid('bad');
      const body = {
        session_id: session,
        agent_id: 'planner',
        output_mode: 'host_tools',
        content: 'x',
        ...extra,
      };
      const res = await api(sandbox.url, 'POST', '/api/chat', body);
      expect(res.status, res.text).toBe(422);
      expect(res.text).toContain(path);
      const frame = await host.request({ action: 'assistant_message', ...body });
      expect(frame.type).toBe('assistant:error');
      expect(JSON.stringify(frame)).toContain(path);
      expect((await api(sandbox.url, 'GET', `/api/sessions/${session}`)).status).toBe(404);
    }
    // Without the mode, hold is an ordinary action name.
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: sid('plain'),
      agent_id: 'planner',
      content: 'x',
      host_context: { actions: [{ name: 'hold', parameters: { type: 'object' } }] },
    });
    expect(res.status, res.text).toBe(202);
  });

  it('refuses an unknown output_mode', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: sid('unknown'),
      agent_id: 'planner',
      output_mode: 'prose',
      content: 'x',
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain('output_mode');
  });
});

describe('the decision', () => {
  it('pending: exactly one pending_tool_call, content null, no prose published or stored', async () => {
    const session = sid('pending');
    const { events } = await decide(session, 'move');
    const final = finalOf(events)!;
    expect(final).toMatchObject({
      content: null,
      decision: 'pending',
      pending_tool_call: { tool_name: 'set_position', call_id: 'c1', arguments: { x: 5 }, queued: [] },
    });
    expect(JSON.stringify(events)).not.toContain(PROSE);
    expect(events.map((f) => f.type)).not.toContain('agent.message.delta');
    expect(events.map((f) => f.type)).not.toContain('agent.tool_use');
    expect(events.map((f) => f.type)).not.toContain('tool_call');
    expect(await storedText(session)).not.toContain(PROSE);
  });

  it('hold: an explicit hold, and no proposal at all', async () => {
    for (const content of ['hold', 'nothing']) {
      const session = sid('hold');
      const { events } = await decide(session, content);
      const final = finalOf(events)!;
      expect(final).toMatchObject({ content: null, decision: 'hold', pending_tool_call: null });
      expect(events.at(-1)?.type).toBe('session.status_idle');
      expect(JSON.stringify(events)).not.toContain(PROSE);
      expect(await storedText(session)).not.toContain(PROSE);
    }
  });

  it('a hold wins over an action emitted beside it, which is never admitted', async () => {
    const session = sid('beside');
    const { events } = await decide(session, 'hold beside');
    expect(finalOf(events)).toMatchObject({ decision: 'hold', pending_tool_call: null });
    const state = await api(sandbox.url, 'GET', `/api/sessions/${session}`);
    expect(state.json.status).toBe('idle');
    expect(state.json.pending_action ?? null).toBeNull();
  });

  it('several actions fail the turn with invalid_decision and nothing actionable', async () => {
    const session = sid('two');
    const { events } = await decide(session, 'two');
    expect(finalOf(events)).toBeUndefined();
    const error = events.find((f) => f.type === 'session.error')?.data as Record<string, unknown>;
    expect(error.code).toBe('invalid_decision');
    const state = await api(sandbox.url, 'GET', `/api/sessions/${session}`);
    expect(state.json.pending_action ?? null).toBeNull();
    expect(JSON.stringify(events)).not.toContain(PROSE);
  });

  it('a cancelled or limited snapshot carries no prose', async () => {
    const cancelled = sid('cancel');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: cancelled,
      agent_id: 'planner',
      output_mode: 'host_tools',
      content: 'slow',
      host_context: CONTEXT,
    });
    await host.waitFor((f) => f.type === 'session.status_running' && f.run_id === accepted.run_id, 'running');
    expect((await api(sandbox.url, 'POST', `/api/sessions/${cancelled}/cancel`)).status).toBe(202);
    await host.waitFor(endOf(accepted.run_id), 'the cancelled end');
    const events = host.events(cancelled);
    expect(events.find((f) => f.type === 'session.status_idle')?.data).toMatchObject({ status: 'cancelled' });
    expect(finalOf(events)?.decision).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain(PROSE);
    expect(await storedText(cancelled)).not.toContain(PROSE);

    const limited = sid('limit');
    const { events: limitEvents } = await decide(limited, 'limit');
    // A usable result that stopped at a limit, not the invalid-result path.
    expect(limitEvents.filter((f) => f.type === 'session.error')).toEqual([]);
    expect(limitEvents.find((f) => f.type === 'session.status_idle')?.data).toMatchObject({
      status: 'incomplete',
      stop_reason: 'limit',
    });
    expect(finalOf(limitEvents)?.decision).toBeUndefined();
    expect(JSON.stringify(limitEvents)).not.toContain(PROSE);
    expect(await storedText(limited)).not.toContain(PROSE);
  });

  it('a conversation without the mode still streams its prose', async () => {
    const session = sid('prose');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: session,
      agent_id: 'planner',
      content: 'hold',
      host_context: CONTEXT,
    });
    await host.waitFor(endOf(accepted.run_id), 'the end');
    expect(JSON.stringify(host.events(session))).toContain(PROSE);
  });
});

describe('receipts', () => {
  /** A pending decision over the socket; resolves with its call id. */
  async function pending(session: string) {
    const { events } = await decide(session, 'move');
    return (finalOf(events)!.pending_tool_call as { call_id: string }).call_id;
  }

  const receipt = (session: string, callId: string, extra: Record<string, unknown> = {}) =>
    api(sandbox.url, 'POST', '/api/chat', {
      id: `rcpt-${session}-${callId}`,
      session_id: session,
      content: '',
      tool_call_id: callId,
      tool_result: { x: 5 },
      ...extra,
    });

  it('a receipt ends with decision completed on the same message, the agent not called, and only once', async () => {
    const session = sid('receipt');
    const callId = await pending(session);
    const before = inputs.get(session);
    // The receipt omits output_mode: the stored mode still applies.
    const res = await receipt(session, callId, { tool_outcome: 'failed' });
    expect(res.status, res.text).toBe(202);
    await host.waitFor(endOf(res.json.run_id), 'the receipt');
    const events = host.events(session).filter((f) => f.run_id === res.json.run_id);
    expect(finalOf(events)).toMatchObject({ content: null, decision: 'completed', pending_tool_call: null });
    expect(finalOf(events)!.message_id).toBe(res.json.assistant_message_id);
    expect(inputs.get(session)).toBe(before);
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${session}/messages`)).json.messages as {
      role: string;
      content: string;
      tool_calls?: { id: string; ok: boolean }[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]?.content).toBe('');
    expect(messages[1]?.tool_calls).toMatchObject([{ id: callId, ok: false }]);
    // The duplicate (a new request id) is a 409; a call that was never pending too.
    const again = await receipt(session, callId, { id: 'another' });
    expect(again.status).toBe(409);
    expect(again.text).toMatch(/already|resolved/i);
    const unknown = await receipt(session, 'nope', { output_mode: 'host_tools' });
    expect(unknown.status).toBe(409);
  });

  it('a receipt over the socket, retried with its request id, is recorded once', async () => {
    const session = sid('ws-receipt');
    const callId = await pending(session);
    const body = {
      id: `ws-rcpt-${session}`,
      session_id: session,
      content: '',
      tool_call_id: callId,
      tool_result: { x: 5 },
      output_mode: 'host_tools',
    };
    const accepted = await host.request({ action: 'assistant_message', ...body });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    await host.waitFor(endOf(accepted.run_id), 'the receipt');
    const events = host.events(session).filter((f) => f.run_id === accepted.run_id);
    expect(finalOf(events)).toMatchObject({ content: null, decision: 'completed' });
    const retry = await api(sandbox.url, 'POST', '/api/chat', body);
    expect(retry.status, retry.text).toBe(202);
    expect(retry.json).toMatchObject({ duplicate: true, run_id: accepted.run_id });
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${session}/messages`)).json.messages as {
      tool_calls?: unknown[];
    }[];
    expect(messages[1]?.tool_calls).toHaveLength(1);
    expect(host.events(session).filter((f) => f.type === 'final_response')).toHaveLength(2);
  });

  it('a cancel does not revoke an idle pending call: 409 nothing_to_cancel over HTTP and the socket, and its receipt still completes', async () => {
    const session = sid('cancelled');
    const callId = await pending(session);
    const cancel = await api(sandbox.url, 'POST', `/api/sessions/${session}/cancel`);
    expect(cancel.status, cancel.text).toBe(409);
    expect(cancel.json.error).toMatchObject({ code: 'nothing_to_cancel' });
    const frame = await host.request({ action: 'assistant_cancel', session_id: session });
    expect(frame).toMatchObject({
      type: 'assistant:error',
      error: { type: 'session', code: 'nothing_to_cancel' },
    });
    expect((await api(sandbox.url, 'GET', `/api/sessions/${session}`)).json).toMatchObject({
      status: 'requires_action',
      pending_action: { call_id: callId },
    });
    const res = await receipt(session, callId);
    expect(res.status, res.text).toBe(202);
    await host.waitFor(endOf(res.json.run_id), 'the receipt');
    const events = host.events(session).filter((f) => f.run_id === res.json.run_id);
    expect(finalOf(events)).toMatchObject({ content: null, decision: 'completed', pending_tool_call: null });
    expect(host.events(session).filter((f) => f.type === 'action.resolved')).toMatchObject([
      { data: { action_id: callId, status: 'resolved' } },
    ]);
    expect((await api(sandbox.url, 'GET', `/api/sessions/${session}`)).json).toMatchObject({
      status: 'idle',
      pending_action: null,
    });
  });

  it('a cancel leaves no tombstone: a request that arrives after it still decides, under its own request id', async () => {
    const session = sid('late');
    const slow = await host.request({
      action: 'assistant_message',
      session_id: session,
      agent_id: 'planner',
      output_mode: 'host_tools',
      content: 'slow',
      host_context: CONTEXT,
    });
    await host.waitFor((f) => f.type === 'session.status_running' && f.run_id === slow.run_id, 'running');
    expect((await api(sandbox.url, 'POST', `/api/sessions/${session}/cancel`)).status).toBe(202);
    await host.waitFor(endOf(slow.run_id), 'the cancelled end');
    // The delayed request: the host rule is to discard it (its session was cancelled), not the runtime's.
    const { accepted, events } = await decide(session, 'move', { id: 'delayed-1' });
    expect(accepted.request_id).toBe('delayed-1');
    expect(finalOf(events)).toMatchObject({ decision: 'pending' });
  });

  it('a receipt after a newer decision superseded the call is a 409', async () => {
    const session = sid('superseded');
    const callId = await pending(session);
    await decide(session, 'hold');
    const res = await receipt(session, callId);
    expect(res.status).toBe(409);
  });
});

describe('the non-streaming result (wait_ms)', () => {
  const waitFor = (session: string, content: string, extra: Record<string, unknown> = {}) =>
    api(sandbox.url, 'POST', '/api/chat', {
      session_id: session,
      agent_id: 'planner',
      output_mode: 'host_tools',
      content,
      host_context: CONTEXT,
      wait_ms: 15_000,
      ...extra,
    });

  it('answers with the final response: a pending decision, then the receipt', async () => {
    const session = sid('wait');
    const res = await waitFor(session, 'move');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      session_id: session,
      status: 'requires_action',
      content: null,
      decision: 'pending',
      pending_tool_call: { tool_name: 'set_position', call_id: 'c1', arguments: { x: 5 }, queued: [] },
    });
    expect(res.text).not.toContain(PROSE);
    const receipt = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: session,
      content: '',
      tool_call_id: 'c1',
      tool_result: { x: 5 },
      wait_ms: 15_000,
    });
    expect(receipt.status, receipt.text).toBe(200);
    expect(receipt.json).toMatchObject({ status: 'completed', content: null, decision: 'completed' });
  });

  it('a hold, and an invalid decision as its error', async () => {
    const hold = await waitFor(sid('wait-hold'), 'hold');
    expect(hold.status).toBe(200);
    expect(hold.json).toMatchObject({ status: 'completed', decision: 'hold', pending_tool_call: null });
    const two = await waitFor(sid('wait-two'), 'two');
    expect(two.status).toBe(500);
    expect(two.json.error).toMatchObject({ code: 'invalid_decision' });
  });

  it('an unusable result is a 500 invalid_host_result', async () => {
    const res = await waitFor(sid('wait-bad'), 'bad result');
    expect(res.status, res.text).toBe(500);
    expect(res.json.error).toMatchObject({ code: 'invalid_host_result' });
  });

  it('without wait_ms the answer is the 202; the socket refuses wait_ms', async () => {
    const res = await waitFor(sid('nowait'), 'hold', { wait_ms: undefined });
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('queued');
    const frame = await host.request({
      action: 'assistant_message',
      session_id: sid('ws-wait'),
      agent_id: 'planner',
      content: 'hold',
      wait_ms: 1000,
    });
    expect(frame.type).toBe('assistant:error');
    expect(JSON.stringify(frame)).toContain('wait_ms');
    const tooLong = await waitFor(sid('toolong'), 'hold', { wait_ms: 60_000 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain('wait_ms');
  });
});
