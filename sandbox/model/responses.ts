/**
 * `POST /v1/responses`: the request read and checked as the real endpoint checks it (the input items,
 * each function call answered by its output), and the answer in its wire format (a `response`, or
 * the Responses API's server-sent events, from `response.created` to `response.completed`).
 */
import type { AnswerIds } from './chat-completions.ts';
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

const ROLES = ['user', 'system', 'developer', 'assistant'];
const INPUT_PARTS = ['input_text', 'input_image', 'input_file'];
const OUTPUT_PARTS = ['output_text', 'refusal'];
/** Items the sandbox model takes besides messages and function calls (and ignores). */
const IGNORED_ITEMS = ['reasoning'];

function checkInputPart(part: Json, at: string): void {
  if (part.type === 'input_text' && typeof part.text !== 'string')
    throw invalidRequest(`Missing required parameter: '${at}.text'.`, `${at}.text`);
  if (part.type === 'input_image' && part.file_id === undefined && !isFileUrl(part.image_url, { http: true }))
    throw invalidRequest(
      `Invalid '${at}.image_url': expected an http(s) URL or a base64 data URL (or a 'file_id').`,
      `${at}.image_url`,
      'invalid_image_url',
    );
  if (
    part.type === 'input_file' &&
    part.file_id === undefined &&
    !isFileUrl(part.file_url, { http: true }) &&
    !isFileUrl(part.file_data, { http: false })
  )
    throw invalidRequest(
      `Invalid '${at}': expected 'file_id', 'file_url', or 'file_data' as a base64 data URL.`,
      at,
    );
}

/** The input items: a string is one user message. */
function itemsOf(body: Json): Json[] {
  const input = body.input;
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0)
    throw invalidRequest("Missing required parameter: 'input'.", 'input');
  return input.map((item, i) => {
    if (!isObject(item))
      throw invalidRequest(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`);
    return item;
  });
}

/** Reads a Responses request; a request the real endpoint refuses throws its 400. */
export function readResponsesRequest(body: Json): PromptTurn {
  const model = modelOf(body);
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    throw invalidRequest(
      "The sandbox's scripted model stores no responses: send the whole conversation in 'input' instead of 'previous_response_id'.",
      'previous_response_id',
    );
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string')
    throw invalidRequest("Invalid type for 'instructions': expected a string.", 'instructions');
  const items = itemsOf(body);
  const calls = new Map<string, string>();
  const answered = new Set<string>();
  let input: PromptInput | undefined;
  // Whether the item before this one is a function's output.
  let afterOutput = false;
  items.forEach((item, i) => {
    const at = `input[${i}]`;
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    const previousWasOutput = afterOutput;
    afterOutput = type === 'function_call_output';
    if (type === 'message') {
      if (!ROLES.includes(String(item.role)))
        throw invalidRequest(
          `Invalid value for '${at}.role': ${JSON.stringify(item.role)}. Supported values are: ${ROLES.map((r) => `'${r}'`).join(', ')}.`,
          `${at}.role`,
        );
      if (item.role === 'assistant') checkParts(item.content, OUTPUT_PARTS, `${at}.content`);
      else checkParts(item.content, INPUT_PARTS, `${at}.content`, checkInputPart);
      if (item.role === 'user') {
        const user = promptInput('user', textOf(item.content, ['input_text']));
        input = previousWasOutput ? nextInput(input, user) : user;
      }
    } else if (type === 'function_call') {
      if (
        typeof item.call_id !== 'string' ||
        typeof item.name !== 'string' ||
        typeof item.arguments !== 'string'
      )
        throw invalidRequest(
          `Missing required parameter: '${at}' needs 'call_id', 'name' and 'arguments' (a string).`,
          at,
        );
      calls.set(item.call_id, item.name);
    } else if (type === 'function_call_output') {
      const id = item.call_id;
      if (typeof id !== 'string' || !calls.has(id))
        throw invalidRequest(
          `No tool call found for function call output with call_id ${String(id)}.`,
          `${at}.call_id`,
        );
      answered.add(id);
      input = promptInput('tool', textOf(item.output, ['input_text']), calls.get(id));
    } else if (!IGNORED_ITEMS.includes(String(type))) {
      throw invalidRequest(
        `Invalid value for '${at}.type': ${JSON.stringify(type)}. The sandbox's scripted model takes 'message', 'function_call', 'function_call_output' and 'reasoning' items.`,
        `${at}.type`,
      );
    }
  });
  const unanswered = [...calls.keys()].find((id) => !answered.has(id));
  if (unanswered) throw invalidRequest(`No tool output found for function call ${unanswered}.`, 'input');
  const tools = toolNames(body, (tool) => tool.name);
  return {
    model,
    stream: flag(body, 'stream', false),
    includeUsage: true,
    ...(input && { input }),
    priorCalls: calls.size,
    tools,
    choice: toolChoiceOf(body, tools),
    parallel: flag(body, 'parallel_tool_calls', true),
    prompt: JSON.stringify([body.tools ?? [], body.instructions ?? null, items]),
  };
}

/** The answer's output items, complete. */
function outputOf(reply: PlannedReply, ids: AnswerIds): Json[] {
  const items: Json[] = [];
  if (reply.deltas.length > 0) items.push(messageItem(ids, reply.deltas.join(''), 'completed'));
  for (const [i, call] of reply.calls.entries())
    items.push(callItem(ids, i, call, call.arguments, 'completed'));
  return items;
}

function messageItem(ids: AnswerIds, text: string | undefined, status: string): Json {
  return {
    id: `msg_${ids.id}`,
    type: 'message',
    status,
    role: 'assistant',
    content: text === undefined ? [] : [textPart(text)],
  };
}

function textPart(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function callItem(
  ids: AnswerIds,
  index: number,
  call: PlannedReply['calls'][number],
  args: string,
  status: string,
) {
  return {
    id: `fc_${ids.id}_${index + 1}`,
    type: 'function_call',
    status,
    call_id: call.id,
    name: call.name,
    arguments: args,
  };
}

/** The `response` object: in progress (no output, no usage yet) or complete. */
export function responseObject(body: Json, reply: PlannedReply, ids: AnswerIds, done: boolean): Json {
  const { promptTokens, completionTokens, cachedTokens } = reply.usage;
  const incomplete = reply.finishReason === 'length' || reply.finishReason === 'content_filter';
  return {
    id: `resp_${ids.id}`,
    object: 'response',
    created_at: ids.created,
    status: !done ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details:
      done && incomplete
        ? { reason: reply.finishReason === 'length' ? 'max_output_tokens' : 'content_filter' }
        : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: ids.model,
    output: done ? outputOf(reply, ids) : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? false,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: done
      ? {
          input_tokens: promptTokens,
          input_tokens_details: { cached_tokens: cachedTokens },
          output_tokens: completionTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: promptTokens + completionTokens,
        }
      : null,
    user: null,
    metadata: body.metadata ?? {},
  };
}

/**
 * The answer, streamed: its server-sent events before the pause (up to the text deltas) and after it
 * (the text's end, the function calls, `response.completed` or `response.incomplete`).
 */
export function responseEvents(body: Json, reply: PlannedReply, ids: AnswerIds) {
  let sequence = 0;
  const event = (type: string, fields: Json) => {
    const data = { type, sequence_number: sequence++, ...fields };
    return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  };
  const before = [
    event('response.created', { response: responseObject(body, reply, ids, false) }),
    event('response.in_progress', { response: responseObject(body, reply, ids, false) }),
  ];
  const after: string[] = [];
  let outputIndex = 0;
  if (reply.deltas.length > 0) {
    const item = { item_id: `msg_${ids.id}`, output_index: 0 };
    const text = reply.deltas.join('');
    before.push(
      event('response.output_item.added', {
        output_index: 0,
        item: messageItem(ids, undefined, 'in_progress'),
      }),
      event('response.content_part.added', { ...item, content_index: 0, part: textPart('') }),
      ...reply.deltas.map((delta) =>
        event('response.output_text.delta', { ...item, content_index: 0, delta, logprobs: [] }),
      ),
    );
    after.push(
      event('response.output_text.done', { ...item, content_index: 0, text, logprobs: [] }),
      event('response.content_part.done', { ...item, content_index: 0, part: textPart(text) }),
      event('response.output_item.done', { output_index: 0, item: messageItem(ids, text, 'completed') }),
    );
    outputIndex = 1;
  }
  reply.calls.forEach((call, i) => {
    const output_index = outputIndex + i;
    const item_id = `fc_${ids.id}_${i + 1}`;
    after.push(
      event('response.output_item.added', { output_index, item: callItem(ids, i, call, '', 'in_progress') }),
    );
    for (const delta of argumentPieces(call.arguments))
      after.push(event('response.function_call_arguments.delta', { item_id, output_index, delta }));
    after.push(
      event('response.function_call_arguments.done', {
        item_id,
        output_index,
        name: call.name,
        arguments: call.arguments,
      }),
      event('response.output_item.done', {
        output_index,
        item: callItem(ids, i, call, call.arguments, 'completed'),
      }),
    );
  });
  const final = responseObject(body, reply, ids, true);
  after.push(
    event(final.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final }),
  );
  return { before, after };
}
