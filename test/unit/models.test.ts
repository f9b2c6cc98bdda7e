import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createRuntime } from '../../lib/boot/index.ts';
import type { HistoryMessage } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { chatMessages } from '../../lib/models/chat-completions.ts';
import { MODEL_REPLY_LIMITS } from '../../lib/models/parse.ts';
import { ChatReader } from '../../lib/models/parse-chat.ts';
import { ResponsesReader } from '../../lib/models/parse-responses.ts';
import { redactEndpointText } from '../../lib/models/redact.ts';
import { responsesInput } from '../../lib/models/responses.ts';
import { keyOfSecret } from '../../lib/models/secret.ts';
import { checkArgs, checkValue, offeredTools } from '../../lib/models/tools.ts';
import { conversationMessages, historyThrough, type ModelMessage } from '../../lib/models/transcript.ts';
import { secretArn } from '../../sandbox/aws/index.ts';
import { type SecretsManagerEmulator, startSecretsManager } from '../../sandbox/secrets-manager.ts';
import { SANDBOX_CREDENTIALS, SANDBOX_REGION } from '../../sandbox/services.ts';
import {
  type ModelTurn,
  modelTurn,
  type RawEndpoint,
  sse,
  startRawEndpoint,
} from '../support/model-endpoint.ts';

const message = (id: string, role: 'user' | 'assistant', content: string): HistoryMessage => ({
  id,
  role,
  content,
  prompt: role === 'user' ? `<host_context>\nView: inbox\n</host_context>\n\n${content}` : content,
  attachments: [],
  createdAt: '2026-12-01T10:00:00.000Z',
});

/** A conversation with every kind of part, a call and its result. */
const CONVERSATION: ModelMessage[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Look at these.' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' },
      { type: 'image', url: 'https://example.com/a.jpg' },
      { type: 'document', mediaType: 'application/pdf', data: 'JVBERi0x', name: 'spec.pdf' },
      { type: 'document', url: 'https://example.com/b.pdf', name: 'b.pdf' },
    ],
  },
  { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'lookup', args: '{"q":"x"}' }] },
  { role: 'tool', callId: 'c1', output: '{"found":true}' },
  { role: 'assistant', text: 'Found it.', calls: [] },
];

describe('the prompt, in no endpoint’s format', () => {
  it('replays each user message as its frozen prompt and its parts, each answer as its text, and leaves out empty answers', async () => {
    const history = [
      message('m1', 'user', 'hi'),
      message('m2', 'assistant', ''),
      message('m3', 'user', 'again'),
    ];
    const parts = async (id?: string) => (id === 'm3' ? [{ type: 'text' as const, text: 'notes' }] : []);
    expect(await conversationMessages(history, parts)).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: '<host_context>\nView: inbox\n</host_context>\n\nhi' }],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<host_context>\nView: inbox\n</host_context>\n\nagain' },
          { type: 'text', text: 'notes' },
        ],
      },
    ]);
    expect(historyThrough(history, 'm2').map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(historyThrough(history, 'gone').map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('the wires', () => {
  it('writes Chat Completions messages: native parts, a linked document as text, calls and their results', () => {
    expect(chatMessages('Be brief.', CONVERSATION)).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
          { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
          { type: 'text', text: 'Document b.pdf: https://example.com/b.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"found":true}' },
      { role: 'assistant', content: 'Found it.' },
    ]);
  });

  it('writes Responses input items: input parts, a linked document by file_url, function calls and outputs', () => {
    expect(responsesInput(CONVERSATION)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look at these.' },
          { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBORw0K' },
          { type: 'input_image', detail: 'auto', image_url: 'https://example.com/a.jpg' },
          { type: 'input_file', filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' },
          { type: 'input_file', file_url: 'https://example.com/b.pdf' },
        ],
      },
      { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'c1', output: '{"found":true}' },
      { role: 'assistant', content: 'Found it.' },
    ]);
  });
});

describe('tools', () => {
  const Refund = z.object({ order: z.number().int(), amount: z.number().max(100).default(10) });
  const json = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

  it('offers the host’s tools, then the registration’s the runtime offers on this view, zod ones as JSON Schema', () => {
    const offered = offeredTools(
      [{ name: 'close_issue', parameters: json, source: 'request' }],
      [{ name: 'refund' }, { name: 'unknown' }],
      [
        { name: 'refund', parameters: Refund },
        { name: 'hidden', parameters: json },
      ],
    );
    expect(offered.map((t) => t.name)).toEqual(['close_issue', 'refund']);
    expect(offered[1]?.parameters).toMatchObject({
      type: 'object',
      properties: { order: { type: 'integer' }, amount: { type: 'number', maximum: 100 } },
      required: ['order'],
    });
  });

  it('parses the model’s arguments: not JSON, off the zod schema or off the JSON Schema is an error the model reads', async () => {
    expect(await checkArgs(Refund, '{"order": ')).toEqual({
      ok: false,
      error: 'The arguments are not valid JSON.',
    });
    expect(await checkArgs(Refund, '{"order": 7}')).toEqual({ ok: true, args: { order: 7, amount: 10 } });
    expect(await checkArgs(Refund, '{"order": 7, "amount": 500}')).toMatchObject({
      ok: false,
      error: /amount/,
    });
    expect(await checkArgs(json, '')).toMatchObject({ ok: false });
    expect(await checkValue(json, { n: 2 })).toEqual({ ok: true, args: { n: 2 } });
  });
});

describe('registration', () => {
  it('refuses a definition that cannot work when it is registered, naming the problem', () => {
    const server = createSwitchboard();
    const base = { info: { id: 'm' }, baseURL: 'http://127.0.0.1:1/v1', model: 'x' };
    expect(() => server.registerChatCompletionsAgent({ ...base })).toThrow(
      'Model agent "m": give exactly one of apiKey and apiKeyFromSecret.',
    );
    expect(() => server.registerResponsesAgent({ ...base, apiKey: 'k', baseURL: 'ftp://x' })).toThrow(
      'baseURL must be an http(s) URL',
    );
    expect(() => server.registerChatCompletionsAgent({ ...base, apiKey: 'k', maxTurns: 0 })).toThrow(
      'maxTurns',
    );
    expect(server.registerChatCompletionsAgent({ ...base, apiKey: 'k' }).definition.resolveAction).toBeTypeOf(
      'function',
    );
  });
});

describe('apiKeyFromSecret', () => {
  const NAME = 'support/openai-key';
  const ARN = secretArn(NAME, SANDBOX_REGION);
  let emulator: SecretsManagerEmulator;
  beforeAll(async () => {
    emulator = await startSecretsManager({ name: NAME, arn: ARN, value: '{"apiKey":"sk-from-the-secret"}' });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('is read by the runtime once per execution environment, with the loader of the session-ref key', async () => {
    const rt = createRuntime({
      table: 't',
      queueUrl: 'q',
      bucket: 'b',
      region: SANDBOX_REGION,
      credentials: SANDBOX_CREDENTIALS,
      endpoints: { secrets: emulator.url },
    });
    expect(keyOfSecret(ARN, await rt.secret(ARN))).toBe('sk-from-the-secret');
    await emulator.close();
    // Read once: the emulator is gone, the key is still known.
    expect(keyOfSecret(ARN, await rt.secret(ARN))).toBe('sk-from-the-secret');
    // A read that failed is tried again by the next call, not kept.
    await expect(rt.secret(`${ARN}-other`)).rejects.toThrow();
  });

  it('takes a plain key, or the apiKey field of a JSON secret; an empty one names the secret, never a value', () => {
    expect(keyOfSecret(ARN, 'sk-plain')).toBe('sk-plain');
    expect(keyOfSecret(ARN, '{"apiKey":"sk-json"}')).toBe('sk-json');
    expect(() => keyOfSecret(ARN, '{"other":"sk-hidden"}')).toThrow(`The secret ${ARN} holds no key.`);
  });
});

/** A Chat Completions chunk with a text delta or pieces of tool calls. */
const chatChunk = (delta: Record<string, unknown>) => ({ choices: [{ index: 0, delta }] });
/** A finished Responses function call item. */
const callItem = (item: Record<string, unknown>) => ({
  type: 'response.output_item.done',
  item: { type: 'function_call', name: 'lookup', arguments: '{}', ...item },
});
const completed = { type: 'response.completed', response: { model: 'm', usage: null } };

/** The turn's error: a `model_error` with its message, or what else it was. */
const failure = (turn: ModelTurn) => {
  const error = turn.error as { code?: string; message?: string; constructor?: { name: string } } | undefined;
  return error ? { code: error.code ?? error.constructor?.name, message: error.message } : undefined;
};

describe('what a model endpoint sends, read as untrusted input', () => {
  let endpoint: RawEndpoint;
  beforeAll(async () => {
    endpoint = await startRawEndpoint();
  });
  afterAll(() => endpoint.close());

  it('refuses a Chat Completions tool call whose index is not an integer in range, and pollutes no prototype', async () => {
    for (const index of ['__proto__', 'length', -1, 1.5, '0', null, MODEL_REPLY_LIMITS.calls]) {
      endpoint.answer = {
        body: sse([
          chatChunk({ tool_calls: [{ index, id: 'c1', function: { name: 'x', arguments: '{}' } }] }),
        ]),
      };
      const turn = await modelTurn('chat', endpoint.baseURL);
      expect(failure(turn), String(index)).toEqual({
        code: 'model_error',
        message: `The model endpoint's reply is malformed: choices[0].delta.tool_calls[0].index is not an integer from 0 to ${MODEL_REPLY_LIMITS.calls - 1}.`,
      });
    }
    expect(Object.keys(Array.prototype)).toEqual([]);
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).id).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).id).toBeUndefined();
  });

  it('refuses a Chat Completions call without an id or a name, or with fields of the wrong type', async () => {
    const cases: [unknown[], string][] = [
      [
        [chatChunk({ tool_calls: [{ index: 0, function: { name: 'x' } }] })],
        'the tool call at index 0 has no id',
      ],
      [
        [chatChunk({ tool_calls: [{ index: 0, id: 'c1' }] })],
        'the tool call at index 0 has no function name',
      ],
      [[chatChunk({ content: 42 })], 'choices[0].delta.content is not a string'],
      [[chatChunk({ tool_calls: { 0: {} } })], 'choices[0].delta.tool_calls is not an array'],
      [[{ choices: 'x' }], 'choices is not an array'],
      [['[1]'], 'a chunk is not an object'],
      [[{ choices: [], usage: { prompt_tokens: -1 } }], 'usage.prompt_tokens is not a non-negative integer'],
    ];
    for (const [chunks, what] of cases) {
      endpoint.answer = { body: sse(chunks) };
      expect(failure(await modelTurn('chat', endpoint.baseURL))).toEqual({
        code: 'model_error',
        message: `The model endpoint's reply is malformed: ${what}.`,
      });
    }
  });

  it('puts Chat Completions calls together by index, in the order of their indices', async () => {
    endpoint.answer = {
      body: sse([
        chatChunk({ content: 'Two calls.' }),
        chatChunk({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'second', arguments: '{"a"' } }] }),
        chatChunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'first', arguments: '{}' } }] }),
        chatChunk({ tool_calls: [{ index: 1, function: { arguments: ':1}' } }] }),
      ]),
    };
    const turn = await modelTurn('chat', endpoint.baseURL);
    expect(turn.error).toBeUndefined();
    expect(turn.events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'Two calls.' }]);
    expect(turn.result).toMatchObject({ status: 'incomplete', stopReason: 'max_turns' });
  });

  it('refuses a Responses function call whose call_id is null or missing, never with a TypeError', async () => {
    for (const item of [{ call_id: null }, {}, { call_id: 7 }, { call_id: 'c1', name: null }]) {
      endpoint.answer = { body: sse([callItem(item), completed]) };
      const turn = await modelTurn('responses', endpoint.baseURL);
      expect(turn.error).not.toBeInstanceOf(TypeError);
      expect(failure(turn)?.code, JSON.stringify(item)).toBe('model_error');
      expect(failure(turn)?.message).toMatch(
        /^The model endpoint's reply is malformed: response\.output_item\.done\.item\.(call_id|name) is not a non-empty string\.$/,
      );
    }
  });

  it('passes over Responses events and items of types it does not use', async () => {
    endpoint.answer = {
      body: sse([
        { type: 'response.created', response: { id: 'r' } },
        { type: 'response.output_text.delta', delta: 'Hello.' },
        { type: 'response.output_item.done', item: { type: 'web_search_call', id: 'w' } },
        { type: 'response.output_item.done', item: { type: 'message', content: [] } },
        { type: 'response.something_new', anything: { __proto__: 1 } },
        completed,
      ]),
    };
    const turn = await modelTurn('responses', endpoint.baseURL);
    expect(turn.error).toBeUndefined();
    expect(turn.result).toEqual({});
    expect(turn.events).toEqual([{ type: 'text', text: 'Hello.' }]);
  });

  it('fails the turn on an answer that is not an event stream, naming its content type', async () => {
    for (const api of ['chat', 'responses'] as const) {
      for (const [type, named] of [
        ['text/html; charset=utf-8', 'text/html'],
        ['application/json', 'application/json'],
        ['', 'no known content type'],
      ]) {
        endpoint.answer = { type, body: '<html><body>Welcome to the proxy</body></html>' };
        expect(failure(await modelTurn(api, endpoint.baseURL))).toEqual({
          code: 'model_error',
          message: `The model endpoint's reply is malformed: it is ${named}, not an event stream.`,
        });
      }
    }
  });

  it('bounds a reply’s text, a call’s arguments and the stream, each with its own error', async () => {
    const mib = 1024 * 1024;
    const big = 'x'.repeat(64 * 1024);
    const texts = Array.from({ length: MODEL_REPLY_LIMITS.textBytes / big.length + 1 }, () => big);
    const cases: ['chat' | 'responses', string, string][] = [
      [
        'chat',
        sse(texts.map((t) => chatChunk({ content: t }))),
        `its text passed ${MODEL_REPLY_LIMITS.textBytes / mib} MiB`,
      ],
      [
        'responses',
        sse(texts.map((delta) => ({ type: 'response.output_text.delta', delta }))),
        `its text passed 1 MiB`,
      ],
      [
        'chat',
        sse(
          texts.map((t) =>
            chatChunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'x', arguments: t } }] }),
          ),
        ),
        `the arguments of a tool call passed ${MODEL_REPLY_LIMITS.argumentsBytes / mib} MiB`,
      ],
      [
        'responses',
        sse([callItem({ call_id: 'c', arguments: texts.join('') })]),
        'the arguments of a tool call passed 1 MiB',
      ],
      [
        'chat',
        sse(Array.from({ length: 140 }, () => ({ choices: [], padding: big }))),
        `the stream passed ${MODEL_REPLY_LIMITS.streamBytes / mib} MiB`,
      ],
      [
        'responses',
        sse(Array.from({ length: 140 }, () => ({ type: 'keepalive', padding: big }))),
        'the stream passed 8 MiB',
      ],
    ];
    for (const [api, body, what] of cases) {
      endpoint.answer = { body };
      expect(failure(await modelTurn(api, endpoint.baseURL)), what).toEqual({
        code: 'model_error',
        message: `The model endpoint's reply is too large: ${what}.`,
      });
    }
  });

  it('reads no more of an error status’s body than of a stream', async () => {
    endpoint.answer = {
      status: 400,
      type: 'application/json',
      body: `{"error":{"message":"${'x'.repeat(9 * 1024 * 1024)}"}}`,
    };
    expect(failure(await modelTurn('chat', endpoint.baseURL))).toEqual({
      code: 'model_error',
      message:
        "The model endpoint answered 400: The model endpoint's reply is too large: the stream passed 8 MiB.",
    });
  });

  it('redacts an endpoint’s error: its status, type and code kept, the key and anything like a credential removed', async () => {
    const key = 'sk-proj-abc123def456ghi789jkl012mno345';
    endpoint.answer = {
      status: 401,
      type: 'application/json',
      body: JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${key}. Sent with Authorization: Bearer ${key}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    };
    for (const api of ['chat', 'responses'] as const) {
      const turn = await modelTurn(api, endpoint.baseURL, { apiKey: key });
      expect(failure(turn)).toEqual({
        code: 'model_error',
        message:
          'The model endpoint answered 401 (invalid_request_error, invalid_api_key): Incorrect API key provided: [redacted]. Sent with Authorization: [redacted]',
      });
      expect(JSON.stringify(turn.error)).not.toContain('abc123');
      expect((turn.error as Error).stack).not.toContain('abc123');
      expect((turn.error as Error).cause).toBeUndefined();
    }
    // A Responses stream's own error event, redacted the same way.
    endpoint.answer = {
      body: sse([
        {
          type: 'error',
          code: 'server_error',
          message: `Upstream refused key ${key.slice(0, 12)}…${key.slice(-4)}`,
        },
      ]),
    };
    const turn = await modelTurn('responses', endpoint.baseURL, { apiKey: key });
    expect(failure(turn)?.message).toMatch(
      /^The model endpoint failed \(error, server_error\): Upstream refused key /,
    );
    expect(failure(turn)?.message).not.toContain(key.slice(0, 12));
    expect(failure(turn)?.message).not.toContain(key.slice(-4));
  });

  it('writes nothing of the endpoint’s answers to the console, even with OPENAI_LOG=debug', async () => {
    const key = `sk-debug-${Date.now()}-only-here`;
    endpoint.answer = {
      status: 401,
      type: 'application/json',
      body: JSON.stringify({
        error: { message: `Incorrect API key provided: ${key}`, code: 'invalid_api_key' },
      }),
    };
    const lines: string[] = [];
    const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
    const originals = methods.map((m) => console[m]);
    const level = process.env.OPENAI_LOG;
    process.env.OPENAI_LOG = 'debug';
    for (const m of methods) console[m] = (...args: unknown[]) => void lines.push(JSON.stringify(args));
    try {
      const turn = await modelTurn('chat', endpoint.baseURL, { apiKey: key });
      expect(failure(turn)?.code).toBe('model_error');
    } finally {
      methods.forEach((m, i) => {
        console[m] = originals[i] as (typeof console)[typeof m];
      });
      if (level === undefined) delete process.env.OPENAI_LOG;
      else process.env.OPENAI_LOG = level;
    }
    expect(lines.filter((l) => l.includes('Incorrect API key') || l.includes(key))).toEqual([]);
  });

  it('redacts keys, bearer tokens, Authorization values, the configured key and long tokens from any text', () => {
    const key = 'custom0key0that0is0long0enough';
    expect(redactEndpointText(`bad key ${key} (or ${key.slice(0, 8)}…${key.slice(-6)})`, key)).toBe(
      'bad key [redacted] (or [redacted]…[redacted])',
    );
    expect(redactEndpointText('Incorrect API key provided: sk-abc12***************wxyz.')).toBe(
      'Incorrect API key provided: [redacted].',
    );
    expect(redactEndpointText('header "authorization": "Basic dXNlcjpwYXNz"')).toBe(
      'header "authorization": "[redacted]"',
    );
    expect(redactEndpointText('api_key=abcd1234 and x-api-key: zzz9')).toBe(
      'api_key=[redacted] and x-api-key: [redacted]',
    );
    expect(redactEndpointText('AKIAABCDEFGHIJKLMNOP eyJhbGciOi.eyJzdWIi.sig')).toBe('[redacted] [redacted]');
    expect(redactEndpointText('trace 0123456789abcdef0123456789abcdef01')).toBe('trace [redacted]');
    expect(redactEndpointText('The prompt is not allowed here.')).toBe('The prompt is not allowed here.');
    expect(redactEndpointText('a\nb\u0000c')).toBe('a b c');
    expect(redactEndpointText('Too long. '.repeat(60))).toHaveLength(501);
  });
});

describe('the wires’ readers', () => {
  it('price usage by the configured model, whatever model name the endpoint reports', () => {
    const chat = new ChatReader('gpt-4o');
    chat.read({ model: 'gpt-4o-2024-08-06', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    expect(chat.answer().usage).toMatchObject({ model: 'gpt-4o', inputTokens: 3, outputTokens: 2 });
    const responses = new ResponsesReader('gpt-4o');
    responses.read({
      type: 'response.completed',
      response: { model: 'a-cheaper-name', usage: { input_tokens: 3, output_tokens: 2 } },
    });
    expect(responses.answer().usage).toMatchObject({ model: 'gpt-4o', inputTokens: 3, outputTokens: 2 });
  });

  it('puts a reply’s tool calls together in the order of their indices, whatever order their pieces came in', () => {
    const chat = new ChatReader('m');
    const piece = (index: number, fn: object, id?: string) => ({
      choices: [{ delta: { tool_calls: [{ index, ...(id && { id }), function: fn }] } }],
    });
    chat.read(piece(1, { name: 'second', arguments: '{"a":' }, 'c2'));
    chat.read(piece(0, { name: 'first', arguments: '{}' }, 'c1'));
    chat.read(piece(1, { arguments: '1}' }));
    expect(chat.answer().calls).toEqual([
      { id: 'c1', name: 'first', args: '{}' },
      { id: 'c2', name: 'second', args: '{"a":1}' },
    ]);
  });
});
