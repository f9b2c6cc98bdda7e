import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackEvent, HostAgentCancelInput, HostAgentInput } from '../../lib/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type Gate, gate } from '../support/agents.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { within } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/*
 * The chat experience over HTTP and WebSocket: regenerate and edit (the conversation cut back, the
 * replaced messages kept), feedback on answers (stored, then the agent's hook, then the server's),
 * and the export of the whole conversation.
 */

const inputs: HostAgentInput[] = [];
/** Each hook call, in the order they came: `agent` (the agent's feedback), `server` (onFeedback). */
const hooks: { hook: 'agent' | 'server'; event: FeedbackEvent }[] = [];
const holds = new Map<string, { started: Gate; release: Gate }>();
const holdOf = (ref: string) => {
  let entry = holds.get(ref);
  if (!entry) {
    entry = { started: gate(), release: gate() };
    holds.set(ref, entry);
  }
  return entry;
};

const app = createSwitchboard({
  feedback: {
    onFeedback(event) {
      hooks.push({ hook: 'server', event });
      if (event.comment === 'server-explode') throw new Error('the analytics table is down');
    },
  },
});
app.registerHostAgent({
  info: { id: 'chat' },
  async invoke(input, { emit }) {
    inputs.push(input);
    const n = inputs.filter((i) => i.conversationId === input.conversationId).length;
    if (input.message.startsWith('hold')) {
      const { started, release } = holdOf(input.conversationId);
      started.open();
      await release.opened;
    }
    if (input.message === 'big') return { content: 'x'.repeat(1_100_000) };
    emit({ type: 'text', text: `answer ${n} ` });
    return {
      content: `answer ${n} to ${input.message}`,
      usage: { inputTokens: 3, outputTokens: 4, model: 'test' },
    };
  },
  async feedback(event) {
    hooks.push({ hook: 'agent', event });
    if (event.comment === 'explode') throw new Error('the evaluation set is down');
  },
});
const pauses = pauseAgents();
app.registerHostAgent(pauses.definitions[0]!);
/** What the rewinder's cancel hook was told. */
const rewinds: HostAgentCancelInput[] = [];
/** An agent that pauses (an approval, or a host call), and answers a regenerate without pausing. */
app.registerHostAgent({
  info: { id: 'rewinder' },
  async invoke(input, { emit }) {
    if (input.mode === 'regenerate') return { content: 'a fresh answer' };
    if (input.message.startsWith('hold')) {
      const { started, release } = holdOf(input.conversationId);
      started.open();
      await release.opened;
    }
    if (input.message.endsWith('wire'))
      return {
        content: 'I need your OK first.',
        pendingActions: [{ id: 'a1', type: 'tool_approval', toolName: 'wire_money', args: { amount: 5 } }],
      };
    if (input.message.endsWith('call')) {
      emit({ type: 'tool_use', id: 'c1', name: 'select_issue', args: { number: 42 } });
      return {};
    }
    return { content: `echo: ${input.message}` };
  },
  async resolveAction(input) {
    return { content: `resolved ${input.actionId}` };
  },
  async cancel(input) {
    rewinds.push(input);
  },
});
const SELECT = { actions: [{ name: 'select_issue', parameters: { type: 'object', properties: {} } }] };

const TOKENS: Record<string, { user: string; tenant?: string }> = {
  'token-alice': { user: 'alice', tenant: 'acme' },
  'token-bob': { user: 'bob', tenant: 'acme' },
};
let sandbox: Sandbox;
let alice: TestSocket;
const sid = sessionIds('cx');
const ref = (id: string) => refOf(id, 'alice', 'acme');

beforeAll(async () => {
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
  alice = await TestSocket.open(`${sandbox.wsUrl}?token=token-alice`);
});
afterAll(async () => {
  await alice?.close();
  await sandbox?.close();
});

/** An HTTP request as a user (alice unless another token is named). */
async function http(method: string, path: string, body?: unknown, token = 'token-alice') {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  return { status: res.status, json, text, url: res.url, redirected: res.redirected };
}

const ended = (runId: unknown) => turnEnded(runId);

/** Waits for a run to end; returns its events as alice's socket got them. */
async function endOf(runId: unknown): Promise<Frame[]> {
  await alice.waitFor(ended(runId), `the end of run ${String(runId)}`);
  return alice.frames.filter((f) => typeof f.seq === 'number' && f.run_id === runId);
}

/** Sends a message over alice's socket (joining it to the session) and waits for its turn to end. */
async function say(sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  const accepted = await alice.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: 'chat',
    content,
    ...extra,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  return { accepted, events: await endOf(accepted.run_id) };
}

type Message = { id: string; role: string; content: string; feedback?: Record<string, unknown> };
const messages = async (id: string) =>
  (await http('GET', `/api/sessions/${id}/messages`)).json.messages as Message[];
const inputsOf = (id: string) => inputs.filter((i) => i.conversationId === ref(id));
const hooksOf = (id: string) => hooks.filter((h) => h.event.conversationId === ref(id));
const exported = async (id: string) =>
  (await http('GET', `/api/sessions/${id}/export`)).json as {
    messages: (Message & { replaced: Record<string, unknown> | null; [k: string]: unknown })[];
    [k: string]: unknown;
  };

describe('regenerate', () => {
  it('over HTTP: asks for the newest answer again with history cut back; the old answer is kept, replaced and left out', async () => {
    const id = sid('regen');
    const first = await say(id, 'hi');
    const [question, answer] = await messages(id);
    expect(answer?.content).toBe('answer 1 to hi');
    const res = await http('POST', '/api/chat', {
      session_id: id,
      content: '',
      mode: 'regenerate',
      from_message_id: answer?.id,
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.message_id).toBe(question?.id);
    expect(res.json.assistant_message_id).not.toBe(answer?.id);
    const events = await endOf(res.json.run_id);
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'session.status_running',
      'messages.replaced',
      'user.message',
    ]);
    expect(events[1]?.data).toEqual({
      message_ids: [answer?.id],
      mode: 'regenerate',
      from_message_id: answer?.id,
    });
    expect(events[2]?.data).toMatchObject({ message_id: question?.id, content: 'hi', mode: 'regenerate' });

    const input = inputsOf(id).at(-1)!;
    expect(input).toMatchObject({ mode: 'regenerate', fromMessageId: answer?.id, message: 'hi' });
    expect(input.history.map((m) => [m.id, m.content])).toEqual([[question?.id, 'hi']]);
    expect((await messages(id)).map((m) => m.content)).toEqual(['hi', 'answer 2 to hi']);
    expect(first.accepted.assistant_message_id).toBe(answer?.id);

    const all = (await exported(id)).messages;
    expect(all.map((m) => [m.content, m.replaced?.mode ?? null])).toEqual([
      ['hi', null],
      ['answer 1 to hi', 'regenerate'],
      ['answer 2 to hi', null],
    ]);
    // A later turn's history leaves the replaced answer out.
    await say(id, 'again');
    expect(
      inputsOf(id)
        .at(-1)
        ?.history.map((m) => m.content),
    ).toEqual(['hi', 'answer 2 to hi', 'again']);
  });

  it('during a running turn: it is queued behind it like a new message and replaces that turn’s answer once it is stored', async () => {
    const id = sid('busy');
    const accepted = await alice.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'chat',
      content: 'hold on',
    });
    await within(holdOf(ref(id)).started.opened, 'the held turn to start');
    const regen = await alice.request({
      action: 'assistant_message',
      session_id: id,
      content: '',
      mode: 'regenerate',
      from_message_id: accepted.assistant_message_id,
    });
    expect(regen.type, JSON.stringify(regen)).toBe('assistant:accepted');
    expect(regen.message_id).toBe(accepted.message_id);
    holdOf(ref(id)).release.open();
    await endOf(accepted.run_id);
    await endOf(regen.run_id);
    expect(inputsOf(id).map((i) => i.mode ?? 'new')).toEqual(['new', 'regenerate']);
    expect((await messages(id)).map((m) => m.id)).toEqual([accepted.message_id, regen.assistant_message_id]);
    const replaced = (await exported(id)).messages.find((m) => m.id === accepted.assistant_message_id);
    expect(replaced?.replaced).toMatchObject({ mode: 'regenerate', by_run_id: regen.run_id });
  });
});

describe('edit', () => {
  it('over WebSocket: replaces the message it changes and everything after it; the agent gets the new text and the history before it', async () => {
    const id = sid('edit');
    await say(id, 'one');
    await say(id, 'two');
    const before = await messages(id);
    const edited = await say(id, 'uno', { mode: 'edit', from_message_id: before[0]?.id });
    expect(edited.accepted.message_id).not.toBe(before[0]?.id);
    expect(inputsOf(id).at(-1)).toMatchObject({ mode: 'edit', fromMessageId: before[0]?.id, message: 'uno' });
    expect(
      inputsOf(id)
        .at(-1)
        ?.history.map((m) => m.content),
    ).toEqual(['uno']);
    const replacedEvent = edited.events.find((e) => e.type === 'messages.replaced');
    expect(replacedEvent?.data).toMatchObject({ message_ids: before.map((m) => m.id) });
    expect((replacedEvent?.data as { message_ids: string[] } | undefined)?.message_ids).toEqual(
      before.map((m) => m.id),
    );
    expect((await messages(id)).map((m) => m.content)).toEqual(['uno', 'answer 3 to uno']);
    const all = (await exported(id)).messages;
    expect(all).toHaveLength(6);
    expect(all.filter((m) => m.replaced).map((m) => m.id)).toEqual(before.map((m) => m.id));
  });
});

describe('regenerate and edit: the replaced answer’s open requests', () => {
  const rewinder = { agent_id: 'rewinder' };
  const rewindsOf = (id: string) => rewinds.filter((c) => c.conversationId === ref(id));
  const sessionOf = async (id: string) => (await http('GET', `/api/sessions/${id}`)).json;
  const withdrawnIn = (events: Frame[]) =>
    events.filter((e) => e.type === 'action.resolved').map((e) => e.data);

  /** A withdrawn request as the seed says it: cancelled by system, the hook told, a late answer a 409. */
  async function expectWithdrawn(id: string, events: Frame[]) {
    expect(withdrawnIn(events)).toMatchObject([
      { action_id: 'a1', status: 'cancelled', actor: 'system', channel: 'system' },
    ]);
    expect(rewindsOf(id)).toMatchObject([{ reason: 'withdrawn', actions: [{ id: 'a1' }] }]);
    expect(rewindsOf(id)[0]?.runId).toBeUndefined();
    const late = await http('POST', `/api/sessions/${id}/actions/a1`, { decision: 'approve' });
    expect(late.status, late.text).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'withdrawn' });
    expect(await sessionOf(id)).toMatchObject({ status: 'idle', pending_actions: [], pending_action: null });
  }

  it('an edit withdraws the requests of the answer it replaces, and the session follows the new turn', async () => {
    const id = sid('editpause');
    await say(id, 'wire', rewinder);
    const [question] = await messages(id);
    expect(await sessionOf(id)).toMatchObject({ status: 'requires_action', pending_actions: [{ id: 'a1' }] });
    const edited = await say(id, 'hello', { ...rewinder, mode: 'edit', from_message_id: question?.id });
    await expectWithdrawn(id, edited.events);
    expect((await messages(id)).map((m) => m.content)).toEqual(['hello', 'echo: hello']);
  });

  it('a regenerate of a paused answer withdraws its requests; its host call is superseded', async () => {
    const id = sid('regenpause');
    await say(id, 'wire', rewinder);
    const answer = (await messages(id))[1]!;
    const regen = await say(id, '', { ...rewinder, mode: 'regenerate', from_message_id: answer.id });
    await expectWithdrawn(id, regen.events);
    expect((await messages(id)).map((m) => m.content)).toEqual(['wire', 'a fresh answer']);

    const call = sid('regencall');
    await say(call, 'call', { ...rewinder, host_context: SELECT });
    expect(await sessionOf(call)).toMatchObject({ pending_action: { call_id: 'c1' } });
    const paused = (await messages(call))[1]!;
    const again = await say(call, '', { ...rewinder, mode: 'regenerate', from_message_id: paused.id });
    expect(withdrawnIn(again.events)).toMatchObject([{ action_id: 'c1', status: 'superseded' }]);
    const late = await http('POST', '/api/chat', {
      session_id: call,
      content: '',
      tool_call_id: 'c1',
      tool_result: 'ok',
    });
    expect(late.status, late.text).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'superseded' });
    expect(await sessionOf(call)).toMatchObject({ status: 'idle', pending_action: null });
  });

  it('a regenerate accepted while the turn runs withdraws what that turn then asks, as its run cuts it back', async () => {
    const id = sid('regenbusy');
    const accepted = await alice.request({
      action: 'assistant_message',
      session_id: id,
      content: 'hold the wire',
      ...rewinder,
    });
    await within(holdOf(ref(id)).started.opened, 'the held turn to start');
    const regen = await alice.request({
      action: 'assistant_message',
      session_id: id,
      content: '',
      mode: 'regenerate',
      from_message_id: accepted.assistant_message_id,
    });
    expect(regen.type, JSON.stringify(regen)).toBe('assistant:accepted');
    holdOf(ref(id)).release.open();
    expect((await endOf(accepted.run_id)).at(-1)?.type).toBe('session.status_requires_action');
    await expectWithdrawn(id, await endOf(regen.run_id));
    expect((await messages(id)).map((m) => m.content)).toEqual(['hold the wire', 'a fresh answer']);
  });

  it('a rewrite cancelled before its run started still announces what it withdrew, and tells the hook', async () => {
    const id = sid('rewritecancel');
    await say(id, 'wire', rewinder);
    const [question] = await messages(id);
    const held = await alice.request({ action: 'assistant_message', session_id: id, content: 'hold on' });
    await within(holdOf(ref(id)).started.opened, 'the held turn to start');
    const edit = await alice.request({
      action: 'assistant_message',
      session_id: id,
      content: 'hello',
      mode: 'edit',
      from_message_id: question?.id,
    });
    expect(edit.type, JSON.stringify(edit)).toBe('assistant:accepted');
    const cancel = await http('POST', `/api/sessions/${id}/cancel`);
    expect(cancel.json).toMatchObject({ status: 'cancelling', run_ids: [held.run_id, edit.run_id] });
    holdOf(ref(id)).release.open();
    await endOf(held.run_id);
    const events = await endOf(edit.run_id);
    expect(events.at(-1)?.data).toMatchObject({ status: 'cancelled' });
    expect(withdrawnIn(events)).toMatchObject([{ action_id: 'a1', status: 'cancelled', actor: 'system' }]);
    expect(rewindsOf(id).filter((c) => c.reason === 'withdrawn')).toMatchObject([
      { actions: [{ id: 'a1' }] },
    ]);
    expect(await sessionOf(id)).toMatchObject({ status: 'idle', pending_actions: [] });
  });
});

describe('regenerate and edit: what is refused, and stores nothing', () => {
  async function refused(id: string, body: Record<string, unknown>) {
    const count = (await messages(id))?.length;
    const res = await http('POST', '/api/chat', { session_id: id, ...body });
    const frame = await alice.request({ action: 'assistant_message', session_id: id, ...body });
    expect((await messages(id))?.length).toBe(count);
    return { ...res, frame };
  }

  it('an unknown id, a wrong kind, an answer that is not the newest, a replaced message, a malformed id', async () => {
    const id = sid('refuse');
    await say(id, 'one');
    await say(id, 'two');
    const [m1, a1, m2, a2] = await messages(id);
    const issue = (r: { json: Record<string, unknown> }) =>
      r.json.error as { code: string; issues: { path: string[] }[] };

    const unknown = await refused(id, {
      content: '',
      mode: 'regenerate',
      from_message_id: 'msg_01AAAAAAAAAAAAAAAAAAAAAAAA_001',
    });
    expect(unknown.status).toBe(404);
    expect(issue(unknown)).toMatchObject({
      code: 'message_not_found',
      issues: [{ path: ['from_message_id'] }],
    });
    expect(unknown.frame).toMatchObject({
      type: 'assistant:error',
      error: { type: 'not_found', code: 'message_not_found', path: ['from_message_id'] },
    });

    const userAsAnswer = await refused(id, { content: '', mode: 'regenerate', from_message_id: m2?.id });
    expect(userAsAnswer.status).toBe(422);
    expect(issue(userAsAnswer).issues[0]?.path).toEqual(['from_message_id']);
    const answerAsUser = await refused(id, { content: 'x', mode: 'edit', from_message_id: a2?.id });
    expect(answerAsUser.status).toBe(422);

    const older = await refused(id, { content: '', mode: 'regenerate', from_message_id: a1?.id });
    expect(older.status).toBe(409);
    expect(issue(older).code).toBe('not_newest_answer');
    expect(older.frame).toMatchObject({ error: { type: 'session', code: 'not_newest_answer' } });

    await say(id, 'uno', { mode: 'edit', from_message_id: m1?.id });
    const gone = await refused(id, { content: 'x', mode: 'edit', from_message_id: m2?.id });
    expect(gone.status).toBe(409);
    expect(issue(gone).code).toBe('message_replaced');

    for (const [body, path] of [
      [{ content: 'not empty', mode: 'regenerate', from_message_id: a2?.id }, 'content'],
      [{ content: '', mode: 'regenerate' }, 'from_message_id'],
      [{ content: 'x', from_message_id: m1?.id }, 'mode'],
      [{ content: 'x', mode: 'rewind', from_message_id: m1?.id }, 'mode'],
      [{ content: 'x', mode: 'edit', from_message_id: 'not-a-message' }, 'from_message_id'],
      [{ content: 'x', mode: 'edit', from_message_id: m1?.id, steer: true }, 'steer'],
      [{ content: '', mode: 'regenerate', from_message_id: a2?.id, metadata: { a: 1 } }, 'metadata'],
    ] as const) {
      const res = await refused(id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(issue(res).issues[0]?.path, JSON.stringify(body)).toEqual([path]);
    }
  });

  it('an answer whose request was answered by a reply is not the newest: the reply is', async () => {
    const id = sid('reply');
    const asked = await alice.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'pauser',
      content: 'wire',
    });
    await endOf(asked.run_id);
    const answered = await http('POST', `/api/sessions/${id}/actions/req_wire`, { decision: 'approve' });
    await endOf(answered.json.run_id);
    const [, paused, reply] = await messages(id);
    const older = await refused(id, { content: '', mode: 'regenerate', from_message_id: paused?.id });
    expect(older.status).toBe(409);
    expect((older.json.error as { code: string }).code).toBe('not_newest_answer');
    const res = await http('POST', '/api/chat', {
      session_id: id,
      content: '',
      mode: 'regenerate',
      from_message_id: reply?.id,
    });
    expect(res.status, res.text).toBe(202);
    await endOf(res.json.run_id);
    expect((await messages(id)).map((m) => m.content)).toEqual(['wire', 'I need your OK first.']);
  });

  it('into a session that does not exist: 404, and no session is made', async () => {
    const id = sid('nowhere');
    const res = await http('POST', '/api/chat', {
      session_id: id,
      agent_id: 'chat',
      content: '',
      mode: 'regenerate',
      from_message_id: 'msg_01AAAAAAAAAAAAAAAAAAAAAAAA_001',
    });
    expect(res.status).toBe(404);
    expect((res.json.error as { code: string }).code).toBe('message_not_found');
    expect((await http('GET', `/api/sessions/${id}`)).status).toBe(404);
  });
});

describe('feedback', () => {
  it('stores the rating on the message, then calls the agent’s feedback with the whole event, then onFeedback; a rating is replaced, never added', async () => {
    const id = sid('rate');
    await say(id, 'hi');
    const [question, answer] = await messages(id);
    const path = `/api/sessions/${id}/messages/${answer?.id}/feedback`;
    const res = await http('POST', path, { rating: 'up', reasons: ['accurate'], comment: 'great' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      session_id: id,
      message_id: answer?.id,
      rating: 'up',
      reasons: ['accurate'],
      comment: 'great',
      previous: null,
    });
    expect(hooksOf(id).map((h) => h.hook)).toEqual(['agent', 'server']);
    const event = hooksOf(id)[0]!.event;
    expect(event).toMatchObject({
      conversationId: ref(id),
      messageId: answer?.id,
      messageIndex: 1,
      agentId: 'chat',
      userId: 'alice',
      rating: 'up',
      reasons: ['accurate'],
      comment: 'great',
      message: { id: answer?.id, role: 'assistant', content: 'answer 1 to hi' },
      question: { id: question?.id, role: 'user', content: 'hi' },
      context: { user: { id: 'alice' }, data: { tenant: 'acme' } },
    });
    expect(event.previous).toBeUndefined();
    expect(event.createdAt).toBe(event.updatedAt);
    expect(hooksOf(id)[1]!.event).toEqual(event);
    expect((await messages(id))[1]?.feedback).toMatchObject({ rating: 'up', reasons: ['accurate'] });

    // The same request again is safe; a change replaces it and says what it replaced.
    expect((await http('POST', path, { rating: 'up', reasons: ['accurate'], comment: 'great' })).status).toBe(
      200,
    );
    const down = await http('POST', path, { rating: 'down' });
    expect(down.json).toMatchObject({
      rating: 'down',
      reasons: [],
      previous: { rating: 'up', comment: 'great' },
    });
    expect(down.json.comment).toBeUndefined();
    const last = hooksOf(id).at(-1)!.event;
    expect(last).toMatchObject({
      rating: 'down',
      previous: { rating: 'up', reasons: ['accurate'], comment: 'great' },
    });
    expect(last.createdAt).toBe(event.createdAt);
    expect(last.updatedAt > event.updatedAt).toBe(true);
    // Withdrawn.
    expect((await http('POST', path, { rating: null })).json).toMatchObject({
      rating: null,
      previous: { rating: 'down' },
    });
    expect((await messages(id))[1]?.feedback).toMatchObject({ rating: null });
    expect((await messages(id))[0]?.feedback).toBeUndefined();
  });

  it('a hook that throws fails the request with its error, and the rating stays', async () => {
    const id = sid('explode');
    await say(id, 'hi');
    const answer = (await messages(id))[1]!;
    const path = `/api/sessions/${id}/messages/${answer.id}/feedback`;
    const res = await http('POST', path, { rating: 'down', comment: 'explode' });
    expect(res.status).toBe(500);
    expect(res.json.error).toMatchObject({ code: 'feedback_failed' });
    // The request fails with the hook's own error (maskServerErrors would make it generic).
    expect(JSON.stringify(res.json.error)).toContain('the evaluation set is down');
    expect(hooksOf(id).map((h) => h.hook)).toEqual(['agent']);
    expect((await messages(id))[1]?.feedback).toMatchObject({ rating: 'down', comment: 'explode' });

    const server = await http('POST', path, { rating: 'up', comment: 'server-explode' });
    expect(server.status).toBe(500);
    expect(JSON.stringify(server.json.error)).toContain('the analytics table is down');
    expect(hooksOf(id).map((h) => h.hook)).toEqual(['agent', 'agent', 'server']);
    expect((await messages(id))[1]?.feedback).toMatchObject({ rating: 'up' });
    // Sending it again is safe: the rating is replaced, not added.
    expect((await http('POST', path, { rating: 'up' })).json).toMatchObject({ previous: { rating: 'up' } });
  });

  it('refuses a user message (422), an unknown or malformed message, a bad body, and another owner’s session', async () => {
    const id = sid('badrate');
    await say(id, 'hi');
    const [question, answer] = await messages(id);
    const at = (m: string) => `/api/sessions/${id}/messages/${m}/feedback`;
    const user = await http('POST', at(question!.id), { rating: 'up' });
    expect(user.status).toBe(422);
    expect(user.json.error).toMatchObject({ issues: [{ path: ['messageId'] }] });
    const unknown = await http('POST', at('msg_01AAAAAAAAAAAAAAAAAAAAAAAA_001'), { rating: 'up' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'message_not_found' });
    const malformed = await http('POST', at('nope'), { rating: 'up' });
    expect(malformed.status).toBe(404);
    expect(malformed.json.error).toMatchObject({
      code: 'message_not_found',
      issues: [{ path: ['messageId'] }],
    });
    for (const [body, path] of [
      [{ rating: 'meh' }, ['rating']],
      [{}, ['rating']],
      [{ rating: 'up', reasons: 'x' }, ['reasons']],
      [{ rating: 'up', stars: 5 }, ['stars']],
    ] as const) {
      const res = await http('POST', at(answer!.id), body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.json.error as { issues: { path: unknown[] }[] }).issues[0]?.path).toEqual(path);
    }
    const bob = await http('POST', at(answer!.id), { rating: 'down' }, 'token-bob');
    expect(bob.status).toBe(404);
    expect(bob.json.error).toMatchObject({ code: 'session_not_found' });
    expect(hooksOf(id)).toEqual([]);
    expect((await messages(id))[1]?.feedback).toBeUndefined();
  });

  it('over WebSocket: assistant_feedback answers assistant:feedback, and errors as assistant:error', async () => {
    const id = sid('wsrate');
    await say(id, 'hi');
    const [question, answer] = await messages(id);
    const ok = await alice.request({
      action: 'assistant_feedback',
      id: 'rate-1',
      session_id: id,
      message_id: answer?.id,
      rating: 'up',
      reasons: ['fast'],
    });
    expect(ok).toMatchObject({
      type: 'assistant:feedback',
      message_id: answer?.id,
      rating: 'up',
      previous: null,
    });
    expect((await messages(id))[1]?.feedback).toMatchObject({ rating: 'up', reasons: ['fast'] });
    const bad = await alice.request({
      action: 'assistant_feedback',
      id: 'rate-2',
      session_id: id,
      message_id: question?.id,
      rating: 'up',
    });
    expect(bad).toMatchObject({
      type: 'assistant:error',
      request_id: 'rate-2',
      error: { type: 'validation' },
    });
    const gone = await alice.request({
      action: 'assistant_feedback',
      session_id: 'cx-none',
      message_id: answer?.id,
      rating: 'up',
    });
    expect(gone).toMatchObject({ error: { code: 'session_not_found' } });
  });

  it('a rating stays with the message it rated when a regenerate replaces it', async () => {
    const id = sid('keep');
    await say(id, 'hi');
    const answer = (await messages(id))[1]!;
    await http('POST', `/api/sessions/${id}/messages/${answer.id}/feedback`, { rating: 'down' });
    await say(id, '', { mode: 'regenerate', from_message_id: answer.id });
    const current = await messages(id);
    expect(current[1]?.id).not.toBe(answer.id);
    expect(current[1]?.feedback).toBeUndefined();
    const old = (await exported(id)).messages.find((m) => m.id === answer.id);
    expect(old).toMatchObject({ feedback: { rating: 'down' }, replaced: { mode: 'regenerate' } });
    // A replaced answer can still be rated; its question is the one it answered.
    const again = await http('POST', `/api/sessions/${id}/messages/${answer.id}/feedback`, { rating: 'up' });
    expect(again.status).toBe(200);
    expect(hooksOf(id).at(-1)?.event.question?.content).toBe('hi');
  });
});

describe('export', () => {
  it('returns the whole conversation: messages with their actions, ratings, usage, the host-context history; owner only', async () => {
    const id = sid('export');
    await say(id, 'hi', { host_context: { view: { name: 'orders' } } });
    const answer = (await messages(id))[1]!;
    await http('POST', `/api/sessions/${id}/messages/${answer.id}/feedback`, { rating: 'up' });
    const paused = await alice.request({
      action: 'assistant_message',
      session_id: id,
      content: 'wire',
      host_context: { view: { name: 'payments' } },
    });
    expect(paused.type).toBe('assistant:accepted');
    // The chat agent echoes; a pause comes from the pauser's session below.
    await endOf(paused.run_id);
    const res = await http('GET', `/api/sessions/${id}/export`);
    expect(res.status, res.text).toBe(200);
    const body = res.json as Awaited<ReturnType<typeof exported>>;
    expect(body).toMatchObject({
      format: 'switchboard.session-export',
      version: 1,
      session: { id, agent_id: 'chat' },
    });
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(body.messages[1]).toMatchObject({
      feedback: { rating: 'up' },
      usage: { inputTokens: 3, outputTokens: 4, model: 'test' },
      stop_reason: 'end_turn',
      actions: [],
      replaced: null,
    });
    // Whatever the record holds is exported: the frozen context block of a user message, for one.
    expect(body.messages[0]?.context_block).toContain('orders');
    expect(body.messages[0]).not.toHaveProperty('session_id');
    expect(body.host_context_history).toEqual([
      {
        message_id: body.messages[0]?.id,
        created_at: expect.any(String),
        host_context: expect.objectContaining({ view: { name: 'orders' } }),
      },
      {
        message_id: body.messages[2]?.id,
        created_at: expect.any(String),
        host_context: expect.objectContaining({ view: { name: 'payments' } }),
      },
    ]);
    expect((await http('GET', `/api/sessions/${id}/export`, undefined, 'token-bob')).status).toBe(404);
    expect((await http('GET', `/api/sessions/${id}/export?x=1`)).status).toBe(422);
    expect((await http('GET', '/api/sessions/cx-none/export')).status).toBe(404);
  });

  it('shows each message’s requests and where they are now', async () => {
    const id = sid('exportpause');
    const accepted = await alice.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'pauser',
      content: 'wire',
    });
    await endOf(accepted.run_id);
    const answered = await http('POST', `/api/sessions/${id}/actions/req_wire`, { decision: 'deny' });
    expect(answered.status).toBe(202);
    await endOf(answered.json.run_id);
    const body = await exported(id);
    expect(body.messages[1]).toMatchObject({
      pending_actions: [{ id: 'req_wire', status: 'resolved' }],
      actions: [
        { id: 'req_wire', type: 'tool_approval', status: 'resolved', resolution: { decision: 'deny' } },
      ],
    });
  });

  it('an export too large for a response is handed over through the bucket (303 to a short-lived link)', async () => {
    const id = sid('big');
    for (let i = 0; i < 5; i += 1) await say(id, 'big');
    const res = await http('GET', `/api/sessions/${id}/export`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.redirected).toBe(true);
    expect(res.url).toContain(`exports/`);
    // The link's key names neither the owner's scope nor the session's id.
    const [scope] = ref(id).split('~');
    const path = decodeURIComponent(new URL(res.url).pathname);
    expect(path).not.toContain(scope);
    expect(path).not.toContain(id);
    // It is still the session's: deleting the session deletes it (a signer that may not list the
    // bucket is told 403 for a missing key).
    expect((await http('DELETE', `/api/sessions/${id}`)).status).toBe(202);
    await expect
      .poll(async () => (await fetch(res.url)).status, { timeout: 20_000, interval: 200 })
      .toBeOneOf([403, 404]);
    const body = res.json as Awaited<ReturnType<typeof exported>>;
    expect(body.messages).toHaveLength(10);
    expect(body.messages[1]?.content).toHaveLength(1_100_000);
  }, 60_000);
});
