import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type ModelAgentDefinition } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * The host contract's promises for the agents whose model loop Switchboard runs (Chat Completions
 * and Responses): look_at_screen, several host actions of one response handed over one at a time,
 * steering between model calls. Against the scripted model, which refuses (as OpenAI does) a
 * conversation with a tool call left unanswered.
 */

/** A 1×1 PNG, as a page's screenshot. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SCREENSHOT = { kind: 'image', purpose: 'screenshot', data_uri: `data:image/png;base64,${PNG}` };

const action = (name: string) => ({
  name,
  description: `${name} on the page`,
  parameters: {
    type: 'object',
    properties: { number: { type: 'integer' } },
    required: ['number'],
    additionalProperties: false,
  },
});
/** A page with two actions. */
const PAGE = {
  host: { name: 'Issues page', kind: 'browser' },
  view: { name: 'issues' },
  actions: [action('select_issue'), action('close_issue')],
};

/** The backend tool the steering test holds open until a steering message has been sent. */
let releaseSlow: () => void = () => {};
let slowStarted: () => void = () => {};

const SCRIPT = {
  rules: [
    { match: 'what do you see', on: 'user' as const, reply: { toolCalls: [{ name: 'look_at_screen' }] } },
    { tool: 'look_at_screen', reply: { text: 'I see your screen.' } },
    {
      match: 'select and close',
      on: 'user' as const,
      reply: {
        text: 'On it. ',
        toolCalls: [
          { id: 'call_select', name: 'select_issue', arguments: { number: 4 } },
          { id: 'call_close', name: 'close_issue', arguments: { number: 4 } },
        ],
      },
    },
    { tool: 'close_issue', reply: { text: 'Selected and closed.' } },
    { tool: 'select_issue', reply: { text: 'Selected only.' } },
    { match: 'take your time', on: 'user' as const, reply: { toolCalls: [{ name: 'slow', arguments: {} }] } },
    { tool: 'slow', reply: { text: 'Done slowly.' } },
    { match: 'also mention cats', on: 'user' as const, reply: { text: 'Cats noted.' } },
  ],
  default: { text: 'Nothing to say.' },
};

let model: ScriptedModel;
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('loop');

beforeAll(async () => {
  model = await startScriptedModel({ script: SCRIPT });
  const app = createSwitchboard();
  for (const kind of ['chat', 'responses'] as const) {
    const definition: ModelAgentDefinition = {
      info: { id: kind },
      baseURL: model.baseURL,
      apiKey: 'sk-scripted',
      model: 'scripted-small',
      tools: [
        {
          name: 'slow',
          parameters: { type: 'object', properties: {}, additionalProperties: false },
          execute: async () => {
            slowStarted();
            await new Promise<void>((resolve) => {
              releaseSlow = resolve;
            });
            return { ok: true };
          },
        },
      ],
    };
    if (kind === 'chat') app.registerChatCompletionsAgent(definition);
    else app.registerResponsesAgent(definition);
  }
  sandbox = await testSandbox({ app });
  host = await TestSocket.open(sandbox.wsUrl);
}, 60_000);
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await model?.close();
});

type Via = 'http' | 'ws';
const ENDS = new Set(['session.status_idle', 'session.status_requires_action']);

/** Sends a message (or a continuation) over HTTP or the WebSocket: its answer, or its run id. */
async function start(via: Via, sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  if (via === 'ws')
    return host.request({ action: 'assistant_message', session_id: sessionId, content, ...extra });
  const res = await api(sandbox.url, 'POST', '/api/chat', { session_id: sessionId, content, ...extra });
  return res.status === 202 ? { type: 'assistant:accepted', ...res.json } : { type: 'error', ...res.json };
}

/** The events of one run once it has ended, as the transport delivers them. */
async function runEvents(via: Via, sessionId: string, runId: string): Promise<Frame[]> {
  if (via === 'ws') {
    await host.waitFor(turnEnded(runId, sessionId), 'the end of the turn');
    return host.events(sessionId).filter((e) => e.run_id === runId);
  }
  const read = async () =>
    ((await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/events`)).json.events as Frame[]).filter(
      (e) => e.run_id === runId,
    );
  await expect
    .poll(async () => (await read()).some((e) => ENDS.has(e.type)), queued('the end of the turn'))
    .toBe(true);
  return read();
}

/** Sends a message (or a continuation) and waits for the end of its turn: the event that ended it, and its events. */
async function say(via: Via, sessionId: string, content: string, extra: Record<string, unknown> = {}) {
  if (via === 'ws') return sendTurn(host, sessionId, content, extra);
  const accepted = await start(via, sessionId, content, extra);
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  const events = await runEvents(via, sessionId, accepted.run_id as string);
  return { end: events.find((e) => ENDS.has(e.type)) as Frame, events };
}

const final = (events: Frame[]) =>
  events.find((e) => e.type === 'final_response')?.data as {
    content: string | null;
    pending_tool_call: { tool_name: string; call_id: string; queued: string[] } | null;
  };
const bodiesSince = (from: number) => model.requests.slice(from).map((r) => JSON.stringify(r.body));
const toolNamesOf = (body: string) =>
  [...body.matchAll(/"name":"([a-z_]+)","(?:description|parameters)"/g)].map((m) => m[1]);

// Each loop over one transport: every behaviour is tried over HTTP and over the WebSocket.
describe.each([
  ['chat', 'ws'],
  ['responses', 'http'],
] as const)('the %s loop, over %s, keeps the host contract', (kind, via) => {
  it('offers look_at_screen only with a screenshot, and shows it only after the call', async () => {
    const id = sid(`look-${kind}`);
    const from = model.requests.length;
    const { end, events } = await say(via, id, 'what do you see?', {
      agent_id: kind,
      attachments: [SCREENSHOT],
    });
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(final(events).content).toBe('I see your screen.');
    const [first, second] = bodiesSince(from);
    // The first request offers the tool and holds no image bytes; the one after the call holds them.
    expect(toolNamesOf(first!)).toContain('look_at_screen');
    expect(first).not.toContain(PNG);
    expect(second).toContain(PNG);
    expect(events.find((e) => e.type === 'agent.tool_use')?.data).toMatchObject({ name: 'look_at_screen' });
    // Each wire's request after the call, pinned: the call's result, then the screenshot as an image.
    await expect(`${JSON.stringify(model.requests[from + 1]?.body, null, 2)}\n`).toMatchFileSnapshot(
      `../fixtures/models/${kind}-look.json`,
    );
    // Without a screenshot it is not offered.
    const plain = model.requests.length;
    await say(via, sid(`plain-${kind}`), 'hello', { agent_id: kind });
    expect(toolNamesOf(bodiesSince(plain)[0]!)).not.toContain('look_at_screen');
    // The screenshot is stored nowhere: not in the messages, not in the export.
    const exported = await api(sandbox.url, 'GET', `/api/sessions/${id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain(PNG);
  });

  it('hands two host actions of one response over one at a time, then gives the model both results at once', async () => {
    const id = sid(`queued-${kind}`);
    const from = model.requests.length;
    const first = await say(via, id, 'select and close issue 4', { agent_id: kind, host_context: PAGE });
    expect(first.end.type).toBe('session.status_requires_action');
    const pending = final(first.events).pending_tool_call!;
    expect(pending).toMatchObject({ tool_name: 'select_issue', queued: [expect.any(String)] });
    const [queuedId] = pending.queued;
    // The queued call is not pending yet: its continuation is refused.
    const early = await start(via, id, '', { tool_call_id: queuedId, tool_result: { closed: 4 } });
    expect(early).toMatchObject({ error: { code: 'not_pending' } });

    const second = await say(via, id, '', { tool_call_id: pending.call_id, tool_result: { selected: 4 } });
    expect(second.end.type).toBe('session.status_requires_action');
    expect(final(second.events).pending_tool_call).toMatchObject({
      tool_name: 'close_issue',
      call_id: queuedId,
      queued: [],
    });
    // The model was not called between the two.
    expect(bodiesSince(from)).toHaveLength(1);

    const third = await say(via, id, '', { tool_call_id: queuedId, tool_result: { closed: 4 } });
    expect(third.end.data).toMatchObject({ status: 'completed' });
    const bodies = bodiesSince(from);
    expect(bodies).toHaveLength(2);
    // Both results, together, in the model's order.
    const last = bodies[1]!;
    expect(last.indexOf('{\\"selected\\":4}')).toBeGreaterThan(0);
    expect(last.indexOf('{\\"closed\\":4}')).toBeGreaterThan(last.indexOf('{\\"selected\\":4}'));
    expect(final(third.events).content).toBe('Selected and closed.');
  });

  it('takes a steering message at the next model call of the same turn', async () => {
    const id = sid(`steer-${kind}`);
    const from = model.requests.length;
    const started = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const accepted = await start(via, id, 'take your time', { agent_id: kind });
    await started;
    const steer = await start(via, id, 'also mention cats', { on_busy: 'steer' });
    expect(steer.type, JSON.stringify(steer)).toBe('assistant:accepted');
    // The tool returns only once the steering message is queued behind the turn.
    releaseSlow();
    const events = await runEvents(via, id, accepted.run_id as string);
    expect(events.find((e) => ENDS.has(e.type))?.data).toMatchObject({ status: 'completed' });
    expect(
      events.find((e) => e.type === 'user.message' && (e.data as { steered_into?: string }).steered_into),
    ).toBeDefined();
    const bodies = bodiesSince(from);
    expect(bodies).toHaveLength(2);
    // After the tool's result, the steering text, in the same turn's second call.
    expect(bodies[1]!.indexOf('also mention cats')).toBeGreaterThan(bodies[1]!.indexOf('{\\"ok\\":true}'));
    expect(final(events).content).toBe('Cats noted.');
    const messages = await api<{ messages: { role: string; content: string }[] }>(
      sandbox.url,
      'GET',
      `/api/sessions/${id}/messages`,
    );
    expect(messages.json.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'take your time'],
      ['user', 'also mention cats'],
      ['assistant', 'Cats noted.'],
    ]);
  });
});
