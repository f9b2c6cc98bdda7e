import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_BODY_UPLOAD } from '../../client/client.ts';
import {
  ArgsValidationError,
  type ClientOptions,
  ClosedError,
  createClient,
  type FetchLike,
  type Session,
  SwitchboardApiError,
  type SwitchboardClient,
  type SwitchboardEvent,
  type Timers,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../../client/index.ts';
import { demoAgent } from '../../demo/demo-agent.ts';
import type { HostAgentDefinition } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { mintDevToken } from '../../sandbox/dev-key.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { numbersAgent } from '../support/numbers-agent.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued, within } from '../support/wait.ts';

/** Asks approval with arguments over 120 KB: its action.required event reaches hosts truncated. */
const bulky: HostAgentDefinition = {
  info: { id: 'bulky' },
  async invoke() {
    return {
      content: 'Approve this long note?',
      pendingActions: [
        { id: 'req_note', type: 'tool_approval', toolName: 'save_note', args: { note: 'n'.repeat(130_000) } },
      ],
    };
  },
  async resolveAction({ resolution }) {
    return { content: `resolved: ${String(resolution.decision)}` };
  },
};

const agents = pauseAgents();
const app = createSwitchboard();
app.registerHostAgent(demoAgent({ chunkDelayMs: 5 }));
app.registerHostAgent(numbersAgent);
app.registerHostAgent(bulky);
for (const definition of agents.definitions) app.registerHostAgent(definition);

let sandbox: Sandbox;
const sid = sessionIds('client');
const clients: SwitchboardClient[] = [];
const token = () => mintDevToken({ user: 'alice', tenant: 'acme' });

const ACTIONS = [
  { name: 'select_issue', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
];

beforeAll(async () => {
  sandbox = await testSandbox({ app, jwt: true });
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(async () => {
  await sandbox?.close();
});

/** The `ws` WebSocket (Node 20 has no global one), recording every socket and every frame sent. */
function recordingWebSocket() {
  const sockets: WebSocket[] = [];
  const sent: Record<string, unknown>[] = [];
  // A class, not a function: the client constructs it with `new`.
  class Recording extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(this);
    }

    override send(data: string): void {
      sent.push(JSON.parse(data) as Record<string, unknown>);
      super.send(data);
    }
  }
  return { Recording: Recording as unknown as WebSocketConstructor, sockets, sent };
}

function client(options: Partial<ClientOptions> = {}) {
  const recorded = recordingWebSocket();
  const made = createClient({
    url: sandbox.url,
    wsUrl: sandbox.wsUrl,
    token,
    WebSocket: recorded.Recording,
    gapTimeoutMs: 300,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
  clients.push(made);
  return { client: made, ...recorded };
}

/**
 * The server side of the client's HTTP connections: a proxy in front of the sandbox that knows which
 * requests are open, and which ones the client ended before their answer was through (the proxy
 * then ends its own request to the sandbox too).
 */
async function serverSide(target: string) {
  const open = new Set<string>();
  const ended: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    open.add(path);
    const upstream = httpRequest(
      new URL(path, target),
      { method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
    res.on('close', () => {
      open.delete(path);
      if (res.writableFinished) return;
      ended.push(path);
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => [...open],
    ended,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The platform's timers, keeping count of those scheduled and not yet run or cleared. */
function countedTimers() {
  const live = new Set<unknown>();
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      const handle = setTimeout(() => {
        live.delete(handle);
        callback();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      live.delete(handle);
      clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return { timers, live: () => live.size };
}

/** The seqs a session delivered, checked to be 1..n exactly once and in order, and equal to the log. */
async function expectWholeLog(session: Session) {
  const seqs = session.delivered.map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const log = await session.readEvents({ after: 0, limit: 1000 });
  expect(session.delivered.map((e) => [e.seq, e.type])).toEqual(log.events.map((e) => [e.seq, e.type]));
}

const text = (events: readonly SwitchboardEvent[]) =>
  events.map((e) => (e.type === 'agent.message.delta' ? e.data.text : '')).join('');

/** Resolves once `check` holds, polling; rejects after the queue wait. */
const until = (check: () => boolean, what: string) => expect.poll(check, queued(what)).toBe(true);

describe('the client SDK against the sandbox', () => {
  it('streams an answer: typed events, in order, each once, through the iterator and listeners', async () => {
    const { client: c, sent } = client();
    const session = c.session(sid('stream'), { agentId: 'demo' });
    const deltas: string[] = [];
    session.on('agent.message.delta', (e) => deltas.push(e.data.text));
    const iterated: string[] = [];
    const iterating = (async () => {
      for await (const event of session.events()) {
        iterated.push(event.type);
        if (event.type === 'session.status_idle') break;
      }
    })();
    const accepted = await session.send('hello there', { hostContext: { view: { name: 'home' } } });
    const end = await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    await within(iterating, 'the iterator to end');
    expect(end.type).toBe('session.status_idle');
    const final = session.delivered.find((e) => e.type === 'final_response');
    expect(final?.type === 'final_response' && final.data.content).toBe(deltas.join(''));
    expect(iterated.at(-1)).toBe('session.status_idle');
    expect(sent[0]).toMatchObject({ action: 'assistant_join_session', after_seq: 0 });
    await expectWholeLog(session);
  });

  it('sends attachments and uploaded files with a message', async () => {
    const { client: c } = client();
    const file = await c.upload('some notes', { name: 'notes.txt', mediaType: 'text/plain' });
    expect(file).toMatchObject({ name: 'notes.txt', status: 'stored' });
    const session = c.session(sid('files'), { agentId: 'demo' });
    const accepted = await session.send('read this', {
      attachments: [{ kind: 'text', text: 'a note' }],
      files: [file],
      metadata: { ticket: 7 },
    });
    await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    const { messages } = await c.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/api/sessions/${session.id}/messages`,
    );
    expect(messages[0]).toMatchObject({
      metadata: { ticket: 7 },
      attachments: [{ kind: 'text' }, { kind: 'document', file_id: file.id }],
    });
  });

  it('uploads a file over 4 MiB through an upload URL bound to its bytes, and the server says stored', async () => {
    const { client: c } = client();
    const bytes = new Uint8Array(MAX_BODY_UPLOAD + 1).fill(7);
    const file = await c.upload(bytes, { name: 'big.bin' });
    expect(file).toMatchObject({ name: 'big.bin', status: 'stored', size: bytes.length });
    expect(file.upload?.headers).toMatchObject({
      'if-none-match': '*',
      'x-amz-checksum-sha256': expect.any(String),
    });
    const stored = await c.request<{ status: string; size: number }>('GET', `/api/files/${file.id}`);
    expect(stored).toMatchObject({ status: 'stored', size: bytes.length });
    // A digest that is not of these bytes: the bucket refuses them, and the client says so.
    await expect(
      c.upload(bytes, { name: 'wrong.bin', sha256: '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' }),
    ).rejects.toMatchObject({ code: 'upload_failed', status: 400 });
  });

  it('reconnects after the socket is killed mid-stream, with no gap and no duplicate', async () => {
    const { client: c, sockets } = client();
    const session = c.session(sid('kill'), { agentId: 'paced' });
    const accepted = await session.send('20');
    await session.next((e) => e.type === 'agent.message.delta', { timeoutMs: 15_000 });
    sockets.at(-1)?.terminate();
    await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    expect(sockets).toHaveLength(2);
    expect(text(session.delivered)).toBe(Array.from({ length: 20 }, (_, i) => `${i + 1} `).join(''));
    await expectWholeLog(session);
  });

  it('sends a heartbeat (a join from the last seq) and reconnects as planned, losing nothing', async () => {
    const { client: c, sent, sockets } = client({ heartbeatMs: 100, maxConnectionMs: 500 });
    const session = c.session(sid('beat'), { agentId: 'paced' });
    const accepted = await session.send('30');
    await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    await until(() => sockets.length >= 2, 'a planned reconnect');
    const joins = sent.filter((f) => f.action === 'assistant_join_session');
    expect(joins.length).toBeGreaterThanOrEqual(3);
    expect(joins.every((f) => f.session_id === session.id && typeof f.after_seq === 'number')).toBe(true);
    expect(text(session.delivered)).toBe(Array.from({ length: 30 }, (_, i) => `${i + 1} `).join(''));
    await expectWholeLog(session);
  });

  it('resumes at once when an app comes back with a dead socket, without waiting for the backoff', async () => {
    const { client: c, sockets } = client({ reconnect: { initialDelayMs: 600_000 } });
    const session = c.session(sid('resume'), { agentId: 'paced' });
    const accepted = await session.send('15');
    await session.next((e) => e.type === 'agent.message.delta', { timeoutMs: 15_000 });
    sockets.at(-1)?.terminate();
    await until(() => c.status === 'reconnecting', 'the client to see the socket gone');
    c.resume();
    await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    expect(sockets).toHaveLength(2);
    await expectWholeLog(session);
  });

  it('performs a pending host tool call with its handler and sends the continuation', async () => {
    const seen: unknown[] = [];
    const { client: c } = client({
      hostActions: {
        select_issue: async (args) => {
          seen.push(args);
          return { selected: (args as { number: number }).number };
        },
      },
    });
    const session = c.session(sid('host'), { agentId: 'driver' });
    await session.send('one', { hostContext: { actions: ACTIONS } });
    const final = await session.next(
      (e) => e.type === 'final_response' && e.data.pending_tool_call === null,
      { timeoutMs: 15_000 },
    );
    expect(seen).toEqual([{ number: 42 }]);
    expect(final.type === 'final_response' && final.data.content).toBe('Done: {"selected":42}');
  });

  it('sends tool_outcome "failed" when a host action handler throws', async () => {
    const { client: c } = client();
    const session = c.session(sid('host-fails'), {
      agentId: 'driver',
      hostActions: {
        select_issue: () => {
          throw new Error('no such issue');
        },
      },
    });
    await session.send('one', { hostContext: { actions: ACTIONS } });
    const final = await session.next(
      (e) => e.type === 'final_response' && e.data.pending_tool_call === null,
      { timeoutMs: 15_000 },
    );
    expect(final.type === 'final_response' && final.data.content).toBe('It failed: "no such issue"');
  });

  it('answers an approval with edited args: checked against argsSchema first, the server’s 422 surfaced, valid ones accepted', async () => {
    const { client: c } = client();
    const session = c.session(sid('approve'), { agentId: 'pauser' });
    const asked = await session.send('wire');
    expect((await session.waitForTurn(asked.run_id, { timeoutMs: 15_000 })).type).toBe(
      'session.status_requires_action',
    );
    expect(session.pendingActions.map((a) => a.id)).toEqual(['req_wire']);

    const local = await session.approve('req_wire', { args: { amount: 500 } }).catch((e: unknown) => e);
    expect(local).toBeInstanceOf(ArgsValidationError);
    expect((local as ArgsValidationError).issues).toEqual([
      { path: ['approved_args', 'amount'], message: 'must be <= 100' },
    ]);
    const extra = await session.approve('req_wire', { args: { amount: 5, x: 1 } }).catch((e: unknown) => e);
    expect((extra as ArgsValidationError).issues[0]?.path).toEqual(['approved_args', 'x']);

    const remote = await session
      .approve('req_wire', { args: { amount: 500 }, validate: false })
      .catch((e: unknown) => e);
    expect(remote).toBeInstanceOf(SwitchboardApiError);
    expect(remote).toMatchObject({ status: 422, code: 'validation_error' });
    expect((remote as SwitchboardApiError).issues[0]?.path).toEqual(['approved_args', 'amount']);

    const answered = await session.approve('req_wire', { args: { amount: 99 } });
    const reply = await session.waitForTurn(answered.run_id as string, { timeoutMs: 15_000 });
    expect(reply.type).toBe('session.status_idle');
    const final = session.delivered.filter((e) => e.type === 'final_response').at(-1);
    expect(final?.type === 'final_response' && final.data.content).toBe(
      'resolved req_wire: "approve" with {"amount":99}',
    );
    expect(session.pendingActions).toEqual([]);
  });

  it('answers a question and a client tool', async () => {
    const { client: c } = client();
    const session = c.session(sid('answers'), { agentId: 'pauser' });
    await session.waitForTurn((await session.send('two')).run_id, { timeoutMs: 15_000 });
    await session.approve('req_wire');
    const last = await session.answerQuestion('req_account', ['savings']);
    await session.waitForTurn(last.run_id as string, { timeoutMs: 15_000 });
    const page = c.session(sid('page'), { agentId: 'pauser' });
    await page.waitForTurn((await page.send('page')).run_id, { timeoutMs: 15_000 });
    const tool = await page.answerClientTool('req_page', { output: 'copied' });
    await page.waitForTurn(tool.run_id as string, { timeoutMs: 15_000 });
    const final = page.delivered.filter((e) => e.type === 'final_response').at(-1);
    expect(final?.type === 'final_response' && final.data.content).toBe('resolved req_page: "copied"');
  });

  it('ends an events() loop when the client closes', async () => {
    const { client: c } = client();
    const session = c.session(sid('iterate'), { agentId: 'demo' });
    const seen: string[] = [];
    const loop = (async () => {
      for await (const event of session.events()) seen.push(event.type);
    })();
    await session.waitForTurn((await session.send('hi')).run_id, { timeoutMs: 15_000 });
    c.close();
    await within(loop, 'the loop to end once the client is closed');
    expect(seen).toContain('session.status_idle');
  });

  it('reads a truncated event whole before it counts: a request over 120 KB is pending and can be answered', async () => {
    const { client: c } = client();
    const session = c.session(sid('bulky'), { agentId: 'bulky' });
    await session.waitForTurn((await session.send('save it')).run_id, { timeoutMs: 15_000 });
    const required = session.delivered.find((e) => e.type === 'action.required');
    expect(required?.truncated).toBeUndefined();
    expect(session.pendingActions.map((a) => [a.id, (a.args as { note: string }).note.length])).toEqual([
      ['req_note', 130_000],
    ]);
    const answered = await session.approve('req_note');
    await session.waitForTurn(answered.run_id as string, { timeoutMs: 15_000 });
    expect(session.pendingActions).toEqual([]);
  });

  it('approves the demo agent’s refund as it was asked: the agent acts on the arguments it proposed', async () => {
    const { client: c } = client();
    const session = c.session(sid('demo-refund'), { agentId: 'demo' });
    await session.waitForTurn((await session.send('Refund order 7')).run_id, { timeoutMs: 15_000 });
    const [request] = session.pendingActions;
    expect(request).toMatchObject({ type: 'tool_approval', args: { order: 7, amount: 25 } });
    const answered = await session.approve(request!.id);
    const end = await session.waitForTurn(answered.run_id as string, { timeoutMs: 15_000 });
    expect(end.type).toBe('session.status_idle');
    const final = session.delivered.filter((e) => e.type === 'final_response').at(-1);
    expect(final?.type === 'final_response' && final.data.content).toBe('Refunded $25 on order 7.');
  });

  it('answers a client tool with its handler once, and sends what a throwing handler says as its error', async () => {
    const calls: unknown[] = [];
    const { client: c } = client({
      clientTools: {
        read_clipboard: (_args, { actionId, toolName }) => {
          calls.push([actionId, toolName]);
          return 'from the handler';
        },
      },
    });
    const page = c.session(sid('tool-handler'), { agentId: 'pauser' });
    await page.send('page');
    const answered = await page.next(
      (e) => e.type === 'final_response' && e.data.content?.startsWith('resolved') === true,
      { timeoutMs: 15_000 },
    );
    expect(answered.type === 'final_response' && answered.data.content).toBe(
      'resolved req_page: "from the handler"',
    );
    expect(calls).toEqual([['req_page', 'read_clipboard']]);

    const failing = c.session(sid('tool-throws'), {
      agentId: 'pauser',
      clientTools: {
        read_clipboard: () => {
          throw new Error('clipboard denied');
        },
      },
    });
    await failing.send('page');
    const refused = await failing.next(
      (e) => e.type === 'final_response' && e.data.content?.startsWith('resolved') === true,
      { timeoutMs: 15_000 },
    );
    expect(refused.type === 'final_response' && refused.data.content).toBe(
      'resolved req_page: "clipboard denied"',
    );
    // The session's own handler was used, not the client's.
    expect(calls).toHaveLength(1);
  });
  it('rates, regenerates, edits and cancels', async () => {
    const { client: c } = client();
    const session = c.session(sid('rewrite'), { agentId: 'demo' });
    const first = await session.send('first');
    await session.waitForTurn(first.run_id, { timeoutMs: 15_000 });
    const rated = await session.feedback(first.assistant_message_id, 'up', { reasons: ['clear'] });
    expect(rated).toMatchObject({ rating: 'up', reasons: ['clear'] });
    const again = await session.regenerate();
    await session.waitForTurn(again.run_id, { timeoutMs: 15_000 });
    expect(
      session.delivered.some((e) => e.type === 'messages.replaced' && e.data.mode === 'regenerate'),
    ).toBe(true);
    const edited = await session.edit(first.message_id, 'second');
    await session.waitForTurn(edited.run_id, { timeoutMs: 15_000 });
    const cancel = await session.cancel().catch((e: unknown) => e);
    expect(cancel).toMatchObject({ status: 409, code: 'nothing_to_cancel' });
    await expectWholeLog(session);
  });

  it('reads the event log over HTTP when no WebSocket is available', async () => {
    const { client: c, sockets } = client({ transport: 'http', pollWaitSeconds: 1 });
    expect(c.transport).toBe('http');
    const session = c.session(sid('http'), { agentId: 'demo' });
    const accepted = await session.send('over http');
    await session.waitForTurn(accepted.run_id, { timeoutMs: 15_000 });
    expect(sockets).toHaveLength(0);
    expect(text(session.delivered)).toContain('You wrote 2 words');
    await expectWholeLog(session);
  });
});

describe('closing the client', () => {
  it('aborts the long poll it fell back to, ends pending waits, and leaves nothing scheduled', async () => {
    const server = await serverSide(sandbox.url);
    try {
      const counted = countedTimers();
      const { client: c } = client({ url: server.url, transport: 'http', timers: counted.timers });
      const session = c.session(sid('close-poll'), { agentId: 'demo' });
      await session.waitForTurn((await session.send('hi')).run_id, { timeoutMs: 15_000 });
      // The turn is over: the session's poll waits at the server for an event that will not come.
      const isPoll = (path: string) => path.includes('/events?') && path.includes('wait=20');
      await until(() => server.open().some(isPoll), 'the session to long-poll the log');
      const waiting = session.next((e) => e.type === 'final_response' && e.seq > session.lastSeq);
      c.close();
      await expect(waiting).rejects.toBeInstanceOf(ClosedError);
      await until(() => server.open().length === 0, 'the poll’s request to end at the server');
      expect(server.ended.filter(isPoll)).toHaveLength(1);
      expect(counted.live()).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe("the client and API Gateway's throttling", () => {
  /** API Gateway's throttling answer, as HTTP API and (with its ids) the WebSocket API send it. */
  const THROTTLED = { message: 'Too Many Requests' };

  /** A fetch that answers from a script, recording each request's body. */
  function scriptedFetch(script: [number, unknown][]) {
    const bodies: unknown[] = [];
    const fetch: FetchLike = async (_input, init) => {
      bodies.push(init?.body);
      const [status, body] = script.shift() ?? [500, { message: 'the script ran out' }];
      return {
        status,
        ok: status < 400,
        headers: { get: () => null },
        text: async () => JSON.stringify(body),
      };
    };
    return { fetch, bodies };
  }

  const quiet = { heartbeatMs: 0, maxConnectionMs: 0 } as const;

  it('sends a request API Gateway throttled again, unchanged, until it is taken', async () => {
    const { fetch, bodies } = scriptedFetch([
      [429, THROTTLED],
      [429, THROTTLED],
      [202, { request_id: 'req-1', status: 'queued' }],
    ]);
    const c = createClient({ url: 'http://api.invalid', fetch, retry: { initialDelayMs: 1 }, ...quiet });
    const body = { id: 'req-1', session_id: 's1', content: 'hello' };
    expect(await c.request('POST', '/api/chat', body)).toEqual({ request_id: 'req-1', status: 'queued' });
    expect(bodies).toEqual([JSON.stringify(body), JSON.stringify(body), JSON.stringify(body)]);
    c.close();
  });

  it('stops after its attempts, and never sends again a 429 rate_limited of the server’s own', async () => {
    const throttled = scriptedFetch([
      [429, THROTTLED],
      [429, THROTTLED],
    ]);
    const c = createClient({
      url: 'http://api.invalid',
      fetch: throttled.fetch,
      retry: { attempts: 2, initialDelayMs: 1 },
      ...quiet,
    });
    await expect(c.request('GET', '/api/sessions')).rejects.toMatchObject({
      status: 429,
      code: 'gateway_error',
      message: 'Too Many Requests',
    });
    expect(throttled.bodies).toHaveLength(2);
    const limited = scriptedFetch([[429, { error: { code: 'rate_limited', message: 'Too many requests' } }]]);
    const own = createClient({
      url: 'http://api.invalid',
      fetch: limited.fetch,
      retry: { initialDelayMs: 1 },
      ...quiet,
    });
    await expect(own.request('GET', '/api/sessions')).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
    });
    expect(limited.bodies).toHaveLength(1);
    c.close();
    own.close();
  });

  it('joins a session again when its join was throttled', async () => {
    const joins: Record<string, unknown>[] = [];
    /** A socket whose first join is throttled and whose later ones are answered. */
    class Throttling implements WebSocketLike {
      readyState = 0;
      onopen: WebSocketLike['onopen'] = null;
      onmessage: WebSocketLike['onmessage'] = null;
      onclose: WebSocketLike['onclose'] = null;
      onerror: WebSocketLike['onerror'] = null;
      constructor() {
        queueMicrotask(() => {
          this.readyState = 1;
          this.onopen?.({});
        });
      }
      send(data: string): void {
        const frame = JSON.parse(data) as Record<string, unknown>;
        joins.push(frame);
        const answer =
          joins.length === 1
            ? { ...THROTTLED, connectionId: 'c1', requestId: 'r1' }
            : { type: 'assistant:joined', session_id: frame.session_id, replayed_through: 0, last_seq: 0 };
        queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(answer) }));
      }
      close(): void {
        this.readyState = 3;
      }
    }
    const c = createClient({
      url: 'http://api.invalid',
      wsUrl: 'ws://api.invalid/ws',
      WebSocket: Throttling,
      fetch: scriptedFetch([]).fetch,
      retry: { initialDelayMs: 1 },
      ...quiet,
    });
    const errors: unknown[] = [];
    c.onError((error) => errors.push(error));
    const session = c.session('s1');
    await expect.poll(() => joins.length, queued('the second join')).toBe(2);
    await expect.poll(() => session.awaitingJoin, queued('the join’s answer')).toBe(false);
    expect(joins.map((j) => [j.action, j.session_id])).toEqual([
      ['assistant_join_session', 's1'],
      ['assistant_join_session', 's1'],
    ]);
    expect(errors).toEqual([]);
    c.close();
  });
});
