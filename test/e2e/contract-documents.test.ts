import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SESSION_EVENTS, type SessionEventType } from '../../lib/events/log.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { mintDevToken } from '../../sandbox/dev-key.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';

/**
 * The documents the sandbox serves, and the server's real answers checked against the schemas they
 * give: the error envelope (of Switchboard and of the gateway), a message accepted, a page of
 * events, and the WebSocket's accepted, joined, error and events frames.
 */
type Json = Record<string, unknown>;
const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'echo' },
  async invoke({ message }, { emit }) {
    emit({ type: 'text', text: `echo: ${message}` });
    return {};
  },
});

/** An agent that reaches every event a turn's log holds: tools, a warning, text, a pause, a host call, a failure. */
app.registerHostAgent({
  info: { id: 'tour' },
  async invoke({ message, hostContext }, { emit }) {
    if (message === 'fail') throw new Error('the backend is down');
    if (message === 'host' && hostContext?.actions?.some((a) => a.name === 'select_issue')) {
      emit({ type: 'text', text: 'Selecting it. ' });
      emit({ type: 'tool_use', id: 'call_select', name: 'select_issue', args: { number: 2 } });
      return {};
    }
    emit({ type: 'tool_use', id: 'look_1', name: 'lookup', args: { q: message } });
    emit({ type: 'tool_result', id: 'look_1', name: 'lookup', result: { found: 1 } });
    emit({ type: 'tool_result', id: 'look_2', error: 'timed out' });
    emit({ type: 'warning', code: 'ledger_stale', message: 'The ledger is an hour old.', source: 'ledger' });
    emit({ type: 'text', text: 'I can wire $5. ' });
    emit({ type: 'usage', usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.001 } });
    if (message !== 'pause') return {};
    return {
      content: 'I can wire $5. It needs your approval.',
      pendingActions: [
        {
          id: 'req_wire',
          type: 'tool_approval',
          toolName: 'wire_money',
          title: 'Wire $5?',
          args: { amount: 5 },
          argsSchema: { type: 'object', properties: { amount: { type: 'number', maximum: 10 } } },
        },
      ],
    };
  },
  async resolveAction({ resolution }) {
    return { content: `Done: ${JSON.stringify(resolution)}.` };
  },
});

let sandbox: Sandbox;
let token: string;
let openapi: Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  sandbox = await testSandbox({ app, jwt: true });
  token = await mintDevToken({ user: 'contract', tenant: 'docs' });
});
afterAll(() => sandbox?.close());

/** Checks `value` against the schema at `pointer` of the document named `doc`. */
function expectValid(doc: 'openapi' | 'asyncapi', pointer: string, value: unknown) {
  const validate = ajv.getSchema(`${doc}#${pointer}`);
  if (!validate) throw new Error(`No schema at ${doc}#${pointer}`);
  expect(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

const response = (path: string, method: string, status: number) =>
  `/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}/content/application~1json/schema`;

const message = (name: string) => `/channels/socket/messages/${name}/payload`;

describe('the contract documents, served by the sandbox', () => {
  it('are served at /api/openapi.json and /api/asyncapi.json without a token', async () => {
    for (const [path, key] of [
      ['/api/openapi.json', 'openapi'],
      ['/api/asyncapi.json', 'asyncapi'],
    ] as const) {
      const res = await fetch(`${sandbox.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const doc = (await res.json()) as Json;
      expect(doc[key]).toMatch(/^3\./);
      if (key === 'openapi') openapi = doc;
      ajv.addSchema({ ...doc, $id: key }, key);
    }
    // The API itself still asks for one.
    expect((await api(sandbox.url, 'GET', '/api/sessions')).status).toBe(401);
  });

  it("describe the HTTP API's real answers: agents, accepted, events, errors", async () => {
    const asAlice = { token };
    const agents = await api(sandbox.url, 'GET', '/api/agents', undefined, asAlice);
    expect(agents.json).toMatchObject({ agents: [{ id: 'echo' }, { id: 'tour' }], default_agent_id: null });
    expectValid('openapi', response('/api/agents', 'get', 200), agents.json);

    const accepted = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: 'doc-1', agent_id: 'echo', content: 'hi' },
      asAlice,
    );
    expect(accepted.status).toBe(202);
    expectValid('openapi', response('/api/chat', 'post', 202), accepted.json);

    const events = await api(sandbox.url, 'GET', '/api/sessions/doc-1/events?wait=5', undefined, asAlice);
    expect(events.status).toBe(200);
    expect((events.json.events as unknown[]).length).toBeGreaterThan(0);
    expectValid('openapi', response('/api/sessions/{id}/events', 'get', 200), events.json);

    const remembered = await api(
      sandbox.url,
      'GET',
      '/api/sessions/doc-1/remembered-tools',
      undefined,
      asAlice,
    );
    expect(remembered.json).toEqual({ session_id: 'doc-1', tools: [] });
    expectValid('openapi', response('/api/sessions/{id}/remembered-tools', 'get', 200), remembered.json);

    const errors: [string, string, string, unknown, number, string?][] = [
      ['/api/chat', 'post', '/api/chat', { content: 'hi', colour: 'red' }, 422],
      ['/api/chat', 'post', '/api/chat', '{not json', 400],
      ['/api/sessions/{id}', 'get', '/api/sessions/nobody-here', undefined, 404],
      ['/api/sessions/{id}/events', 'get', '/api/sessions/doc-1/events?after=-1', undefined, 422],
      ['/api/files/{id}', 'get', '/api/files/file_none', undefined, 404],
      ['/api/sessions/{id}/cancel', 'post', '/api/sessions/doc-none/cancel', undefined, 404],
      [
        '/api/sessions/{id}/remembered-tools/{name}',
        'delete',
        '/api/sessions/doc-1/remembered-tools/lookup',
        undefined,
        404,
      ],
    ];
    for (const [path, method, url, body, status] of errors) {
      const res = await api(sandbox.url, method.toUpperCase(), url, body, asAlice);
      expect(res.status, url).toBe(status);
      expectValid('openapi', response(path, method, status), res.json);
      const codes = (openapi.paths as Record<string, Record<string, Json>>)[path]?.[method]
        ?.responses as Record<string, { 'x-error-codes'?: string[] }>;
      expect(codes[status]?.['x-error-codes'], url).toContain((res.json.error as { code: string }).code);
    }
    // The gateway's own answer: no token.
    const refused = await api(sandbox.url, 'GET', '/api/sessions/doc-1');
    expect(refused.status).toBe(401);
    expectValid('openapi', response('/api/sessions/{id}', 'get', 401), refused.json);
  });

  it("describe the WebSocket's real frames: accepted, joined, error, events", async () => {
    const socket = new WebSocket(sandbox.wsUrl, ['switchboard', `switchboard.bearer.${token}`]);
    const frames: Json[] = [];
    const waiters: { test: (f: Json) => boolean; done: (f: Json) => void }[] = [];
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Json;
      frames.push(frame);
      for (const w of waiters.filter((w) => w.test(frame))) w.done(frame);
    });
    const next = (test: (f: Json) => boolean) =>
      new Promise<Json>((done) => {
        const seen = frames.find(test);
        if (seen) done(seen);
        else waiters.push({ test, done });
      });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    try {
      socket.send(
        JSON.stringify({
          action: 'assistant_message',
          id: 'doc-ws-1',
          session_id: 'doc-2',
          agent_id: 'echo',
          content: 'hi',
        }),
      );
      expectValid(
        'asyncapi',
        message('AssistantAccepted'),
        await next((f) => f.type === 'assistant:accepted'),
      );
      await next((f) => f.type === 'events' && JSON.stringify(f).includes('session.status_idle'));
      socket.send(JSON.stringify({ action: 'assistant_join_session', session_id: 'doc-2', after_seq: 1 }));
      expectValid('asyncapi', message('AssistantJoined'), await next((f) => f.type === 'assistant:joined'));
      socket.send(JSON.stringify({ action: 'assistant_cancel', session_id: 'doc-2', extra: 1 }));
      expectValid('asyncapi', message('AssistantError'), await next((f) => f.type === 'assistant:error'));
      socket.send(
        JSON.stringify({
          action: 'assistant_message',
          session_id: 'doc-3',
          agent_id: 'tour',
          content: 'pause',
        }),
      );
      await next((f) => f.type === 'events' && JSON.stringify(f).includes('session.status_requires_action'));
      socket.send(
        JSON.stringify({
          action: 'assistant_resolve_action',
          session_id: 'doc-3',
          action_id: 'req_wire',
          decision: 'approve',
          approved_args: { amount: 6 },
        }),
      );
      const resolved = await next((f) => f.type === 'assistant:resolved');
      expectValid('asyncapi', message('AssistantResolved'), resolved);
      expect(resolved.decision).toEqual({ decision: 'approve', approved_args: { amount: 6 } });
      await next(
        (f) =>
          f.type === 'events' &&
          JSON.stringify(f).includes('"final_response"') &&
          JSON.stringify(f).includes('Done:'),
      );
      const eventFrames = frames.filter((f) => f.type === 'events');
      expect(eventFrames.length).toBeGreaterThan(0);
      for (const frame of eventFrames) expectValid('asyncapi', message('Events'), frame);
    } finally {
      socket.close();
    }
  });

  it('describe the data of every event a turn writes: each parses with its schema, and fits the documents', async () => {
    const asAlice = { token };
    const id = 'doc-events';
    const lastSeq = async () =>
      ((await api(sandbox.url, 'GET', `/api/sessions/${id}/events?after=0&limit=1000`, undefined, asAlice))
        .json.last_seq as number) ?? 0;
    /** Sends a message (or an answer) and waits until its run has ended. */
    const ended = async (runId: string) => {
      await expect
        .poll(
          async () => {
            const page = await api(
              sandbox.url,
              'GET',
              `/api/sessions/${id}/events?after=0&limit=1000`,
              undefined,
              asAlice,
            );
            return (page.json.events as Json[]).some(
              (e) =>
                e.run_id === runId &&
                (e.type === 'session.status_idle' || e.type === 'session.status_requires_action'),
            );
          },
          { timeout: 10_000 },
        )
        .toBe(true);
    };
    const say = async (body: Json) => {
      const res = await api(
        sandbox.url,
        'POST',
        '/api/chat',
        { session_id: id, agent_id: 'tour', ...body },
        asAlice,
      );
      expect(res.status, res.text).toBe(202);
      await ended(res.json.run_id as string);
      return res.json;
    };
    await say({ content: 'pause' });
    const answered = await api(
      sandbox.url,
      'POST',
      `/api/sessions/${id}/actions/req_wire`,
      { decision: 'approve', approvedArgs: { amount: 7 }, rememberForSession: true },
      asAlice,
    );
    expect(answered.status, answered.text).toBe(202);
    expectValid('openapi', response('/api/sessions/{id}/actions/{actionId}', 'post', 202), answered.json);
    await ended(answered.json.run_id as string);
    const second = await say({ content: 'plain' });
    await say({ content: '', mode: 'regenerate', from_message_id: second.assistant_message_id });
    await say({
      content: 'host',
      host_context: {
        actions: [
          {
            name: 'select_issue',
            description: 'Select an issue.',
            parameters: { type: 'object', properties: { number: { type: 'integer' } } },
          },
        ],
      },
    });
    await say({ content: '', tool_call_id: 'call_select', tool_result: { selected: 2 } });
    await say({ content: 'fail' });

    const page = await api(
      sandbox.url,
      'GET',
      `/api/sessions/${id}/events?after=0&limit=1000`,
      undefined,
      asAlice,
    );
    expect(page.json.last_seq).toBe(await lastSeq());
    expectValid('openapi', response('/api/sessions/{id}/events', 'get', 200), page.json);
    const events = page.json.events as Array<{ type: string; data: unknown }>;
    for (const event of events) {
      const schema = SESSION_EVENTS[event.type as SessionEventType];
      expect(schema, `an event type no schema describes: ${event.type}`).toBeDefined();
      const parsed = schema.safeParse(event.data);
      expect(parsed.success, `${event.type} ${JSON.stringify(event.data)}: ${parsed.error?.message}`).toBe(
        true,
      );
    }
    const seen = new Set(events.map((e) => e.type));
    expect([...seen].sort()).toEqual(
      Object.keys(SESSION_EVENTS)
        .filter((type) => type !== 'session.deleted')
        .sort(),
    );
    const resolved = events.find((e) => e.type === 'action.resolved')?.data as Json;
    expect(resolved.resolution).toEqual({
      decision: 'approve',
      approved_args: { amount: 7 },
      remember_for_session: true,
    });
  });
});
