import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createRuntime } from '../../lib/boot/index.ts';
import type { HistoryMessage } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { chatMessages } from '../../lib/models/chat-completions.ts';
import { responsesInput } from '../../lib/models/responses.ts';
import { keyOfSecret } from '../../lib/models/secret.ts';
import { checkArgs, checkValue, offeredTools } from '../../lib/models/tools.ts';
import { conversationMessages, historyThrough, type ModelMessage } from '../../lib/models/transcript.ts';
import { secretArn } from '../../sandbox/aws/index.ts';
import { type SecretsManagerEmulator, startSecretsManager } from '../../sandbox/secrets-manager.ts';
import { SANDBOX_CREDENTIALS, SANDBOX_REGION } from '../../sandbox/services.ts';

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
