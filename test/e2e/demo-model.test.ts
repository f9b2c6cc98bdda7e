import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_INFO } from '../../demo/demo-agent.ts';
import { startDemoMcpServer } from '../../demo/mcp-server.ts';
import { demoModelAgent, MODEL_DEMO_SUGGESTIONS, UPTIME_PROMPT } from '../../demo/model-agent.ts';
import script from '../../demo/model-script.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { LocalMcpServer } from '../../sandbox/mcp-server.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { type Frame, sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * The demo on a model loop (`npm run start:model`): the demo agent as a Chat Completions agent on the
 * sandbox's scripted model, driven by demo/model-script.ts, reaches each feature the demo page
 * suggests, with the page's own host context.
 */
const KEY = 'sk-demo-model-test';
let model: ScriptedModel;
let status: LocalMcpServer;
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('demo-model');

/** The page's host context (web/demo-app.tsx): its view, filter and the two actions it offers. */
const PAGE_CONTEXT = {
  host: { name: 'Switchboard demo', kind: 'browser' },
  view: {
    name: 'issues',
    data: { filter: 'all', issues: [{ number: 2, title: 'Login fails', status: 'open' }] },
  },
  actions: [
    {
      name: 'set_filter',
      description: 'Show only the issues of one status.',
      parameters: {
        type: 'object',
        properties: { status: { type: 'string', enum: ['all', 'open', 'closed'] } },
        required: ['status'],
        additionalProperties: false,
      },
    },
    {
      name: 'close_issue',
      description: 'Close an issue by its number.',
      parameters: {
        type: 'object',
        properties: { number: { type: 'integer' } },
        required: ['number'],
        additionalProperties: false,
      },
    },
  ],
};

beforeAll(async () => {
  model = await startScriptedModel({ script, apiKey: KEY });
  status = await startDemoMcpServer();
  const app = createSwitchboard();
  app.registerChatCompletionsAgent(
    demoModelAgent({ baseURL: model.baseURL, apiKey: KEY, statusUrl: status.url }),
  );
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await status?.close();
  await model?.close();
});

/** Sends a message over the WebSocket and returns its run's events once the turn has ended. */
const say = (sessionId: string, content: string, extra: Record<string, unknown> = {}) =>
  sendTurn(host, sessionId, content, { host_context: PAGE_CONTEXT, ...extra });

/** Answers a request over HTTP and returns the events of the run that hands it to the model. */
async function answer(sessionId: string, actionId: string, body: Record<string, unknown>) {
  const res = await api(sandbox.url, 'POST', `/api/sessions/${sessionId}/actions/${actionId}`, body);
  expect(res.status, res.text).toBe(202);
  await host.waitFor(turnEnded(res.json.run_id, sessionId), 'the end of the answer’s run');
  return host.events(sessionId).filter((f) => f.run_id === res.json.run_id);
}

const texts = (events: Frame[]) =>
  events
    .filter((e) => e.type === 'agent.message.delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');
const dataOf = (events: Frame[], type: string) =>
  events.find((e) => e.type === type)?.data as Record<string, unknown>;
/** The content of the last message of the model's last request. */
const lastMessage = () =>
  String(
    (model.requests.at(-1)?.body as { messages?: { content: string }[] })?.messages?.at(-1)?.content ?? '{}',
  );
const pendingOf = async (id: string) =>
  ((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json.pending_actions as {
    id: string;
    type: string;
    request: Record<string, unknown>;
  }[]) ?? [];

describe('the demo on a model loop', () => {
  it('is the same agent to the page as npm start’s, and each of its suggested prompts reaches a feature', async () => {
    const agents = await api<{ agents: Record<string, unknown>[] }>(sandbox.url, 'GET', '/api/agents');
    expect(agents.json.agents).toEqual([
      expect.objectContaining({
        id: DEMO_INFO.id,
        name: DEMO_INFO.name,
        suggestions: MODEL_DEMO_SUGGESTIONS,
      }),
    ]);
    // Each prompt is answered by a rule of the script, never its default, and fails nothing; the
    // long story is the cancel's (below).
    for (const prompt of MODEL_DEMO_SUGGESTIONS.filter((p) => !p.includes('story'))) {
      const { events } = await say(sid('suggested'), prompt);
      expect(
        events.find((e) => e.type === 'session.error'),
        prompt,
      ).toBeUndefined();
      expect(texts(events), prompt).not.toContain('Try one of the suggested prompts');
      expect(
        events.some((e) => ['agent.tool_use', 'tool_call', 'action.required'].includes(e.type)),
        `${prompt} reaches a tool`,
      ).toBe(true);
    }
  });

  it('asks the demo’s MCP server for the uptime: its tool runs on the server and its data is the result', async () => {
    const { events } = await say(sid('uptime'), UPTIME_PROMPT);
    expect(dataOf(events, 'agent.tool_use')).toMatchObject({
      name: 'status__uptime',
      args: { service: 'issue tracker' },
    });
    expect(dataOf(events, 'agent.tool_result')).toMatchObject({
      ok: true,
      result: { service: 'issue tracker', uptime: '99.98%', days: 30, incidents: 1 },
    });
    expect(texts(events)).toContain('99.98%');
  });

  it('counts words with a backend tool, then answers', async () => {
    const { events } = await say(sid('stats'), 'Count the words in this sentence');
    expect(dataOf(events, 'agent.tool_result')).toMatchObject({ result: { words: 6, characters: 32 } });
    expect(texts(events)).toContain('6 words');
  });

  it('asks approval for a refund with its argsSchema; an edit outside it is refused, an edit inside it is refunded', async () => {
    const id = sid('refund');
    const first = await say(id, 'Refund order 1042');
    expect(first.end.type).toBe('session.status_requires_action');
    const [asked] = await pendingOf(id);
    expect(asked).toMatchObject({
      type: 'tool_approval',
      request: {
        toolName: 'issue_refund',
        title: 'Refund $25 on order 1042?',
        args: { order: 1042, amount: 25 },
      },
    });
    expect(asked?.request.argsSchema).toMatchObject({ properties: { amount: { maximum: 100 } } });
    const refused = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
      approvedArgs: { order: 1042, amount: 500 },
    });
    expect(refused.status).toBe(422);
    const events = await answer(id, String(asked?.id), {
      decision: 'approve',
      approvedArgs: { order: 1042, amount: 10 },
    });
    expect(dataOf(events, 'agent.tool_result')).toMatchObject({ result: { refunded: 10 } });
    expect(texts(events)).toBe('The refund is done.');
  });

  it('asks which plan fits, and the answer goes back to the model', async () => {
    const id = sid('plan');
    await say(id, 'Help me choose a plan');
    const [asked] = await pendingOf(id);
    expect(asked).toMatchObject({
      type: 'user_question',
      request: { questions: [{ question: 'Which plan fits your team?' }] },
    });
    const events = await answer(id, String(asked?.id), { answers: ['Team'] });
    expect(texts(events)).toBe('A fine choice: that plan it is.');
    expect(JSON.parse(lastMessage())).toEqual({
      answers: ['Team'],
    });
  });

  it('asks the page for its local time with a client tool', async () => {
    const id = sid('time');
    await say(id, 'What time is it here?');
    const [asked] = await pendingOf(id);
    expect(asked).toMatchObject({ type: 'client_tool', request: { toolName: 'local_time' } });
    const events = await answer(id, String(asked?.id), { output: { time: '10:42', zone: 'Europe/Paris' } });
    expect(texts(events)).toBe('That is the time your device gave.');
  });

  it.each([
    [
      'Show only closed issues',
      'set_filter',
      { status: 'closed' },
      { shown: 1, status: 'closed' },
      'Done: your page shows the closed issues.',
    ],
    ['Close issue #2', 'close_issue', { number: 2 }, { closed: 2 }, 'Done: issue #2 is closed.'],
  ])(
    '“%s” calls the page’s action %s, whose result goes back to the model',
    async (prompt, name, args, result, reply) => {
      const id = sid(name);
      const first = await say(id, prompt);
      const pending = dataOf(first.events, 'final_response').pending_tool_call as { call_id: string };
      expect(pending).toMatchObject({ tool_name: name, arguments: args });
      const next = await say(id, '', { tool_call_id: pending.call_id, tool_result: result });
      expect(texts(next.events)).toBe(reply);
    },
  );

  it('streams a long story that a cancel stops', async () => {
    const id = sid('story');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      content: 'Tell me a long story',
      host_context: PAGE_CONTEXT,
    });
    await host.waitFor((f) => f.session_id === id && f.type === 'agent.message.delta', 'the story');
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).status).toBe(202);
    const end = await host.waitFor(turnEnded(accepted.run_id, id), 'the end of the story');
    expect(end.data).toMatchObject({ status: 'cancelled' });
  });

  it('sees an attached file: its text reaches the model with the message, and list_files names it', async () => {
    const id = sid('files');
    const res = await fetch(`${sandbox.url}/api/files?name=notes.txt`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'Ship the release on Friday.',
    });
    expect(res.status).toBe(201);
    const file = ((await res.json()) as { id: string }).id;
    const { events } = await say(id, 'What is in the file I attached?', {
      attachments: [{ kind: 'document', file_id: file }],
    });
    expect(dataOf(events, 'agent.tool_result')).toMatchObject({ result: [{ name: 'notes.txt' }] });
    expect(texts(events)).toBe('I see your file; its text came to me with your message.');
    // The file went to the model as its native content part, beside the message's text.
    const first = model.requests.at(-2)?.body as { messages: { content: unknown }[] };
    expect(first.messages.at(-1)?.content).toContainEqual({
      type: 'file',
      file: {
        filename: 'notes.txt',
        file_data: `data:text/plain;base64,${Buffer.from('Ship the release on Friday.').toString('base64')}`,
      },
    });
  });
});
