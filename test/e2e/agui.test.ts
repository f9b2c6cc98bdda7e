import { randomUUID } from 'node:crypto';
import {
  type AgentSubscriber,
  type BaseEvent,
  EventType,
  HttpAgent,
  type Interrupt,
  type RunAgentInput,
  verifyEvents,
} from '@ag-ui/client';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));

/** Released by a test: the agents that wait on it go on. */
const gates = new Map<string, () => void>();
const gate = (key: string) => new Promise<void>((resolve) => gates.set(key, resolve));
const open = async (key: string) => {
  await expect.poll(() => gates.has(key), { timeout: 10_000 }).toBe(true);
  gates.get(key)?.();
};

const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'talker' },
  async invoke({ message }, { emit }) {
    emit({ type: 'tool_use', id: 'look_1', name: 'lookup', args: { q: message } });
    emit({ type: 'tool_result', id: 'look_1', result: { found: 2 } });
    emit({ type: 'text', text: 'Hello' });
    emit({ type: 'text', text: ' world' });
    return {};
  },
});
app.registerHostAgent({
  info: { id: 'painter' },
  async invoke({ hostContext }, { emit }) {
    const offered = hostContext?.actions?.some((a) => a.name === 'pick_color');
    if (!offered) return { content: 'No color picker offered.' };
    emit({ type: 'text', text: 'Let me ask the page.' });
    emit({ type: 'tool_use', id: 'call_color', name: 'pick_color', args: { palette: 'warm' } });
    return {};
  },
  async resolveAction({ resolution }) {
    return { content: `The page picked ${JSON.stringify(resolution.result)}.` };
  },
});
app.registerHostAgent({
  info: { id: 'teller' },
  async invoke() {
    return {
      content: 'Two things first.',
      pendingActions: [
        {
          id: 'req_send',
          type: 'tool_approval',
          toolName: 'wire_money',
          title: 'Wire $5?',
          args: { amount: 5 },
        },
        {
          id: 'req_from',
          type: 'user_question',
          questions: [
            { question: 'From which account?', options: [{ label: 'main' }, { label: 'savings' }] },
          ],
        },
      ],
    };
  },
  async resolveAction({ pendingActions }) {
    // The turn waits until both are answered.
    return pendingActions.length > 0 ? { pendingActions } : { content: 'Sent from main.' };
  },
});
app.registerHostAgent({
  info: { id: 'banker' },
  async invoke() {
    return {
      content: 'I need your OK first.',
      pendingActions: [
        {
          id: 'req_wire',
          type: 'tool_approval',
          toolName: 'wire_money',
          title: 'Wire $5?',
          args: { amount: 5 },
        },
      ],
    };
  },
  async resolveAction({ resolution }) {
    return { content: `Wire ${resolution.decision === 'approve' ? 'sent' : 'refused'}.` };
  },
});
// A reviewer may answer its approvals, not its questions; what it says after an answer is the owner's.
app.registerHostAgent({
  info: { id: 'reviewed' },
  hitl: {
    authorizeResolve: ({ user, owner, action }) =>
      user === owner || (user === 'reviewer' && action.type === 'tool_approval'),
  },
  async invoke() {
    return {
      content: 'Two things first.',
      pendingActions: [
        { id: 'req_send', type: 'tool_approval', toolName: 'wire_money', title: 'Wire $5?', args: {} },
        {
          id: 'req_from',
          type: 'user_question',
          questions: [{ question: 'From which account?', options: [{ label: 'main' }] }],
        },
      ],
    };
  },
  async resolveAction({ pendingActions }, { emit }) {
    emit({ type: 'text', text: 'The owner’s private reply.' });
    return pendingActions.length > 0 ? { pendingActions } : { content: 'Sent.' };
  },
});
app.registerHostAgent({
  info: { id: 'slow' },
  async invoke({ message }, { emit, signal }) {
    emit({ type: 'text', text: 'part one, ' });
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    await Promise.race([gate(message), stopped]);
    if (signal.aborted) return {};
    emit({ type: 'text', text: 'part two.' });
    return {};
  },
});

app.registerHostAgent(demoAgent({ chunkDelayMs: 5 }));
// Its content carries on what streamed: the client gets the rest.
app.registerHostAgent({
  info: { id: 'extender' },
  async invoke({ message }, { emit, signal }) {
    emit({ type: 'text', text: 'I can refund order 1042 for $25. ' });
    if (message === 'wait') await Promise.race([gate('extender'), aborted(signal)]);
    return { content: 'I can refund order 1042 for $25. It needs your approval; you may change the amount.' };
  },
});
// Its content says something else: that is the answer, whatever streamed.
app.registerHostAgent({
  info: { id: 'reviser' },
  async invoke({ message }, { emit, signal }) {
    emit({ type: 'text', text: 'Thinking out loud, ' });
    emit({ type: 'text', text: 'a first draft.' });
    if (message === 'wait') await Promise.race([gate('reviser'), aborted(signal)]);
    return { content: 'The answer, revised.' };
  },
});

let sandbox: Sandbox;
const sid = sessionIds('agui');
const TOKENS: Record<string, string> = { 'token-alice': 'alice', 'token-reviewer': 'reviewer' };

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    tokens: (token) => (TOKENS[token] ? { user: TOKENS[token] } : null),
    settings: { stream: { coalesceMs: 20 } },
  });
});

afterAll(async () => {
  await sandbox?.close();
});

/** The real AG-UI client for one agent and one thread, as alice. */
function client(agentId: string, threadId: string) {
  return new HttpAgent({
    url: `${sandbox.aguiUrl}/${agentId}`,
    threadId,
    headers: { authorization: 'Bearer token-alice' },
    initialMessages: [],
  });
}

/** Records every event a run hands its subscribers, and how it finished. */
function recorder() {
  const events: BaseEvent[] = [];
  const finished: Array<{ outcome: string; interrupts?: Interrupt[]; pendingToolCallIds?: string[] }> = [];
  const failures: Error[] = [];
  const subscriber: AgentSubscriber = {
    onEvent: ({ event }) => {
      events.push(event);
    },
    onRunFinishedEvent: (params) => {
      finished.push({
        outcome: params.outcome,
        ...(params.outcome === 'interrupt' && { interrupts: params.interrupts }),
        ...(params.outcome === 'success' && { pendingToolCallIds: params.pendingToolCallIds }),
      });
    },
    onRunFailed: ({ error }) => {
      failures.push(error);
    },
  };
  return { events, finished, failures, subscriber, types: () => events.map((e) => e.type) };
}

const say = (agent: HttpAgent, content: string) =>
  agent.addMessage({ id: randomUUID(), role: 'user', content });

describe('the AG-UI endpoint with the real HttpAgent', () => {
  it('streams an answer: tool use, tool result and text, as events the client verifies', async () => {
    const agent = client('talker', sid('talk'));
    say(agent, 'find it');
    const run = recorder();
    await agent.runAgent({}, run.subscriber);
    expect(run.failures).toEqual([]);
    expect(run.types()).toEqual([
      EventType.RUN_STARTED,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      ...run.types().filter((t) => t === EventType.TEXT_MESSAGE_CONTENT),
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(run.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    const answer = agent.messages.find(
      (m) => m.role === 'assistant' && typeof m.content === 'string' && m.content,
    );
    expect(answer?.content).toBe('Hello world');
    const result = agent.messages.find((m) => m.role === 'tool');
    expect(result).toMatchObject({ toolCallId: 'look_1', content: '{"found":2}' });
  });

  it('passes the raw stream through verifyEvents, RUN_STARTED naming the thread and the run', async () => {
    const threadId = sid('raw');
    const agent = client('talker', threadId);
    const input: RunAgentInput = {
      threadId,
      runId: randomUUID(),
      messages: [{ id: 'u1', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const events = await lastValueFrom(agent.run(input).pipe(verifyEvents(), toArray()));
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId, runId: input.runId });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, threadId, runId: input.runId });
  });

  it('offers a frontend tool, ends the run on its call, and continues with its result on the next run', async () => {
    const agent = client('painter', sid('tool'));
    const tools = [
      {
        name: 'pick_color',
        description: 'Ask the person for a color.',
        parameters: { type: 'object', properties: { palette: { type: 'string' } } },
      },
    ];
    say(agent, 'paint it');
    const first = recorder();
    await agent.runAgent({ tools }, first.subscriber);
    expect(first.failures).toEqual([]);
    expect(first.finished).toEqual([{ outcome: 'success', pendingToolCallIds: ['call_color'] }]);
    const caller = agent.messages.find((m) => m.role === 'assistant');
    expect(caller?.role === 'assistant' && caller.toolCalls?.[0]).toMatchObject({
      id: 'call_color',
      function: { name: 'pick_color', arguments: '{"palette":"warm"}' },
    });

    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 'call_color', content: '"blue"' });
    const second = recorder();
    await agent.runAgent({ tools }, second.subscriber);
    expect(second.failures).toEqual([]);
    expect(second.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    // The answer follows the tool's result, as a message of its own.
    expect(agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(agent.messages.at(-1)?.content).toBe('The page picked "blue".');
  });

  it('surfaces an approval as an interrupt and resumes it with the answer', async () => {
    const agent = client('banker', sid('hitl'));
    say(agent, 'wire five dollars');
    const first = recorder();
    await agent.runAgent({}, first.subscriber);
    expect(first.failures).toEqual([]);
    expect(first.finished).toHaveLength(1);
    expect(first.finished[0]?.outcome).toBe('interrupt');
    expect(first.finished[0]?.interrupts).toMatchObject([
      {
        id: 'req_wire',
        reason: 'tool_approval',
        message: 'Wire $5?',
        metadata: { request: { toolName: 'wire_money' } },
      },
    ]);
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['req_wire']);

    const second = recorder();
    await agent.runAgent(
      { resume: [{ interruptId: 'req_wire', status: 'resolved', payload: { decision: 'approve' } }] },
      second.subscriber,
    );
    expect(second.failures).toEqual([]);
    expect(second.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    expect(agent.messages.at(-1)?.content).toBe('Wire sent.');
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('decides none of several answers when one is refused, and each once all of them are good', async () => {
    const threadId = sid('two');
    const agent = client('teller', threadId);
    say(agent, 'wire it');
    const first = recorder();
    await agent.runAgent({}, first.subscriber);
    expect(first.finished[0]?.interrupts?.map((i) => i.id)).toEqual(['req_send', 'req_from']);
    const approve = {
      interruptId: 'req_send',
      status: 'resolved' as const,
      payload: { decision: 'approve' },
    };

    // A question cannot be cancelled: the whole request is refused, the approval beside it too.
    const refused = await fetch(`${sandbox.aguiUrl}/teller`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer token-alice' },
      body: JSON.stringify({
        threadId,
        runId: randomUUID(),
        messages: [],
        resume: [approve, { interruptId: 'req_from', status: 'cancelled' }],
      }),
    });
    const body = (await refused.json()) as { error: { issues: Array<{ path: unknown[] }> } };
    expect(refused.status).toBe(422);
    expect(body.error.issues[0]?.path).toEqual(['resume', 1, 'status']);

    const second = recorder();
    await agent.runAgent(
      {
        resume: [approve, { interruptId: 'req_from', status: 'resolved', payload: { answers: ['main'] } }],
      },
      second.subscriber,
    );
    expect(second.failures).toEqual([]);
    expect(second.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    expect(agent.messages.at(-1)?.content).toBe('Sent from main.');
  });

  it('ends a cancelled run with the cancelled outcome', async () => {
    const threadId = sid('cancel');
    const agent = client('slow', threadId);
    say(agent, 'take your time');
    const run = recorder();
    let cancelled = false;
    // Asserted after the run: the client's subscriber runner would swallow a failed expect here.
    let cancelStatus: number | undefined;
    await agent.runAgent(
      {},
      {
        ...run.subscriber,
        onTextMessageContentEvent: async () => {
          if (cancelled) return;
          cancelled = true;
          const res = await api(sandbox.url, 'POST', `/api/sessions/${threadId}/cancel`, undefined, {
            token: 'token-alice',
          });
          cancelStatus = res.status;
        },
      },
    );
    expect(cancelStatus).toBe(202);
    expect(run.failures).toEqual([]);
    expect(run.finished).toEqual([{ outcome: 'cancelled' }]);
  });

  it('gives a client whose connection dropped the rest of the run when it posts the same run again', async () => {
    const threadId = sid('drop');
    const agent = client('slow', threadId);
    say(agent, 'long answer');
    const runId = randomUUID();
    const cut = new AbortController();
    const first = recorder();
    await agent.runAgent(
      { runId, abortController: cut },
      {
        ...first.subscriber,
        onTextMessageContentEvent: () => {
          cut.abort();
        },
      },
    );
    expect(first.finished).toEqual([]);
    const partial = agent.messages.find((m) => m.role === 'assistant');
    expect(partial?.content).toBe('part one, ');

    await open('long answer');
    const again = recorder();
    await agent.runAgent({ runId }, again.subscriber);
    expect(again.failures).toEqual([]);
    expect(again.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    const answers = agent.messages.filter((m) => m.role === 'assistant');
    expect(answers.map((m) => m.content)).toEqual(['part one, part two.']);
    // The same run, not a second turn: one user message and one answer in the session.
    const stored = await api<{ messages: unknown[] }>(
      sandbox.url,
      'GET',
      `/api/sessions/${threadId}/messages`,
      undefined,
      {
        token: 'token-alice',
      },
    );
    expect(stored.json.messages).toHaveLength(2);
  });
});

/** The text of the client's last assistant message. */
const lastAnswer = (agent: HttpAgent) => agent.messages.filter((m) => m.role === 'assistant').at(-1)?.content;

/** The stored answer: the content of the session's last assistant message. */
async function storedAnswer(threadId: string) {
  const res = await api<{ messages: Array<{ role: string; content: string }> }>(
    sandbox.url,
    'GET',
    `/api/sessions/${threadId}/messages`,
    undefined,
    { token: 'token-alice' },
  );
  expect(res.status).toBe(200);
  return res.json.messages.filter((m) => m.role === 'assistant').at(-1)?.content;
}

/** The prompts the demo page suggests: the demo agent's own suggestions, so that a new one is not left out. */
const DEMO_PROMPTS = demoAgent().info.suggestions ?? [];

/** The page's own actions, which the demo's host-action prompts call. */
const PAGE_TOOLS = [
  {
    name: 'set_filter',
    description: 'Show the issues of one status.',
    parameters: { type: 'object', properties: { status: { type: 'string' } } },
  },
  {
    name: 'close_issue',
    description: 'Close an issue.',
    parameters: { type: 'object', properties: { number: { type: 'integer' } } },
  },
];

describe('what a reviewer sees over AG-UI', () => {
  it('shows a reviewer her answer’s outcome alone: no text of the owner’s turn, no other interrupt', async () => {
    const threadId = sid('review');
    const owner = client('reviewed', threadId);
    say(owner, 'wire it');
    const asked = recorder();
    await owner.runAgent({}, asked.subscriber);
    expect(asked.finished[0]?.interrupts?.map((i) => i.id)).toEqual(['req_send', 'req_from']);
    const { ref } = (
      await api(sandbox.url, 'GET', `/api/sessions/${threadId}`, undefined, { token: 'token-alice' })
    ).json as { ref: string };

    const reviewer = new HttpAgent({
      url: `${sandbox.aguiUrl}/reviewed`,
      threadId: ref,
      headers: { authorization: 'Bearer token-reviewer' },
      initialMessages: [],
    });
    const run = recorder();
    await reviewer.runAgent(
      { resume: [{ interruptId: 'req_send', status: 'resolved', payload: { decision: 'approve' } }] },
      run.subscriber,
    );
    expect(run.failures).toEqual([]);
    expect(run.types()).toEqual([EventType.RUN_STARTED, EventType.CUSTOM, EventType.RUN_FINISHED]);
    expect(run.events[1]).toMatchObject({
      name: 'switchboard.answered',
      value: {
        answers: [
          {
            session_id: threadId,
            action_id: 'req_send',
            status: 'queued',
            decision: { decision: 'approve' },
            duplicate: false,
          },
        ],
      },
    });
    expect(run.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    expect(JSON.stringify(run.events)).not.toMatch(/req_from|From which account|private reply|Two things/);
    expect(reviewer.messages).toEqual([]);
    expect(reviewer.pendingInterrupts).toEqual([]);

    // Posted again (the same runId), it is the same answer, applied once: nothing more is shown.
    const { runId } = run.events[0] as unknown as { runId: string };
    const again = await fetch(`${sandbox.aguiUrl}/reviewed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer token-reviewer' },
      body: JSON.stringify({
        threadId: ref,
        runId,
        messages: [],
        resume: [{ interruptId: 'req_send', status: 'resolved', payload: { decision: 'approve' } }],
      }),
    });
    const events = (await again.text())
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice(6)) as { type: string; value?: unknown });
    expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'CUSTOM', 'RUN_FINISHED']);
    const first = (run.events[1] as unknown as { value: { answers: object[] } }).value.answers[0];
    expect(events[1]?.value).toEqual({ answers: [{ ...first, duplicate: true }] });

    // The owner's turn went on: once it waits on the question still open, she answers it.
    await expect
      .poll(
        async () =>
          (await api(sandbox.url, 'GET', `/api/sessions/${threadId}`, undefined, { token: 'token-alice' }))
            .json.status,
        { timeout: 10_000 },
      )
      .toBe('requires_action');
    const later = client('reviewed', threadId);
    const last = recorder();
    await later.runAgent(
      { resume: [{ interruptId: 'req_from', status: 'resolved', payload: { answers: ['main'] } }] },
      last.subscriber,
    );
    expect(last.failures).toEqual([]);
    // What the reviewer was not shown is the owner's: her own stream carries it.
    expect(JSON.stringify(last.events)).toMatch(/private reply/);
    expect(later.messages.at(-1)?.content).toBe('Sent.');
  });
});

describe("the AG-UI client's last assistant message is the stored answer", () => {
  it.each(DEMO_PROMPTS)(
    'for the demo prompt %j (the answer that paused, for one that pauses)',
    async (prompt) => {
      expect(DEMO_PROMPTS.length).toBeGreaterThanOrEqual(7);
      const threadId = sid('demo');
      const agent = client('demo', threadId);
      say(agent, prompt);
      const run = recorder();
      await agent.runAgent({ tools: PAGE_TOOLS }, run.subscriber);
      expect(run.failures).toEqual([]);
      expect(run.finished).toHaveLength(1);
      const stored = await storedAnswer(threadId);
      expect(stored).toBeTruthy();
      expect(lastAnswer(agent)).toBe(stored);
    },
  );

  it('sends the rest when the content carries on what streamed', async () => {
    const threadId = sid('extends');
    const agent = client('extender', threadId);
    say(agent, 'refund it');
    const run = recorder();
    await agent.runAgent({}, run.subscriber);
    expect(run.failures).toEqual([]);
    expect(run.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    const stored = await storedAnswer(threadId);
    expect(stored).toBe(
      'I can refund order 1042 for $25. It needs your approval; you may change the amount.',
    );
    expect(agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([stored]);
  });

  it('ends what streamed and sends the content as a message of its own when the content replaces it', async () => {
    const threadId = sid('replaces');
    const agent = client('reviser', threadId);
    say(agent, 'answer me');
    const run = recorder();
    await agent.runAgent({}, run.subscriber);
    expect(run.failures).toEqual([]);
    expect(run.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    expect(await storedAnswer(threadId)).toBe('The answer, revised.');
    expect(agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'Thinking out loud, a first draft.',
      'The answer, revised.',
    ]);
  });

  it.each([
    ['extender', ['I can refund order 1042 for $25. It needs your approval; you may change the amount.']],
    ['reviser', ['Thinking out loud, a first draft.', 'The answer, revised.']],
  ])('gives %s the same answer, once, when the run is posted again', async (agentId, answers) => {
    // Posted again after it finished: the client holds everything, and gets nothing twice.
    const threadId = sid(`again-${agentId}`);
    const agent = client(agentId, threadId);
    say(agent, 'answer me');
    const runId = randomUUID();
    await agent.runAgent({ runId }, recorder().subscriber);
    const again = recorder();
    await agent.runAgent({ runId }, again.subscriber);
    expect(again.failures).toEqual([]);
    expect(again.finished).toEqual([{ outcome: 'success', pendingToolCallIds: [] }]);
    expect(agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(answers);
    expect(again.types()).not.toContain(EventType.TEXT_MESSAGE_CONTENT);

    // Cut while the text streams, then posted again: the rest, and the final content, once.
    const cutThread = sid(`cut-${agentId}`);
    const cutAgent = client(agentId, cutThread);
    say(cutAgent, 'wait');
    const cutRun = randomUUID();
    const cut = new AbortController();
    await cutAgent.runAgent(
      { runId: cutRun, abortController: cut },
      {
        onTextMessageContentEvent: () => {
          cut.abort();
        },
      },
    );
    await open(agentId);
    const rest = recorder();
    await cutAgent.runAgent({ runId: cutRun }, rest.subscriber);
    expect(rest.failures).toEqual([]);
    expect(cutAgent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(answers);
    expect(lastAnswer(cutAgent)).toBe(await storedAnswer(cutThread));
  });
});

describe('what the AG-UI endpoint refuses', () => {
  const post = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer token-alice' }) =>
    fetch(`${sandbox.aguiUrl}/talker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const input = (extra: Record<string, unknown> = {}) => ({
    threadId: sid('bad'),
    runId: randomUUID(),
    messages: [{ id: 'u1', role: 'user', content: 'hi' }],
    ...extra,
  });

  it('answers 401 without a token, or with one it does not know', async () => {
    expect((await post(input(), {})).status).toBe(401);
    const res = await post(input(), { authorization: 'Bearer nobody' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('answers 422 naming the field the client sent', async () => {
    const cases: Array<[Record<string, unknown>, (string | number)[]]> = [
      [{ threadId: 'has space' }, ['threadId']],
      [{ messages: [{ id: 'a1', role: 'assistant', content: 'hi' }] }, ['messages', 0, 'role']],
      [
        { tools: [{ name: 'bad name!', description: 'x', parameters: { type: 'object' } }] },
        ['tools', 0, 'name'],
      ],
      [{ messages: [{ id: 'u1', role: 'user' }] }, ['messages', 0, 'content']],
      // Ids are checked before anything is looked up by them, whatever their length.
      [{ runId: 'r'.repeat(129) }, ['runId']],
      [{ runId: 'r'.repeat(1_100) }, ['runId']],
      [{ threadId: 't'.repeat(1_100) }, ['threadId']],
      [{ resume: [{ interruptId: 'i'.repeat(1_100), status: 'resolved' }] }, ['resume', 0, 'interruptId']],
      [
        { messages: [{ id: 't1', role: 'tool', toolCallId: 'c'.repeat(1_100), content: '{}' }] },
        ['messages', 0, 'toolCallId'],
      ],
    ];
    for (const [extra, path] of cases) {
      const res = await post(input(extra));
      const body = (await res.json()) as { error: { code: string; issues: Array<{ path: unknown[] }> } };
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(body.error.issues[0]?.path, JSON.stringify(body)).toEqual(path);
    }
  });

  it('answers 400 for a body that is not JSON, and 404 for a GET', async () => {
    const res = await fetch(`${sandbox.aguiUrl}/talker`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-alice', 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    const get = await fetch(`${sandbox.aguiUrl}/talker`, {
      headers: { authorization: 'Bearer token-alice' },
    });
    expect(get.status).toBe(404);
  });

  it('answers a browser preflight by the endpoint CORS', async () => {
    const res = await fetch(`${sandbox.aguiUrl}/talker`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
  });
});
