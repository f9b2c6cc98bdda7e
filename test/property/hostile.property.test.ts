import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ID_PATTERN } from '../../lib/contract/ids.ts';
import { ERROR_CODES } from '../../lib/errors/index.ts';
import { digest } from '../../lib/ids/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { testSandbox } from '../support/sandbox.ts';
import { queued, within } from '../support/wait.ts';

/**
 * Hostile input over every HTTP route, every WebSocket action and the AG-UI endpoint: malformed JSON, wrong types,
 * huge and odd strings, deep nesting, prototype keys, forged and broken ids, replayed request ids,
 * wrong content types. Whatever comes in, the answer is never a 5xx (nor an `internal` error frame,
 * nor a closed socket), every error is one of docs/protocol.md's codes in its documented shape,
 * and a rejected request stores nothing.
 *
 * Set SWITCHBOARD_PROPERTY_SEED to replay a failure; the seed is printed with each property's count.
 */
const SEED = Number(process.env.SWITCHBOARD_PROPERTY_SEED ?? 20_261_202);

/**
 * Every error code docs/protocol.md lists (its table is written from lib/errors' map), with its HTTP
 * status and its WebSocket error type; only those below 500, since hostile input is never our fault.
 */
const DOCUMENTED: Partial<Record<string, { status: number; type: string }>> = Object.fromEntries(
  Object.entries(ERROR_CODES)
    .filter(([, [status]]) => status < 500)
    .map(([code, [status, type]]) => [code, { status, type }]),
);

/** Fields an error of one code carries besides its documented shape. */
const EXTRA_FIELDS: Record<string, string[]> = { session_busy: ['run_id'] };

/** Answers API Gateway gives itself, in its own `{"message": …}` shape, before any function runs. */
const GATEWAY_OWN: Record<number, string> = { 404: 'Not Found', 413: 'Request Entity Too Large' };

let sandbox: Sandbox;
const pauses = pauseAgents();
const app = createSwitchboard();
app.registerHostAgent({ info: { id: 'noop' }, invoke: async () => ({}) });
for (const definition of pauses.definitions) app.registerHostAgent(definition);

/** Sessions and a file the hostile requests may name, made before the properties run. */
const fixture = { paused: 'hp-paused', driving: 'hp-driving', done: 'hp-done', file: '' };

/** Sessions waiting on an answer or a host call, by the message that paused them: answers use them up. */
const PAUSED: [session: string, agentId: string, message: string][] = [
  ...[1, 2, 3, 4].map((n): [string, string, string] => [`hp-two-${n}`, 'pauser', 'two']),
  ['hp-page-1', 'pauser', 'page'],
  ['hp-page-2', 'pauser', 'page'],
  ['hp-mute', 'mute', 'wire'],
  ['hp-lapsed', 'pauser', 'lapsed'],
  ['hp-strict', 'strict', 'two'],
  ...[1, 2, 3].map((n): [string, string, string] => [`hp-drive-${n}`, 'driver', 'both']),
];
const HOST_ACTIONS = {
  actions: [
    { name: 'select_issue', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
    { name: 'open_page', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
  ],
};

/** Stands for the stored fixture file's id in a generated body; the transport puts the real one in. */
const STORED_FILE = 'file_STORED_FIXTURE';
const withFixtures = <T>(data: T): T =>
  (typeof data === 'string' ? data.replaceAll(STORED_FILE, fixture.file) : data) as T;

let serial = 0;
/** A session id (or request id) no earlier case used. */
const fresh = (what: string) => {
  serial += 1;
  return `hp-${what}-${SEED.toString(36)}-${serial}`;
};

// ---------------------------------------------------------------------------------------------
// Transport

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

interface Answer {
  status: number;
  text: string;
  json: unknown;
}

/** One HTTP request with its path sent exactly as given (no URL normalisation of `..` or `%2F`). */
function request(
  method: string,
  path: string,
  body?: string | Uint8Array,
  headers: Record<string, string> = {},
  base = sandbox.url,
): Promise<Answer> {
  const { port, pathname } = new URL(base);
  // Node sends a path only as printable ASCII: anything else goes percent-encoded, as a client would.
  const sent = `${pathname.replace(/\/$/, '')}${path}`.replace(/[^\x21-\x7e]/gu, (c) =>
    [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: sent, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(withFixtures(body));
    req.end();
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function checkIssues(issues: unknown, where: string) {
  if (issues === undefined) return;
  expect(Array.isArray(issues), where).toBe(true);
  for (const issue of issues as unknown[]) {
    expect(isObject(issue) && Array.isArray(issue.path) && typeof issue.message === 'string', where).toBe(
      true,
    );
  }
}

/** Never a 5xx; an error is a documented code with its status, in `{ error: { code, message, issues? } }`. */
function checkHttp(res: Answer, what: string): boolean {
  const where = `${what} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status < 400) return false;
  if (isObject(res.json) && Object.keys(res.json).join() === 'message') {
    expect(res.json.message, where).toBe(GATEWAY_OWN[res.status]);
    return true;
  }
  expect(isObject(res.json) && Object.keys(res.json), where).toEqual(['error']);
  const error = (res.json as { error: Record<string, unknown> }).error;
  expect(isObject(error), where).toBe(true);
  const code = String(error.code);
  expect(DOCUMENTED[code], `undocumented code: ${where}`).toBeDefined();
  expect(res.status, where).toBe(DOCUMENTED[code]?.status);
  expect(typeof error.message === 'string' && error.message.length > 0, where).toBe(true);
  expect(
    Object.keys(error).filter(
      (k) => !['code', 'message', 'issues', ...(EXTRA_FIELDS[code] ?? [])].includes(k),
    ),
    where,
  ).toEqual([]);
  checkIssues(error.issues, where);
  return true;
}

const sessionStatus = async (id: string) =>
  (await request('GET', `/api/sessions/${encodeURIComponent(id)}`)).status;

/** How many user messages a session holds (the worker adds only assistant ones). */
async function userMessages(id: string): Promise<number> {
  const res = await request('GET', `/api/sessions/${id}/messages?limit=500`);
  expect(res.status, res.text).toBe(200);
  return (res.json as { messages: { role: string }[] }).messages.filter((m) => m.role === 'user').length;
}

/** A WebSocket whose every frame is kept raw: a gateway error frame has no `type`. */
class HostileSocket {
  frames: unknown[] = [];
  closed: number | undefined;
  #wake: (() => void) | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      let frame: unknown = String(data);
      try {
        frame = JSON.parse(String(data));
      } catch {}
      this.frames.push(frame);
      this.#wake?.();
    });
    socket.on('close', (code) => {
      this.closed = code;
      this.#wake?.();
    });
    socket.on('error', () => {});
  }

  static open(url: string): Promise<HostileSocket> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new HostileSocket(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one frame and waits for the first frame after it that does not carry events. */
  async exchange(data: string | Buffer, binary = false): Promise<unknown> {
    const from = this.frames.length;
    this.socket.send(withFixtures(data), { binary });
    return within(this.#answer(from), 'an answer to the frame');
  }

  /** The first frame from `from` on that does not carry events; woken by each frame and by the close. */
  async #answer(from: number): Promise<unknown> {
    for (let at = from; ; ) {
      for (; at < this.frames.length; at += 1) {
        const frame = this.frames[at];
        if (!(isObject(frame) && (typeof frame.seq === 'number' || frame.type === 'events'))) return frame;
      }
      if (this.closed !== undefined) return { closed: this.closed };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Waits for the socket to close; its code, or -1 when it stayed open for 10 s. */
  async closing(): Promise<number> {
    const closed = new Promise<number>((resolve) => {
      if (this.closed !== undefined) resolve(this.closed);
      else this.socket.once('close', resolve);
    });
    return within(closed, 'the socket to close', 10_000).catch(() => -1);
  }

  close() {
    this.socket.close();
  }
}

const ANSWER_TYPES = ['assistant:accepted', 'assistant:joined', 'assistant:cancelled', 'assistant:resolved'];

/** Never an `internal` error or a gateway error frame; an error is a documented code in its documented shape. */
function checkFrame(frame: unknown, what: string): boolean {
  const where = `${what} → ${JSON.stringify(frame)?.slice(0, 300)}`;
  expect(isObject(frame) && typeof frame.type === 'string', where).toBe(true);
  const f = frame as Record<string, unknown>;
  if (f.type !== 'assistant:error') {
    expect(ANSWER_TYPES, where).toContain(f.type);
    return false;
  }
  expect(
    Object.keys(f).filter((k) => !['type', 'request_id', 'error'].includes(k)),
    where,
  ).toEqual([]);
  if ('request_id' in f) expect(typeof f.request_id, where).toBe('string');
  const error = f.error as Record<string, unknown>;
  expect(isObject(error), where).toBe(true);
  expect(error.type, where).not.toBe('internal');
  const code = String(error.code);
  expect(DOCUMENTED[code], `undocumented code: ${where}`).toBeDefined();
  expect(error.type, where).toBe(DOCUMENTED[code]?.type);
  expect(typeof error.message === 'string' && error.message.length > 0, where).toBe(true);
  expect(Array.isArray(error.path), where).toBe(true);
  expect(
    Object.keys(error).filter(
      (k) => !['type', 'code', 'message', 'path', 'issues', ...(EXTRA_FIELDS[code] ?? [])].includes(k),
    ),
    where,
  ).toEqual([]);
  checkIssues(error.issues, where);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Hostile values, as JSON text (so that keys like __proto__ and depths past JSON.stringify fit)

type Raw = string;
const text = (v: unknown): Raw => JSON.stringify(v);
const objText = (entries: [string, Raw][]): Raw =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

const ODD = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\ud83d',
  '\u202eevil\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  '\u200b',
  '\u200d\u200c\ufeff',
  '\u2028\u2029',
  '\ufffe\uffff',
  'e\u0301',
  '𝕏🎉',
  '\t\r\n',
  '<script>alert(1)</script>',
  "'; DROP TABLE x; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is the hostile input
  '${x}%s%n',
  '../../etc/passwd',
  '\\',
  '"',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
];
const oddString = fc.oneof(
  fc.constantFrom(...ODD),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...ODD.filter((s) => s.length > 0)), maxLength: 8 }),
);

/** A long string, bounded by `max` characters. */
const hugeString = (max: number) =>
  fc
    .record({
      unit: fc.constantFrom('x', 'é', '𝕏', '\u0000', '\ud800', '"', '\\', '\u202e'),
      n: fc.integer({ min: 129, max }),
    })
    .map(({ unit, n }) => unit.repeat(Math.ceil(n / unit.length)));

/** Objects and arrays nested 40-300 levels deep, as text. */
const nestedText = (min: number, max: number): fc.Arbitrary<Raw> =>
  fc
    .record({ levels: fc.integer({ min, max }), kinds: fc.array(fc.boolean(), { minLength: 1 }) })
    .map(({ levels, kinds }) => {
      let out = '1';
      for (let i = 0; i < levels; i += 1) out = kinds[i % kinds.length] ? `{"a":${out}}` : `[${out}]`;
      return out;
    });
const deep = nestedText(40, 300);

/** Objects whose keys are special to JavaScript objects. */
const protoKeyed: fc.Arbitrary<Raw> = fc
  .array(
    fc.tuple(
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'),
      fc.constantFrom<Raw>('{"polluted":true}', '{"prototype":{"x":1}}', 'null', '1', '[]', '"x"'),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map(objText);

const number = fc.oneof(
  fc.constantFrom(0, -1, 1.5, -0.000001, 1e308, -1e308, 5e-324, 2 ** 53 + 2, -(2 ** 63)),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any hostile value of any type; `max` bounds its strings. */
const hostileValue = (max: number): fc.Arbitrary<Raw> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<Raw>('null', 'true', 'false', '{}', '[]', '""') },
    { weight: 2, arbitrary: number.map(text) },
    { weight: 4, arbitrary: oddString.map(text) },
    { weight: 1, arbitrary: hugeString(max).map(text) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(text) },
    { weight: 1, arbitrary: deep },
    { weight: 2, arbitrary: protoKeyed },
  );

/** Ids that break the id rule or only look like the server's, and a few fixtures' ones. */
const hostileId = (max: number) =>
  fc.oneof(
    fc.constantFrom(
      '',
      '.',
      '..',
      '-lead',
      '_lead',
      'a b',
      'a/b',
      'a%2Fb',
      '__proto__',
      'constructor',
      'prototype',
      'run_01M8RAS1W7VB7WP6N35XNWNRQG',
      'msg_01M8RAS1W7VB7WP6N35XNWNRQG_000',
      'file_01M8RAS1W7VB7WP6N35XNWNRQG',
      `s_${'0'.repeat(64)}`,
      'x'.repeat(129),
      'é'.repeat(1_100),
    ),
    oddString,
    hugeString(max),
  );

// ---------------------------------------------------------------------------------------------
// Bodies: a valid one with hostile changes

interface Body {
  /** The JSON text sent. */
  text: Raw;
  labels: string[];
}

type Change = { kind: 'set'; key: string; value: Raw } | { kind: 'drop'; key: string };

/** Applies changes to a body's entries: set (replace or add), drop, or a duplicated key. */
function applyChanges(base: [string, Raw][], changes: Change[]): [string, Raw][] {
  let entries = [...base];
  for (const change of changes) {
    if (change.kind === 'set') {
      const at = entries.findIndex(([k]) => k === change.key);
      if (at >= 0) entries[at] = [change.key, change.value];
      else entries.push([change.key, change.value]);
    } else if (change.kind === 'drop') entries = entries.filter(([k]) => k !== change.key);
  }
  return entries;
}

const UNKNOWN_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'colour',
  '',
  ' id',
  'ID',
  'session_id\u0000',
  'action',
  'sessionID',
  'user',
  'tenant',
];

/** Text that is not a JSON object at all, or not JSON. */
const notAnObject = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '{"content":',
    '{"content":"x",}',
    "{'content':'x'}",
    '{"content":NaN}',
    '{"content":Infinity}',
    '{"content":undefined}',
    '\ufeff{"content":"x"}',
    '{"content":"\\ud800"}',
    '{"content":"\\x41"}',
    '{"content":"x"}{"content":"y"}',
    'null',
    '[]',
    '[{"content":"x"}]',
    '"content"',
    '1e999',
    'true',
    '\u0000',
    '<xml/>',
    'content=x',
    '{"a":1}'.repeat(5),
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  deep,
);

/** A body: `base` with one to three hostile changes, or something that is not an object at all. */
function hostileBody(base: [string, Raw][], fields: string[], max: number): fc.Arbitrary<Body> {
  const change: fc.Arbitrary<Change> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant<'set'>('set'),
        key: fc.constantFrom(...fields),
        value: hostileValue(max),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant<'drop'>('drop'), key: fc.constantFrom(...fields) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant<'set'>('set'),
        key: fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), oddString),
        value: hostileValue(max),
      }),
    },
  );
  const changed = fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => {
    const entries = applyChanges(base, changes);
    return {
      text: objText(entries),
      labels: changes.map((c) => (c.kind === 'drop' ? `drop ${c.key}` : `set ${JSON.stringify(c.key)}`)),
    };
  });
  // A key twice: JSON.parse keeps the last one.
  const duplicated = fc
    .record({ key: fc.constantFrom(...fields), value: hostileValue(max) })
    .map(({ key, value }) => ({
      text: objText([...base, [key, value]]).replace(/^\{/, `{${text(key)}:"first",`),
      labels: [`twice ${key}`],
    }));
  return fc.oneof(
    { weight: 8, arbitrary: changed },
    { weight: 1, arbitrary: duplicated },
    { weight: 2, arbitrary: notAnObject.map((t) => ({ text: t, labels: ['not an object'] })) },
  );
}

const CHAT_FIELDS = [
  'id',
  'session_id',
  'sessionId',
  'agent_id',
  'agentId',
  'content',
  'metadata',
  'host_context',
  'hostContext',
  'attachments',
  'images',
  'screenshot',
  'tool_call_id',
  'toolCallId',
  'tool_result',
  'toolResult',
  'tool_outcome',
  'steer',
  'on_busy',
  'onBusy',
  'mode',
  'from_message_id',
  'fromMessageId',
];

const FEEDBACK_FIELDS = ['id', 'rating', 'reasons', 'comment'];

const RESOLVE_FIELDS = [
  'id',
  'decision',
  'comment',
  'approved_args',
  'approvedArgs',
  'remember_for_session',
  'rememberForSession',
  'answers',
  'output',
  'error',
];

/** Values that fit chat fields' shapes but are hostile in content. */
const chatExtras: fc.Arbitrary<Change> = fc.oneof(
  fc.constantFrom<Change>(
    {
      kind: 'set',
      key: 'attachments',
      value: text([{ kind: 'file', file_id: 'file_01M8RAS1W7VB7WP6N35XNWNRQG' }]),
    },
    { kind: 'set', key: 'attachments', value: text([{ kind: 'image', url: 'javascript:alert(1)' }]) },
    { kind: 'set', key: 'attachments', value: text([{ kind: 'image', data_uri: 'data:,' }]) },
    { kind: 'set', key: 'attachments', value: text(Array.from({ length: 17 }, () => ({ text: 'x' }))) },
    { kind: 'set', key: 'images', value: text(['data:image/png;base64,!!!', 'data:,']) },
    { kind: 'set', key: 'screenshot', value: text('data:image/png;base64,\u0000') },
    { kind: 'set', key: 'tool_call_id', value: text('call_select') },
    { kind: 'set', key: 'tool_result', value: '{"__proto__":{"admin":true}}' },
    {
      kind: 'set',
      key: 'host_context',
      value: '{"view":{"name":"v","data":{"__proto__":{"x":1}}},"__proto__":{}}',
    },
    {
      kind: 'set',
      key: 'host_context',
      value:
        '{"actions":[{"name":"constructor","parameters":{"type":"object","properties":{"__proto__":{"type":"string"}}}}]}',
    },
    {
      kind: 'set',
      key: 'metadata',
      value: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    },
    { kind: 'set', key: 'content', value: text('x'.repeat(100_001)) },
    { kind: 'set', key: 'metadata', value: text({ pad: 'x'.repeat(16_400) }) },
    { kind: 'set', key: 'steer', value: 'true' },
    { kind: 'set', key: 'on_busy', value: text('interrupt') },
    { kind: 'set', key: 'on_busy', value: text('reject') },
    { kind: 'set', key: 'onBusy', value: text('steer') },
    { kind: 'set', key: 'agent_id', value: text('missing-agent') },
    { kind: 'set', key: 'agent_id', value: text('pauser') },
    { kind: 'set', key: 'agent_id', value: text('x'.repeat(129)) },
  ),
  fc.record({
    kind: fc.constant<'set'>('set'),
    key: fc.constantFrom('session_id', 'sessionId', 'tool_call_id', 'id'),
    value: hostileId(3_000).map(text),
  }),
);

/** A first message to a fresh session, with hostile changes. */
const PRINTABLE = [...Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i))];
const oddObject: fc.Arbitrary<Raw> = fc
  .array(fc.tuple(oddString, fc.oneof(oddString.map(text), protoKeyed, fc.constantFrom('null', '1', '[]'))), {
    maxLength: 4,
  })
  .map(objText);

/** Odd values the contract takes: they reach the table, the queue, the worker and the agent. */
const oddChange = (max: number): fc.Arbitrary<Change> =>
  fc.oneof(
    fc.record({
      kind: fc.constant<'set'>('set'),
      key: fc.constant('content'),
      value: fc
        .oneof(
          oddString.filter((s) => s.length > 0),
          hugeString(max).map((s) => s.slice(0, 100_000)),
        )
        .map(text),
    }),
    fc.record({
      kind: fc.constant<'set'>('set'),
      key: fc.constantFrom('metadata'),
      value: fc.oneof(oddObject, protoKeyed),
    }),
    fc.record({
      kind: fc.constant<'set'>('set'),
      key: fc.constantFrom('host_context', 'hostContext'),
      value: fc
        .tuple(oddObject, oddObject)
        .map(([data, state]) => `{"view":{"name":"v","data":${data},"state":${state}}}`),
    }),
    fc.record({
      kind: fc.constant<'set'>('set'),
      key: fc.constant('id'),
      value: fc
        .string({ unit: fc.constantFrom(...PRINTABLE), minLength: 1, maxLength: 128 })
        .map((s) => text(`${s}${serial}`.slice(-128))),
    }),
    fc.constant<Change>({ kind: 'set', key: 'steer', value: 'true' }),
    fc
      .record({
        kind: fc.constant<'set'>('set'),
        key: fc.constantFrom('attachments', 'images', 'screenshot'),
        value: fc
          .array(
            fc.record(
              {
                kind: fc.constantFrom('image', 'document', 'text'),
                purpose: fc.constantFrom('reference', 'screenshot'),
                content: fc.oneof(
                  fc.constantFrom(
                    ['file_id', STORED_FILE],
                    ['file_id', 'file_01M8RAS1W7VB7WP6N35XNWNRQG'],
                    ['data_uri', 'data:,'],
                    ['data_uri', 'data:image/png;base64,!!!'],
                    ['data_uri', 'data:image/png;base64,iVBORw0KGgo='],
                    ['data_uri', 'data:text/plain,\u0000\ud800'],
                    ['url', 'https://example.com/\u202e\u200b'],
                    ['url', 'http://127.0.0.1:1/'],
                  ),
                  oddString.map((t) => ['text', t]),
                ),
                name: oddString,
                media_type: oddString,
              },
              { requiredKeys: ['content'] },
            ),
            { minLength: 1, maxLength: 3 },
          )
          .map((list) =>
            text(list.map(({ content, ...rest }) => ({ ...rest, [content[0] as string]: content[1] }))),
          ),
      })
      .map((c) =>
        // images and screenshot take data URIs only.
        c.key === 'attachments'
          ? c
          : {
              ...c,
              value:
                c.key === 'images'
                  ? text(['data:image/png;base64,iVBORw0KGgo=', 'data:,\u0000'])
                  : text('data:image/png;base64,!!!'),
            },
      ),
  );

/** A first message to a fresh session: hostile changes, or odd ones the contract takes. */
const chatBody = (max: number) =>
  fc.array(chatExtras, { maxLength: 2 }).chain((extras) => {
    const session = fresh('chat');
    const id = fresh('req');
    const base: [string, Raw][] = [
      ['id', text(id)],
      ['session_id', text(session)],
      ['agent_id', text('noop')],
      ['content', text('hi')],
    ];
    return fc
      .oneof(
        { weight: 3, arbitrary: hostileBody(applyChanges(base, extras), CHAT_FIELDS, max) },
        {
          weight: 1,
          arbitrary: fc.array(oddChange(max), { minLength: 1, maxLength: 3 }).map((changes) => ({
            text: objText(applyChanges(base, changes)),
            labels: changes.map((c) => `odd ${c.key}`),
          })),
        },
      )
      .map((body) => ({ ...body, session, id }));
  });

/** The session ids a rejected body might have stored under, that were free before it was sent. */
async function candidates(bodyText: string, session: string): Promise<string[]> {
  const ids = new Set([session]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return [session];
  }
  if (isObject(parsed)) {
    const named = parsed.session_id ?? parsed.sessionId;
    if (typeof named === 'string' && ID_PATTERN.test(named)) ids.add(named);
    if (named === undefined && typeof parsed.id === 'string') ids.add(`s_${digest('anonymous', parsed.id)}`);
  }
  const free: string[] = [];
  for (const id of ids) if (id === session || (await sessionStatus(id)) === 404) free.push(id);
  return free;
}

// ---------------------------------------------------------------------------------------------

function report(name: string, runs: number, seed: number) {
  console.log(`[hostile] ${name}: ${runs} cases (seed ${seed})`);
}

beforeAll(async () => {
  // No sweep during the file: a paused session changes only by what the properties send.
  sandbox = await testSandbox({ app, sweepPeriodMs: 600_000 });
  const start = async (session: string, agentId: string, content: string, extra = {}) => {
    const res = await request(
      'POST',
      '/api/chat',
      text({ session_id: session, agent_id: agentId, content, ...extra }),
      { 'content-type': 'application/json' },
    );
    expect(res.status, res.text).toBe(202);
  };
  await start(fixture.paused, 'pauser', 'two');
  await start(fixture.driving, 'driver', 'one', { host_context: HOST_ACTIONS });
  for (const [session, agentId, message] of PAUSED)
    await start(session, agentId, message, agentId === 'driver' ? { host_context: HOST_ACTIONS } : {});
  await start(fixture.done, 'noop', 'hello');
  const file = await request('POST', '/api/files?name=notes.txt', 'hello', { 'content-type': 'text/plain' });
  expect(file.status, file.text).toBe(201);
  fixture.file = (file.json as { id: string }).id;
  // expect.poll is for tests only: in a hook, vi.waitFor, with the same bound as `queued`.
  for (const id of [fixture.paused, fixture.driving, ...PAUSED.map(([session]) => session)]) {
    const { timeout, interval } = queued(`${id} to pause`, 20_000);
    await vi.waitFor(
      async () => expect((await request('GET', `/api/sessions/${id}`)).text).toContain('"requires_action"'),
      { timeout, interval },
    );
  }
}, 40_000);

afterAll(async () => {
  agent.destroy();
  await sandbox?.close();
}, 20_000);

describe('hostile HTTP requests', () => {
  it('POST /api/chat: never a 5xx, only documented errors, and a rejected first message stores no session', async () => {
    const seed = SEED;
    let runs = 0;
    let rejected = 0;
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'image/png',
      '',
      'json',
      'a/b/c',
      `application/${'x'.repeat(2_000)}`,
    );
    await fc.assert(
      fc.asyncProperty(chatBody(60_000), fc.option(contentType, { freq: 3 }), async (body, type) => {
        runs += 1;
        const free = await candidates(body.text, body.session);
        const res = await request(
          'POST',
          '/api/chat',
          body.text,
          type === null
            ? { 'content-type': 'application/json' }
            : type === ''
              ? {}
              : { 'content-type': type },
        );
        if (!checkHttp(res, `chat ${body.labels.join(', ')}`)) {
          // What was taken reads back.
          const { session_id } = res.json as { session_id: string };
          for (const tail of ['', '/messages', '/events'])
            expect((await request('GET', `/api/sessions/${session_id}${tail}`)).status).toBe(200);
          // And the turn it queued ends as the agent ended it, not in a fault of the runtime's.
          const session = JSON.parse((await settled(session_id)).replace(/ \d+$/, '')) as {
            last_run: { status: string; error: unknown };
          };
          expect(session.last_run, `${body.labels.join(', ')}: ${body.text.slice(0, 300)}`).toMatchObject({
            status: 'completed',
            error: null,
          });
          return;
        }
        rejected += 1;
        for (const id of free) expect(await sessionStatus(id), `${id} after ${res.text}`).toBe(404);
      }),
      { seed, numRuns: 150 },
    );
    report(`POST /api/chat (${rejected} rejected)`, runs, seed);
  }, 60_000);

  it('a replayed request id with a hostile body is never a 5xx and changes nothing stored when rejected', async () => {
    const seed = SEED + 1;
    let runs = 0;
    const replay = fc.record({
      body: hostileBody(
        [
          ['content', text('hi again')],
          ['agent_id', text('noop')],
        ],
        CHAT_FIELDS,
        20_000,
      ),
      where: fc.constantFrom('same', 'camel', 'other', 'none'),
    });
    await fc.assert(
      fc.asyncProperty(replay, async ({ body, where }) => {
        runs += 1;
        const session = fresh('replay');
        const id = fresh('rid');
        const first = await request(
          'POST',
          '/api/chat',
          text({ id, session_id: session, agent_id: 'noop', content: 'hi' }),
          {
            'content-type': 'application/json',
          },
        );
        expect(first.status, first.text).toBe(202);
        const other = fresh('other');
        let again = body.text;
        const ids: [string, Raw][] =
          where === 'same'
            ? [
                ['id', text(id)],
                ['session_id', text(session)],
              ]
            : where === 'camel'
              ? [
                  ['id', text(id)],
                  ['sessionId', text(session)],
                ]
              : where === 'other'
                ? [
                    ['id', text(id)],
                    ['session_id', text(other)],
                  ]
                : [['id', text(id)]];
        if (again.startsWith('{') && again.length > 2 && !again.startsWith('{"a"'))
          again = `{${ids.map(([k, v]) => `${text(k)}:${v}`).join(',')},${again.slice(1)}`;
        const before = await userMessages(session);
        const res = await request('POST', '/api/chat', again, { 'content-type': 'application/json' });
        if (!checkHttp(res, `replay ${where} ${body.labels.join(', ')}`)) return;
        expect(await userMessages(session), res.text).toBe(before);
        expect(await sessionStatus(other)).toBe(404);
      }),
      { seed, numRuns: 60 },
    );
    report('replayed request ids', runs, seed);
  }, 60_000);

  it('the session routes: never a 5xx and only documented errors, whatever the path, query and body', async () => {
    const seed = SEED + 2;
    let runs = 0;
    const ENCODED = [
      '%2F',
      'a%2Fb',
      '%2e%2e',
      '..',
      '.',
      '%20',
      'a%20b',
      '%00',
      '%',
      '%zz',
      '%ED%A0%80',
      '%C0%AF',
      '%E2%80%AE',
      '%E2%80%8B',
      '%EF%BB%BF',
      encodeURIComponent('é'.repeat(1_100)),
      'x'.repeat(3_000),
      '..%2F..%2Fapi%2Ffiles',
      'hp-paused%00',
      'HP-PAUSED',
    ];
    const encode = (id: string) => {
      try {
        return encodeURIComponent(id);
      } catch {
        return id.replace(/[^\x21-\x7e]/g, '%FF');
      }
    };
    const readId = fc.oneof(
      fc.constantFrom(fixture.paused, fixture.driving, fixture.done).map(encode),
      fc.constant(null).map(() => fresh('path')),
      fc.constantFrom(...ENCODED),
      // Node's server takes 16 KB of request line and headers; API Gateway about as much.
      hostileId(800).map(encode),
    );
    const writeId = fc.oneof(
      fc.constant(null).map(() => fresh('path')),
      fc.constantFrom(...ENCODED),
      hostileId(800).map(encode),
    );
    const queryValue = fc.oneof(
      fc.constantFrom(
        '0',
        '-1',
        '1e9',
        '1001',
        '501',
        'abc',
        '',
        ' ',
        'NaN',
        'Infinity',
        '0.5',
        '0x10',
        '%00',
        '%E2%80%AE',
        'msg_x_000',
        'msg_01M8RAS1W7VB7WP6N35XNWNRQG_000_s1',
      ),
      hostileId(500).map(encode),
    );
    const query = fc
      .array(
        fc.tuple(
          fc.constantFrom('after', 'limit', 'wait', 'after', '__proto__', 'constructor', 'x'),
          queryValue,
        ),
        { maxLength: 3 },
      )
      // A long poll of a real session would only wait: keep `wait` at values that do not.
      .filter((q) => q.every(([k, v]) => k !== 'wait' || !(Number(v) >= 1 && Number(v) <= 20)))
      .map((q) => (q.length === 0 ? '' : `?${q.map(([k, v]) => `${k}=${v}`).join('&')}`));
    const resolveBody = hostileBody([['decision', text('deny')]], RESOLVE_FIELDS, 20_000);
    const feedbackBody = hostileBody([['rating', text('up')]], FEEDBACK_FIELDS, 20_000);
    // The fixture's own messages (an answer, a question), malformed ids and ids of nothing.
    const doneMessages = (
      (await request('GET', `/api/sessions/${fixture.done}/messages`)).json as { messages: { id: string }[] }
    ).messages.map((m) => m.id);
    const messageId = fc.oneof(
      fc.constantFrom(...doneMessages, 'msg_01AAAAAAAAAAAAAAAAAAAAAAAA_001', 'msg_x_000_sY'),
      fc.constantFrom(...ENCODED),
      hostileId(800).map(encode),
    );
    const routed = fc.oneof(
      fc.record({
        method: fc.constant('GET'),
        path: fc
          .tuple(readId, fc.constantFrom('', '/messages', '/events'), query)
          .map(([id, tail, q]) => `/api/sessions/${id}${tail}${q}`),
      }),
      fc.record({
        method: fc.constant('POST'),
        path: fc
          .tuple(
            readId,
            fc.oneof(
              fc.constantFrom('req_wire', 'req_account', 'call_select', 'req_page'),
              fc.constantFrom(...ENCODED),
              hostileId(800).map(encode),
            ),
          )
          .map(([id, action]) => `/api/sessions/${id}/actions/${action}`),
        body: resolveBody.map((b) => b.text),
      }),
      fc.record({
        method: fc.constant('POST'),
        path: fc
          .tuple(readId, messageId)
          .map(([id, message]) => `/api/sessions/${id}/messages/${message}/feedback`),
        body: feedbackBody.map((b) => b.text),
      }),
      fc.record({
        method: fc.constant('GET'),
        path: fc.tuple(readId, query).map(([id, q]) => `/api/sessions/${id}/export${q}`),
      }),
      fc
        .record({
          method: fc.constantFrom('POST', 'DELETE'),
          path: writeId.map((id) => `/api/sessions/${id}`),
        })
        .map((r) => ({
          ...r,
          path: r.method === 'POST' ? `${r.path}/cancel` : r.path,
        })),
      fc.record({
        method: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'POST'),
        path: fc.constantFrom(
          '/api/sessions',
          '/api/sessions/',
          '/api/chat',
          '/api',
          '/api/sessions/a/b/c',
          '/api/files/',
          '//api/chat',
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        routed,
        fc.option(fc.constantFrom('application/json', 'text/plain', 'application/octet-stream')),
        async (req, type) => {
          runs += 1;
          const body = 'body' in req ? req.body : undefined;
          const res = await request(
            req.method,
            req.path,
            body,
            type && body !== undefined ? { 'content-type': type } : {},
          );
          checkHttp(res, `${req.method} ${req.path.slice(0, 200)} ${body?.slice(0, 200) ?? ''}`);
        },
      ),
      { seed, numRuns: 200 },
    );
    report('session routes', runs, seed);
  }, 60_000);

  it('POST /api/files and GET /api/files/{id}: never a 5xx and only documented errors', async () => {
    const seed = SEED + 3;
    let runs = 0;
    const uploadRequest = hostileBody(
      [
        ['name', text('scan.pdf')],
        ['media_type', text('application/pdf')],
        ['size', '1000'],
        ['sha256', text('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')],
      ],
      ['name', 'media_type', 'mediaType', 'size', 'sha256'],
      20_000,
    );
    const mediaType = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/octet-stream',
        'image/png',
        'text/plain; charset=utf-16',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text',
        '../../x',
        '*/*',
        'text/*',
        'a/b/c',
        ' text/plain ',
        'TEXT/PLAIN',
        'application/vnd.example+yaml',
        'application/json',
        `application/${'a'.repeat(200)}`,
        `application/${'a'.repeat(2_000)}`,
        'x/y;;;;',
      ),
      fc.string({ unit: fc.constantFrom(...'abc/;+-.=*# '), maxLength: 30 }),
    );
    const name = fc.oneof(
      fc.constantFrom(
        '',
        'notes.txt',
        '../../etc/passwd',
        '%00',
        '%2F',
        '%ED%A0%80',
        '%E2%80%AEtxt.exe',
        'a&name=b',
        'x'.repeat(2_000),
      ),
      oddString.map((s) => {
        try {
          return encodeURIComponent(s);
        } catch {
          return '%ED%A0%80';
        }
      }),
    );
    const fileRequest = fc.oneof(
      uploadRequest.map((b) => ({
        method: 'POST',
        path: '/api/files',
        body: b.text as string | Uint8Array,
        type: 'application/json',
      })),
      fc
        .record({
          name: fc.option(name),
          type: fc.option(mediaType),
          bytes: fc.oneof(
            fc.uint8Array({ maxLength: 2_000 }),
            oddString.map((s) => Buffer.from(s)),
          ),
        })
        .map(({ name: n, type, bytes }) => ({
          method: 'POST',
          path: n === null ? '/api/files' : `/api/files?name=${n}`,
          body: bytes as string | Uint8Array,
          type: type ?? undefined,
        })),
      fc
        .oneof(
          fc.constant(fixture.file),
          fc.constantFrom(
            'file_01M8RAS1W7VB7WP6N35XNWNRQG',
            '%2F',
            '..',
            '%ED%A0%80',
            'x'.repeat(3_000),
            '__proto__',
          ),
          hostileId(800).map((s) => {
            try {
              return encodeURIComponent(s);
            } catch {
              return '%FF';
            }
          }),
        )
        .map((id) => ({
          method: 'GET',
          path: `/api/files/${id}`,
          body: undefined as string | Uint8Array | undefined,
          type: undefined,
        })),
    );
    await fc.assert(
      fc.asyncProperty(fileRequest, async (req) => {
        runs += 1;
        const res = await request(
          req.method,
          req.path,
          req.body,
          req.type === undefined ? {} : { 'content-type': req.type },
        );
        checkHttp(res, `${req.method} ${req.path.slice(0, 200)} ${req.type ?? ''}`);
      }),
      { seed, numRuns: 150 },
    );
    report('files', runs, seed);
  }, 60_000);
});

/** A paused session once nothing runs in it: what GET answers, and the last seq of its log. */
async function settled(id: string): Promise<string> {
  let found: string | undefined;
  const attempt = async () => {
    const session = await request('GET', `/api/sessions/${id}`);
    expect(session.status, session.text).toBe(200);
    const status = (session.json as { status: string; last_run?: { status?: string } }).status;
    const run = (session.json as { last_run?: { status?: string } }).last_run?.status;
    if (status === 'running' || run === 'queued' || run === 'running') return undefined;
    const events = await request('GET', `/api/sessions/${id}/events?after=0&limit=1`);
    found = `${session.text} ${(events.json as { last_seq: number }).last_seq}`;
    return found;
  };
  await expect.poll(attempt, queued(`${id} to settle`)).toBeDefined();
  return found ?? '';
}

describe('answers and host-call results to paused sessions', () => {
  let host: HostileSocket;
  beforeAll(async () => {
    host = await HostileSocket.open(sandbox.wsUrl);
  });
  afterAll(() => host?.close());

  it('never a 5xx or an internal error, only documented errors, and a rejected one changes nothing', async () => {
    const seed = SEED + 7;
    let runs = 0;
    let accepted = 0;
    const pausers = PAUSED.filter(([, agentId]) => agentId !== 'driver').map(([session]) => session);
    const drivers = PAUSED.filter(([, agentId]) => agentId === 'driver').map(([session]) => session);
    const oddJson: fc.Arbitrary<Raw> = fc.oneof(
      oddObject,
      protoKeyed,
      oddString.map(text),
      nestedText(1, 62),
      number.map(text),
      fc.constantFrom(
        '"data:image/png;base64,!!!"',
        '{"shot":"data:image/png;base64,iVBORw0KGgo="}',
        '["data:,","data:image/svg+xml,<svg/>","data:image/png;base64,"]',
      ),
    );
    const approve: [string, Raw] = ['decision', text('approve')];
    const oddAnswer: fc.Arbitrary<Raw> = fc.oneof(
      fc.constant(objText([approve])),
      number.map((n) => objText([approve, ['approved_args', objText([['amount', text(n)]])]])),
      oddObject.map((o) => objText([approve, ['approvedArgs', o]])),
      fc
        .oneof(fc.array(oddString, { maxLength: 3 }).map(text), oddObject, protoKeyed)
        .map((a) => objText([['answers', a]])),
      oddJson.map((o) => objText([['output', o]])),
      oddString.map((e) => objText([['error', text(e)]])),
      oddString.map((c) =>
        objText([
          ['decision', text('deny')],
          ['comment', text(c)],
          ['remember_for_session', 'true'],
        ]),
      ),
    );
    const answer = fc.record({
      kind: fc.constant<'answer'>('answer'),
      session: fc.constantFrom(...pausers),
      target: fc.constantFrom('req_wire', 'req_account', 'req_page', 'req_lapsed', 'call_select'),
      body: fc.oneof(
        oddAnswer,
        hostileBody([approve], RESOLVE_FIELDS, 8_000).map((b) => b.text),
      ),
      ws: fc.boolean(),
    });
    const continuation = fc
      .record({
        session: fc.constantFrom(...drivers),
        target: fc.constantFrom('call_select', 'call_open', 'call_none'),
        result: oddJson,
        failed: fc.boolean(),
        ws: fc.boolean(),
      })
      .chain(({ session, target, result, failed, ws }) => {
        const base: [string, Raw][] = [
          ['id', text(fresh('cont'))],
          ['session_id', text(session)],
          ['content', '""'],
          ['tool_call_id', text(target)],
          ['tool_result', result],
          ...(failed ? [['tool_outcome', text('failed')] as [string, Raw]] : []),
        ];
        return fc
          .oneof(
            fc.constant(objText(base)),
            hostileBody(base, CHAT_FIELDS, 8_000).map((b) => b.text),
          )
          .map((body) => ({ kind: 'continuation' as const, session, target, body, ws }));
      });
    const withAction = (action: string, fields: [string, Raw][], body: Raw) =>
      body.startsWith('{') && body.length > 2 && body !== '{'
        ? `{${[['action', text(action)] as [string, Raw], ...fields].map(([k, v]) => `${text(k)}:${v}`).join(',')},${body.slice(1)}`
        : body;
    await fc.assert(
      fc.asyncProperty(fc.oneof(answer, continuation), async (c) => {
        const sent =
          c.kind === 'answer'
            ? withAction(
                'assistant_resolve_action',
                [
                  ['session_id', text(c.session)],
                  ['action_id', text(c.target)],
                ],
                c.body,
              )
            : withAction('assistant_message', [], c.body);
        fc.pre(!c.ws || (Buffer.byteLength(sent) <= 32_000 && sent.length > 0));
        runs += 1;
        const before = await settled(c.session);
        let rejected: boolean;
        const what = `${c.kind} ${c.session} ${c.target} ${sent.slice(0, 300)}`;
        if (c.ws) {
          const frame = await host.exchange(sent);
          expect(host.closed, `socket closed by ${what}`).toBeUndefined();
          rejected = checkFrame(frame, what);
        } else {
          const res =
            c.kind === 'answer'
              ? await request('POST', `/api/sessions/${c.session}/actions/${c.target}`, c.body, {
                  'content-type': 'application/json',
                })
              : await request('POST', '/api/chat', c.body, { 'content-type': 'application/json' });
          rejected = checkHttp(res, what);
        }
        if (!rejected) {
          accepted += 1;
          return;
        }
        expect(await settled(c.session), what).toBe(before);
      }),
      { seed, numRuns: 150 },
    );
    report(`answers and host-call results (${accepted} accepted)`, runs, seed);
  }, 60_000);
});

describe('hostile AG-UI requests', () => {
  it('run, resume and repost: never a 5xx, only documented errors, and a rejected one changes nothing', async () => {
    const seed = SEED + 11;
    let runs = 0;
    let accepted = 0;
    const pausers = PAUSED.filter(([, agentId]) => agentId !== 'driver').map(([session]) => session);
    const odd = fc.oneof(oddString, hugeString(2_000));
    const thread = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pausers) },
      // Someone else's session by its ref, a ref of nobody's, and ids that are not ids.
      fc.constantFrom(`${digest('x')}~hp-paused`, `${'A'.repeat(32)}~${pausers[0]}`),
      odd,
    );
    const runId = fc.oneof({ weight: 3, arbitrary: fc.constant('') }, odd);
    const message = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ id: 'm0', role: 'user', content: 'hello' }) },
      oddString.map((content) => ({ id: 'm1', role: 'user', content })),
      fc.record({ id: fc.constant('t1'), role: fc.constant('tool'), toolCallId: odd, content: oddString }),
      fc.constant({ id: 'a1', role: 'assistant' }),
      oddString.map((role) => ({ id: 'x', role })),
    );
    const resume = fc.record({
      interruptId: fc.oneof(fc.constantFrom('req_wire', 'req_account', 'req_page', 'call_select'), odd),
      status: fc.oneof(fc.constantFrom('resolved', 'cancelled'), oddString),
      payload: fc.oneof(fc.constant({ decision: 'approve' }), fc.constant({ answers: {} }), oddString),
    });
    const input = fc.record(
      {
        threadId: thread,
        runId,
        messages: fc.array(message, { maxLength: 3 }),
        resume: fc.array(resume, { maxLength: 3 }),
        agent: fc.constantFrom('', '/noop', '/pauser', `/${'x'.repeat(300)}`),
      },
      { requiredKeys: ['threadId', 'runId', 'agent'] },
    );
    await fc.assert(
      fc.asyncProperty(input, async ({ agent: path, ...body }) => {
        runs += 1;
        const sent = { ...body, runId: body.runId === '' ? fresh('agui') : body.runId };
        const named = pausers.includes(String(sent.threadId)) ? String(sent.threadId) : undefined;
        const before = named ? await settled(named) : undefined;
        const what = `agui ${path} ${JSON.stringify(sent).slice(0, 300)}`;
        const res = await request(
          'POST',
          path || '/',
          JSON.stringify(sent),
          { 'content-type': 'application/json' },
          sandbox.aguiUrl,
        );
        if (!checkHttp(res, what)) {
          accepted += 1;
          expect(res.text, what).not.toMatch(/internal_error/);
          return;
        }
        if (named) expect(await settled(named), what).toBe(before);
      }),
      { seed, numRuns: 120 },
    );
    report(`AG-UI requests (${accepted} accepted)`, runs, seed);
  }, 90_000);
});

describe('hostile WebSocket frames', () => {
  let host: HostileSocket;

  beforeAll(async () => {
    host = await HostileSocket.open(sandbox.wsUrl);
  });
  afterAll(() => host?.close());

  /** Keeps a frame within API Gateway's 32 KB frame limit, which would close the socket (1009). */
  const FRAME_MAX = 32_000;

  it('every action: never an internal error or a closed socket, only documented errors, nothing stored when rejected', async () => {
    const seed = SEED + 4;
    let runs = 0;
    let rejected = 0;
    const frame = fc.oneof(
      chatBody(8_000).map((b) => ({ ...b, action: 'assistant_message' })),
      fc.constant(null).chain(() =>
        hostileBody(
          [
            ['session_id', text(fixture.done)],
            ['after_seq', '0'],
          ],
          ['session_id', 'sessionId', 'after_seq', 'host_context', 'hostContext'],
          8_000,
        ).map((b) => ({ ...b, action: 'assistant_join_session', session: '', id: '' })),
      ),
      hostileBody([['session_id', text('hp-none')]], ['session_id', 'sessionId'], 8_000).map((b) => ({
        ...b,
        action: 'assistant_cancel',
        session: '',
        id: '',
      })),
      hostileBody(
        [
          ['session_id', text(fixture.paused)],
          ['action_id', text('req_account')],
          ['answers', '["main"]'],
        ],
        ['session_id', 'sessionId', 'action_id', 'actionId', ...RESOLVE_FIELDS],
        8_000,
      ).map((b) => ({ ...b, action: 'assistant_resolve_action', session: '', id: '' })),
      hostileBody(
        [
          ['session_id', text(fixture.done)],
          ['message_id', text('msg_01AAAAAAAAAAAAAAAAAAAAAAAA_001')],
          ['rating', text('up')],
        ],
        ['session_id', 'sessionId', 'message_id', 'messageId', ...FEEDBACK_FIELDS],
        8_000,
      ).map((b) => ({ ...b, action: 'assistant_feedback', session: '', id: '' })),
    );
    await fc.assert(
      fc.asyncProperty(frame, async (f) => {
        runs += 1;
        // The action goes first, as a host writes it; a body that is not an object is sent as it is.
        const sent =
          f.text.startsWith('{') && f.text !== '{' && !f.text.startsWith('{"a"')
            ? `{"action":${text(f.action)}${f.text.length > 2 ? ',' : ''}${f.text.slice(1)}`
            : f.text;
        fc.pre(Buffer.byteLength(sent) <= FRAME_MAX && sent.length > 0);
        const free = f.session ? await candidates(f.text, f.session) : [];
        const answer = await host.exchange(sent);
        expect(host.closed, `socket closed by ${sent.slice(0, 200)}`).toBeUndefined();
        if (!checkFrame(answer, `${f.action} ${f.labels.join(', ')}`)) return;
        rejected += 1;
        for (const id of free)
          expect(await sessionStatus(id), `${id} after ${JSON.stringify(answer)}`).toBe(404);
      }),
      { seed, numRuns: 200 },
    );
    report(`WebSocket actions (${rejected} rejected)`, runs, seed);
  }, 60_000);

  it('unknown actions and frames that are not JSON objects: a documented error, never a closed socket', async () => {
    const seed = SEED + 5;
    let runs = 0;
    const action = fc.oneof(
      fc.constantFrom<Raw>(
        '"assistant_foo"',
        '""',
        '"ASSISTANT_MESSAGE"',
        '"assistant_message "',
        '"$connect"',
        '"$disconnect"',
        '"$default"',
        '"__proto__"',
        '"constructor"',
        '"toString"',
        '5',
        'null',
        'true',
        '["assistant_message"]',
        '{"name":"assistant_message"}',
      ),
      oddString.map(text),
      hugeString(8_000).map(text),
    );
    const unknown = fc
      .record({
        action,
        rest: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), oddString), hostileValue(4_000)), {
          maxLength: 3,
        }),
      })
      .map(({ action: a, rest }) => objText([['action', a], ...rest]));
    const frames = fc.oneof(
      unknown,
      notAnObject.filter((t) => t.length > 0),
      fc.constantFrom(
        '{"action":"assistant_message"',
        '{"action":"assistant_message"}{"x":1}',
        '{"__proto__":{"action":"assistant_message"}}',
        '{"action":"assistant_message","action":"nope"}',
        '{"action":"nope","action":"assistant_cancel","session_id":"hp-none"}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(frames, async (sent) => {
        runs += 1;
        fc.pre(Buffer.byteLength(sent) <= FRAME_MAX);
        const answer = await host.exchange(sent);
        expect(host.closed, `socket closed by ${sent.slice(0, 200)}`).toBeUndefined();
        checkFrame(answer, sent.slice(0, 200));
      }),
      { seed, numRuns: 150 },
    );
    report('unknown actions and non-JSON frames', runs, seed);
  }, 60_000);

  it('closes the connection only by API Gateway’s limits: 1009 for a frame over 32 KB, 1003 for a binary frame', async () => {
    const seed = SEED + 6;
    let runs = 0;
    const input = fc.oneof(
      fc
        .uint8Array({ minLength: 1, maxLength: 2_000 })
        .map((bytes) => ({ binary: true, data: Buffer.from(bytes) })),
      fc
        .constantFrom('{"action":"assistant_message","content":"hi"}', '{}')
        .map((t) => ({ binary: true, data: Buffer.from(t) })),
      fc.integer({ min: 32_769, max: 60_000 }).map((n) => ({
        binary: false,
        data: Buffer.from(`{"action":"assistant_message","agent_id":"noop","content":"${'x'.repeat(n)}"}`),
      })),
    );
    await fc.assert(
      fc.asyncProperty(input, async ({ binary, data }) => {
        runs += 1;
        const socket = await HostileSocket.open(sandbox.wsUrl);
        socket.socket.send(data, { binary });
        expect(await socket.closing()).toBe(binary ? 1003 : 1009);
        expect(socket.frames).toEqual([]);
      }),
      { seed, numRuns: 20 },
    );
    report('frames past the gateway’s limits', runs, seed);
    // The long-lived socket is still open and answering.
    const answer = await host.exchange(text({ action: 'assistant_cancel', session_id: 'hp-none' }));
    expect(answer).toMatchObject({ type: 'assistant:error', error: { code: 'session_not_found' } });
  }, 30_000);
});
