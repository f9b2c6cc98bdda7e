import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardChatTransport } from '../../ai-sdk/index.ts';
import { createClient, type SwitchboardEvent, type WebSocketConstructor } from '../../client/index.ts';
import { ANSWER_LIMITS, answerBytes } from '../../lib/contract/index.ts';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import { MODEL_REPLY_LIMITS } from '../../lib/models/parse.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type RawEndpoint, sse, startRawEndpoint } from '../support/model-endpoint.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { type Frame, sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * Every session stays readable, whatever size its agent's answer: a message or an event too large
 * for a page (or a Lambda answer, 6 MB) is listed by reference, and the reference answers a link to
 * it whole; export and the client read it too. Against the sandbox, which refuses a Lambda answer
 * over 6 MB with API Gateway's 500, as AWS does.
 */

/** About 7 MB of text: more than one Lambda answer holds. */
const LONG_ANSWER = 'All work and no play makes Jack a dull boy. '.repeat(160_000);
/** About 8 MB of a tool call's arguments. */
const HUGE_TEXT = 'x'.repeat(8 * 1024 * 1024);

const big: HostAgentDefinition = {
  info: { id: 'big' },
  async invoke({ message }, { emit }) {
    if (message === 'long answer') return { content: LONG_ANSWER };
    if (message === 'huge args') {
      emit({ type: 'text', text: 'Filling the form. ' });
      emit({ type: 'tool_use', id: 'call_fill', name: 'fill_form', args: { text: HUGE_TEXT } });
      emit({ type: 'tool_result', id: 'call_fill', name: 'fill_form', result: { ok: true } });
      return {
        content: 'Send it?',
        pendingActions: [
          { id: 'req_send', type: 'tool_approval', toolName: 'send_form', args: { text: HUGE_TEXT } },
        ],
      };
    }
    return { content: `echo: ${message}` };
  },
  async resolveAction({ resolution }) {
    const text = (resolution.approvedArgs as { text?: string } | undefined)?.text ?? '';
    return { content: `Sent ${text.length}.` };
  },
};

let sandbox: Sandbox;
let host: TestSocket;
let endpoint: RawEndpoint;

beforeAll(async () => {
  endpoint = await startRawEndpoint();
  const app = createSwitchboard();
  app.registerHostAgent(big);
  app.registerChatCompletionsAgent({
    info: { id: 'model' },
    baseURL: endpoint.baseURL,
    apiKey: 'sk-test-large-content',
    model: 'raw-small',
    maxRetries: 0,
  });
  sandbox = await testSandbox({ app });
  host = await TestSocket.open(sandbox.wsUrl);
}, 60_000);
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await endpoint?.close();
});

/** Sends a message over the WebSocket and waits for the end of its turn. */
const say = (sessionId: string, content: string, agent_id: string) =>
  sendTurn(host, sessionId, content, { agent_id });

type Listed = {
  id: string;
  role: string;
  content: string;
  truncated?: true;
  content_ref?: string;
  tool_calls?: { args?: { text?: string } }[];
  pending_actions?: { args?: { text?: string } }[];
};

/** A GET of the sandbox's API that must answer (a redirect followed), never a 5xx. */
async function read<J = Record<string, unknown>>(path: string) {
  const res = await api<J>(sandbox.url, 'GET', path);
  expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
  return res;
}

/** The session's messages, page by page, each read whole through its `content_ref` when a page lists it by reference. */
async function wholeMessages(id: string) {
  const whole: Listed[] = [];
  for (let after = ''; ; ) {
    const page = await read<{ messages: Listed[]; has_more: boolean; next_after: string | null }>(
      `/api/sessions/${id}/messages${after ? `?after=${after}` : ''}`,
    );
    expect(answerBytes(page.json)).toBeLessThanOrEqual(ANSWER_LIMITS.inline);
    for (const listed of page.json.messages) {
      if (!listed.truncated) {
        expect(answerBytes(listed)).toBeLessThanOrEqual(ANSWER_LIMITS.listedItem);
        whole.push(listed);
        continue;
      }
      expect(listed).toMatchObject({
        content: '',
        content_ref: `/api/sessions/${id}/messages/${listed.id}/content`,
      });
      const res = await read<Listed>(listed.content_ref!);
      expect(res.headers.get('content-type')).toMatch(/json/);
      whole.push(res.json);
    }
    if (!page.json.has_more || !page.json.next_after) return whole;
    after = page.json.next_after;
  }
}

/** The session's event log, each event read whole at its `href` when the page lists it by reference. */
async function wholeEvents(id: string) {
  const page = await read<{ events: (Frame & { truncated?: true; href?: string })[] }>(
    `/api/sessions/${id}/events`,
  );
  const whole: Frame[] = [];
  for (const event of page.json.events) {
    if (!event.truncated) {
      whole.push(event);
      continue;
    }
    expect(event.href).toBe(`/api/sessions/${id}/events/${event.seq}`);
    whole.push((await read<Frame>(event.href!)).json);
  }
  return whole;
}

describe('a session with content too large for a page stays readable', () => {
  it('an answer over 6 MB from a host agent: listed by reference, read whole, exported, and delivered to the client', async () => {
    const id = 'large-answer';
    const { events } = await say(id, 'long answer', 'big');
    // Over the socket the answer's events arrive as references, each read whole over HTTP.
    const referenced = events.filter((e) => (e as { truncated?: boolean }).truncated);
    expect(referenced.length).toBeGreaterThan(0);
    for (const e of referenced)
      expect((e as { href?: string }).href).toBe(`/api/sessions/${id}/events/${e.seq}`);

    const messages = await wholeMessages(id);
    expect(messages.map((m) => [m.role, m.content.length])).toEqual([
      ['user', 'long answer'.length],
      ['assistant', LONG_ANSWER.length],
    ]);
    expect(messages[1]?.content).toBe(LONG_ANSWER);

    const log = await wholeEvents(id);
    const final = log.find((e) => e.type === 'final_response')?.data as { content?: string };
    expect(final.content).toBe(LONG_ANSWER);

    const exported = await read<{ messages: { content: string }[] }>(`/api/sessions/${id}/export`);
    expect(exported.json.messages[1]?.content).toBe(LONG_ANSWER);
    expect((await read(`/api/sessions/${id}`)).json).toMatchObject({ status: 'idle' });

    // The client joins the session, replays its log and reads each referenced event whole.
    const client = createClient({
      url: sandbox.url,
      wsUrl: sandbox.wsUrl,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    try {
      const session = client.session(id, { afterSeq: 0 });
      const answer = await session.next((e: SwitchboardEvent) => e.type === 'final_response', {
        timeoutMs: 30_000,
      });
      expect(answer.truncated).toBeUndefined();
      expect((answer.data as { content: string }).content).toBe(LONG_ANSWER);
    } finally {
      client.close();
    }

    // The useChat transport's history reads the message the page lists by reference.
    const transport = new SwitchboardChatTransport({
      url: sandbox.url,
      wsUrl: sandbox.wsUrl,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      agentId: 'big',
    });
    try {
      const history = await transport.loadMessages(id);
      expect(history.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text.length : p.type)))).toEqual([
        ['long answer'.length],
        [LONG_ANSWER.length],
      ]);
    } finally {
      transport.close();
    }
  }, 90_000);

  it('8 MB tool arguments from a host agent: the call, its request and the session are all readable, and the request can be answered', async () => {
    const id = 'large-args';
    const { end } = await say(id, 'huge args', 'big');
    expect(end.type).toBe('session.status_requires_action');
    const messages = await wholeMessages(id);
    const answer = messages[1]!;
    expect(answer.tool_calls?.[0]?.args?.text).toBe(HUGE_TEXT);
    expect(answer.pending_actions?.[0]?.args?.text).toBe(HUGE_TEXT);
    const log = await wholeEvents(id);
    const required = log.find((e) => e.type === 'action.required')?.data as {
      actions: { args: { text: string } }[];
    };
    expect(required.actions[0]?.args.text).toBe(HUGE_TEXT);
    // The session shows its open request by reference to the message that asked it.
    const session = await read<{ pending_actions: Record<string, unknown>[] }>(`/api/sessions/${id}`);
    expect(session.json.pending_actions).toEqual([
      expect.objectContaining({
        id: 'req_send',
        status: 'pending',
        request: {},
        truncated: true,
        content_ref: `/api/sessions/${id}/messages/${answer.id}/content`,
      }),
    ]);
    await read(`/api/sessions/${id}/export`);
    // An answer with 4 MB of edited arguments (a Lambda event holds 6 MB) is stored and handed over.
    const edited = 'y'.repeat(4 * 1024 * 1024);
    const answered = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_send`, {
      decision: 'approve',
      approved_args: { text: edited },
    });
    expect(answered.status, answered.text.slice(0, 200)).toBe(202);
    await host.waitFor(turnEnded(answered.json.run_id as string, id), 'the answer’s turn');
    expect((await wholeMessages(id)).at(-1)?.content).toBe(`Sent ${edited.length}.`);
    const exported = await read<{
      messages: { actions: { resolution?: { approved_args?: { text: string } } }[] }[];
    }>(`/api/sessions/${id}/export`);
    expect(exported.json.messages[1]?.actions[0]?.resolution?.approved_args?.text).toBe(edited);
  }, 90_000);

  it('8 MB tool arguments from a model endpoint end the turn with model_error, and the session stays readable', async () => {
    const id = 'large-model-args';
    endpoint.answer = {
      body: sse([
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 0, id: 'call_1', type: 'function', function: { name: 'fill', arguments: '' } },
                ],
              },
            },
          ],
        },
        ...Array.from({ length: 8 }, () => ({
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(1024 * 1024) } }] },
            },
          ],
        })),
      ]),
    };
    const { events, runId } = await say(id, 'fill it', 'model');
    expect(events.find((e) => e.type === 'session.error' && e.run_id === runId)?.data).toMatchObject({
      code: 'model_error',
      message: `The model endpoint's reply is too large: the arguments of a tool call passed ${MODEL_REPLY_LIMITS.argumentsBytes / 1024 / 1024} MiB.`,
    });
    expect((await wholeMessages(id)).map((m) => m.role)).toEqual(['user']);
    await wholeEvents(id);
    await read(`/api/sessions/${id}/export`);
  }, 90_000);

  it('a 50 MB stream from a model endpoint ends the turn at the stream bound with model_error, and the session stays readable', async () => {
    const id = 'large-model-stream';
    // Usage chunks only: no text or arguments bound is reached, only the stream's.
    const chunk = `data: ${JSON.stringify({ choices: [], usage: null, padding: 'p'.repeat(64 * 1024) })}\n\n`;
    endpoint.answer = { body: chunk.repeat(Math.ceil((50 * 1024 * 1024) / chunk.length)) };
    const { events, runId } = await say(id, 'flood', 'model');
    expect(events.find((e) => e.type === 'session.error' && e.run_id === runId)?.data).toMatchObject({
      code: 'model_error',
      message: "The model endpoint's reply is too large: the stream passed 8 MiB.",
    });
    expect((await wholeMessages(id)).map((m) => m.role)).toEqual(['user']);
    await wholeEvents(id);
    await read(`/api/sessions/${id}/export`);
  }, 90_000);

  it('answers 404 event_not_found for a seq the log does not hold, and for one that is not a whole number', async () => {
    const id = 'large-missing';
    await say(id, 'hello', 'big');
    for (const seq of ['999', '0', 'x', '1.5']) {
      const res = await api<{ error: { code: string; issues: { path: string[] }[] } }>(
        sandbox.url,
        'GET',
        `/api/sessions/${id}/events/${seq}`,
      );
      expect({
        status: res.status,
        code: res.json.error?.code,
        path: res.json.error?.issues?.[0]?.path,
      }).toEqual({
        status: 404,
        code: 'event_not_found',
        path: ['seq'],
      });
    }
    const missing = await api<{ error: { code: string } }>(
      sandbox.url,
      'GET',
      `/api/sessions/${id}/messages/msg_0000_001/content`,
    );
    expect({ status: missing.status, code: missing.json.error?.code }).toEqual({
      status: 404,
      code: 'message_not_found',
    });
    // A small message and a small event answer inline.
    const [first] = (await read<{ messages: Listed[] }>(`/api/sessions/${id}/messages`)).json.messages;
    const inline = await read<Listed>(`/api/sessions/${id}/messages/${first!.id}/content`);
    expect(inline.json).toMatchObject({ id: first!.id, content: 'hello' });
    expect((await read<Frame>(`/api/sessions/${id}/events/1`)).json).toMatchObject({ seq: 1 });
  }, 60_000);
});
