/**
 * `POST /v1/chat/completions`: the request read and checked as the real endpoint checks it, and the
 * answer in its wire format (a `chat.completion`, or `chat.completion.chunk` server-sent events ending
 * with `[DONE]`).
 */
import { invalidRequest } from './errors.ts';
import {
  checkParts,
  flag,
  isFileUrl,
  isObject,
  type Json,
  modelOf,
  textOf,
  toolChoiceOf,
  toolNames,
} from './request.ts';
import { argumentPieces, nextInput, type PromptInput, promptInput } from './script.ts';
import type { PlannedReply, PromptTurn } from './types.ts';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];
const USER_PARTS = ['text', 'image_url', 'input_audio', 'file'];

/** A user message's part: an image is a URL or a data URL; a file has its data (a data URL) or an id. */
function checkUserPart(part: Json, at: string): void {
  if (
    part.type === 'image_url' &&
    !(isObject(part.image_url) && isFileUrl(part.image_url.url, { http: true }))
  )
    throw invalidRequest(
      `Invalid '${at}.image_url.url': expected an http(s) URL or a base64 data URL.`,
      `${at}.image_url.url`,
      'invalid_image_url',
    );
  if (part.type === 'file') {
    const file = isObject(part.file) ? part.file : {};
    if (file.file_id === undefined && !isFileUrl(file.file_data, { http: false }))
      throw invalidRequest(
        `Invalid '${at}.file': expected 'file_id', or 'file_data' as a base64 data URL.`,
        `${at}.file`,
      );
  }
  if (part.type === 'text' && typeof part.text !== 'string')
    throw invalidRequest(`Missing required parameter: '${at}.text'.`, `${at}.text`);
}

/** Reads a Chat Completions request; a request the real endpoint refuses throws its 400. */
export function readChatRequest(body: Json): PromptTurn {
  const model = modelOf(body);
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    throw invalidRequest(
      "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      'messages',
    );
  // Tool calls still to be answered, by id → name; every call's name, for the tool results' names.
  let open = new Map<string, string>();
  const called = new Map<string, string>();
  let input: PromptInput | undefined;
  // Whether the message before this one is a tool result.
  let afterTool = false;
  messages.forEach((message, i) => {
    const previousWasTool = afterTool;
    afterTool = isObject(message) && message.role === 'tool';
    const at = `messages[${i}]`;
    if (!isObject(message) || !ROLES.includes(String(message.role)))
      throw invalidRequest(
        `Invalid value for '${at}.role': ${JSON.stringify(isObject(message) ? message.role : message)}. Supported values are: ${ROLES.map((r) => `'${r}'`).join(', ')}.`,
        `${at}.role`,
      );
    if (message.role === 'tool') {
      const id = message.tool_call_id;
      if (typeof id !== 'string' || !open.has(id))
        throw invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${at}.role`,
        );
      open.delete(id);
      input = promptInput('tool', textOf(message.content, ['text']), called.get(id));
      return;
    }
    if (open.size > 0)
      throw invalidRequest(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.keys()].join(', ')}`,
        `${at}.role`,
      );
    if (message.role === 'user') {
      checkParts(message.content, USER_PARTS, `${at}.content`, checkUserPart);
      const user = promptInput('user', textOf(message.content, ['text']));
      input = previousWasTool ? nextInput(input, user) : user;
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      open = new Map();
      message.tool_calls.forEach((call, j) => {
        const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
        if (!isObject(call) || typeof call.id !== 'string' || typeof fn?.name !== 'string')
          throw invalidRequest(
            `Missing required parameter: '${at}.tool_calls[${j}].function.name'.`,
            `${at}.tool_calls[${j}]`,
          );
        open.set(call.id, fn.name);
        called.set(call.id, fn.name);
      });
    }
  });
  if (open.size > 0)
    throw invalidRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.keys()].join(', ')}`,
      'messages',
    );
  const stream = flag(body, 'stream', false);
  if (body.stream_options !== undefined && body.stream_options !== null && !stream)
    throw invalidRequest(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  const tools = toolNames(body, (tool) => (isObject(tool.function) ? tool.function.name : undefined));
  return {
    model,
    stream,
    includeUsage: isObject(body.stream_options) && body.stream_options.include_usage === true,
    ...(input && { input }),
    priorCalls: called.size,
    tools,
    choice: toolChoiceOf(body, tools),
    parallel: flag(body, 'parallel_tool_calls', true),
    prompt: JSON.stringify([body.tools ?? [], messages]),
  };
}

/** Chat Completions' usage object. */
function usageOf(reply: PlannedReply) {
  const { promptTokens, completionTokens, cachedTokens } = reply.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** What identifies one answer. */
export interface AnswerIds {
  /** The answer's id, unique on this server (`scripted_N`): each API prefixes it as its own ids are. */
  id: string;
  /** Seconds since the epoch. */
  created: number;
  model: string;
}

/** The answer, not streamed: a `chat.completion`. */
export function chatCompletion(reply: PlannedReply, ids: AnswerIds) {
  const content = reply.deltas.join('');
  return {
    id: `chatcmpl-${ids.id}`,
    object: 'chat.completion',
    created: ids.created,
    model: ids.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content === '' && reply.calls.length > 0 ? null : content,
          refusal: null,
          annotations: [],
          ...(reply.calls.length > 0 && {
            tool_calls: reply.calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: usageOf(reply),
    service_tier: 'default',
    system_fingerprint: null,
  };
}

/**
 * The answer, streamed: its server-sent events before the pause (the role and the text deltas) and
 * after it (the tool calls, the finish reason, the usage chunk when asked for, `[DONE]`).
 */
export function chatCompletionEvents(reply: PlannedReply, ids: AnswerIds, includeUsage: boolean) {
  const chunk = (delta: Json, finish: string | null = null) => ({
    id: `chatcmpl-${ids.id}`,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    service_tier: 'default',
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage && { usage: null }),
  });
  const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const before = [
    frame(chunk({ role: 'assistant', content: '', refusal: null })),
    ...reply.deltas.map((delta) => frame(chunk({ content: delta }))),
  ];
  const after: string[] = [];
  reply.calls.forEach((call, index) => {
    after.push(
      frame(
        chunk({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      ),
    );
    for (const piece of argumentPieces(call.arguments))
      after.push(frame(chunk({ tool_calls: [{ index, function: { arguments: piece } }] })));
  });
  after.push(frame(chunk({}, reply.finishReason)));
  if (includeUsage) after.push(frame({ ...chunk({}), choices: [], usage: usageOf(reply) }));
  after.push('data: [DONE]\n\n');
  return { before, after };
}
