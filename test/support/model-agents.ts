import * as z from 'zod';
import type { ModelAgentDefinition, ModelTool } from '../../lib/index.ts';
import type { ModelScript } from '../../sandbox/index.ts';

/** The key the scripted model requires: no log, event or answer may ever show it. */
export const MODEL_KEY = 'sk-scripted-0123456789-never-logged';

/** The host context of the host-action tests: a view and one action, `close_issue`. */
export const ISSUES_CONTEXT = {
  host: { name: 'Issues page', kind: 'browser' },
  view: { name: 'issues', data: { filter: 'open' } },
  actions: [
    {
      name: 'close_issue',
      description: 'Close an issue on the page',
      parameters: {
        type: 'object',
        properties: { number: { type: 'integer' } },
        required: ['number'],
        additionalProperties: false,
      },
    },
  ],
  captured_at: '2026-12-01T10:00:00.000Z',
};

/** What the scripted model answers, by the last user message or tool result. */
export const MODEL_SCRIPT: ModelScript = {
  rules: [
    {
      match: 'hello',
      on: 'user',
      reply: { text: ['Hello', ' there', '!'], usage: { promptTokens: 1000, completionTokens: 500 } },
    },
    {
      match: 'weather',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_weather', name: 'weather', arguments: { city: 'Paris' } }] },
    },
    {
      tool: 'weather',
      match: 'Rome',
      reply: { toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] },
    },
    { tool: 'weather', reply: { text: 'It is sunny in Paris.' } },
    {
      match: 'close issue',
      on: 'user',
      reply: {
        text: 'Closing it. ',
        toolCalls: [{ id: 'call_close', name: 'close_issue', arguments: { number: 2 } }],
      },
    },
    { tool: 'close_issue', match: '"error"', reply: { text: 'Your page could not close it.' } },
    { tool: 'close_issue', reply: { text: 'Done: issue 2 is closed.' } },
    {
      match: 'refund',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_refund', name: 'refund', arguments: { order: 1042, amount: 25 } }] },
    },
    { tool: 'refund', match: 'denied', reply: { text: 'All right: no refund.' } },
    { tool: 'refund', reply: { text: 'The refund is done.' } },
    {
      match: 'choose a plan',
      on: 'user',
      reply: {
        toolCalls: [
          {
            id: 'call_ask',
            name: 'ask_user',
            arguments: { question: 'Which plan?', options: ['Starter', 'Team'] },
          },
        ],
      },
    },
    { tool: 'ask_user', match: 'Team', reply: { text: 'Team it is.' } },
    {
      match: 'decide',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_decide', name: 'close_issue', arguments: { number: 3 } }] },
    },
    {
      match: 'long story',
      on: 'user',
      reply: { text: ['Once', ' upon', ' a time'], pauseUntilAborted: true },
    },
    {
      match: 'busy',
      on: 'user',
      times: 1,
      error: { status: 429, message: 'Rate limit reached.', retryAfter: 0 },
    },
    { match: 'busy', on: 'user', reply: { text: 'Sorry for the wait.' } },
    {
      match: 'explode',
      on: 'user',
      error: { status: 400, message: 'The prompt is not allowed here.', code: 'bad_prompt' },
    },
    {
      // A reply past the loop's bound on text (1 MiB), in deltas of 64 KiB.
      match: 'endless',
      on: 'user',
      reply: { text: Array.from({ length: 20 }, () => 'All work and no play. '.repeat(3000)) },
    },
    {
      // As OpenAI answers a wrong key: echoed in part, here also in full, as a proxy might.
      match: 'leak',
      on: 'user',
      error: {
        status: 401,
        message: `Incorrect API key provided: ${MODEL_KEY.slice(0, 8)}***${MODEL_KEY.slice(-4)} (sent as ${MODEL_KEY}).`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    },
    {
      match: 'expensive',
      on: 'user',
      reply: { text: 'That was costly.', usage: { promptTokens: 1_000_000, completionTokens: 0 } },
    },
    { match: 'loop', on: 'user', reply: { toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] } },
  ],
};

/** The refunds the `refund` tool made, in order. */
export const refunds: unknown[] = [];

/** The model agent's tools: a backend tool (zod parameters) and one that needs approval (JSON Schema arguments). */
export function modelTools(): ModelTool[] {
  return [
    {
      name: 'weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: (args) => ({ city: (args as { city: string }).city, sky: 'sunny' }),
    },
    {
      name: 'refund',
      description: 'Refund an order',
      parameters: {
        type: 'object',
        properties: { order: { type: 'integer' }, amount: { type: 'number', minimum: 0, maximum: 100 } },
        required: ['order', 'amount'],
        additionalProperties: false,
      },
      approval: { title: 'Refund this order?' },
      execute: (args) => {
        refunds.push(args);
        return { refunded: (args as { amount: number }).amount };
      },
    },
  ];
}

/** A model agent's definition on the scripted model at `baseURL`. */
export function modelAgent(
  id: string,
  baseURL: string,
  extra: Partial<ModelAgentDefinition> = {},
): ModelAgentDefinition {
  return {
    info: { id },
    baseURL,
    apiKey: MODEL_KEY,
    model: 'scripted-small',
    system: 'You help people with their issues.',
    tools: modelTools(),
    maxRetries: 2,
    pricing: { 'scripted-small': { input: 1, output: 2 } },
    questions: true,
    ...extra,
  };
}
