import type { Usage } from '../contract/index.ts';
import {
  Budget,
  count,
  field,
  MODEL_REPLY_LIMITS,
  malformed,
  objectOf,
  optionalString,
  ReportedError,
} from './parse.ts';
import { identifier, modelName } from './redact.ts';
import type { ModelCall } from './transcript.ts';
import type { WireAnswer } from './wire.ts';

/**
 * A Responses API stream read as untrusted input, event by event: the one place what the endpoint
 * sends is looked at. Read: `response.output_text.delta` (text), `response.output_item.done` of a
 * `function_call` item (a call: `call_id` and `name` non-empty strings, `arguments` a string), the
 * usage of `response.completed` / `response.incomplete`, and the errors of `response.failed` and
 * `error`. Every other event type, and a finished item of any other type (`message`, whose text came
 * as deltas; `reasoning`; a provider's own tool), is passed over. A field of the wrong type →
 * `model_error` naming it; text, arguments and the number of calls are bounded.
 */
export class ResponsesReader {
  private text = '';
  private readonly calls: ModelCall[] = [];
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  private responseModel: string | undefined;
  private readonly textBudget = new Budget(MODEL_REPLY_LIMITS.textBytes, 'its text');

  constructor(private readonly model: string) {}

  /** Reads one event; returns its text delta, if any. Throws the endpoint's own error as a {@link ReportedError}. */
  read(raw: unknown): string | undefined {
    const event = objectOf(raw);
    if (!event) throw malformed('an event is not an object');
    const type = field(event, 'type');
    if (typeof type !== 'string') throw malformed('an event has no type');
    if (type === 'response.output_text.delta') {
      const delta = optionalString(event, 'delta', type);
      if (!delta) return undefined;
      this.textBudget.add(delta);
      this.text += delta;
      return delta;
    }
    if (type === 'response.output_item.done') {
      const item = objectOf(field(event, 'item'));
      if (!item) throw malformed(`${type}.item is not an object`);
      if (field(item, 'type') === 'function_call') this.call(item, `${type}.item`);
      return undefined;
    }
    if (type === 'response.completed' || type === 'response.incomplete') {
      const response = objectOf(field(event, 'response'));
      if (!response) throw malformed(`${type}.response is not an object`);
      const usage = field(response, 'usage');
      if (usage !== undefined && usage !== null) this.readUsage(usage, type);
      // Read for the model call's span only: kept when they are plain names.
      this.responseModel = modelName(field(response, 'model'));
      this.finishReason =
        type === 'response.incomplete'
          ? (identifier(field(objectOf(field(response, 'incomplete_details')), 'reason')) ?? 'incomplete')
          : this.calls.length > 0
            ? 'tool_calls'
            : 'stop';
      return undefined;
    }
    if (type === 'response.failed') {
      const error = objectOf(field(objectOf(field(event, 'response')), 'error'));
      throw reported(error, 'The response failed.');
    }
    if (type === 'error') throw reported(event, 'The endpoint reported an error.');
    return undefined;
  }

  private call(item: Record<string, unknown>, where: string): void {
    const id = field(item, 'call_id');
    const name = field(item, 'name');
    const args = field(item, 'arguments');
    if (typeof id !== 'string' || id === '') throw malformed(`${where}.call_id is not a non-empty string`);
    if (typeof name !== 'string' || name === '') throw malformed(`${where}.name is not a non-empty string`);
    if (args !== undefined && args !== null && typeof args !== 'string')
      throw malformed(`${where}.arguments is not a string`);
    if (id.length > MODEL_REPLY_LIMITS.idLength || name.length > MODEL_REPLY_LIMITS.idLength)
      throw malformed(`${where}.call_id or name is longer than ${MODEL_REPLY_LIMITS.idLength} characters`);
    if (this.calls.length >= MODEL_REPLY_LIMITS.calls)
      throw malformed(`it holds more than ${MODEL_REPLY_LIMITS.calls} tool calls`);
    const text = typeof args === 'string' ? args : '';
    new Budget(MODEL_REPLY_LIMITS.argumentsBytes, 'the arguments of a tool call').add(text);
    this.calls.push({ id, name, args: text });
  }

  private readUsage(raw: unknown, type: string): void {
    const usage = objectOf(raw);
    if (!usage) throw malformed(`${type}.response.usage is not an object`);
    const where = `${type}.response.usage`;
    const details = field(usage, 'input_tokens_details');
    if (details !== undefined && details !== null && !objectOf(details))
      throw malformed(`${where}.input_tokens_details is not an object`);
    this.usage = {
      inputTokens: count(usage, 'input_tokens', where),
      outputTokens: count(usage, 'output_tokens', where),
      totalTokens: count(usage, 'total_tokens', where),
      cachedInputTokens: count(objectOf(details), 'cached_tokens', `${where}.input_tokens_details`),
      // Priced by the configured model: the name an endpoint reports is its to choose.
      model: this.model,
    };
  }

  /** The whole answer: its text, its calls in the order they finished, its usage. */
  answer(): WireAnswer {
    return {
      text: this.text,
      calls: this.calls,
      ...(this.usage && { usage: this.usage }),
      ...(this.finishReason && { finishReason: this.finishReason }),
      ...(this.responseModel && { responseModel: this.responseModel }),
    };
  }
}

/** The endpoint's own error, its words kept for the loop to redact. */
function reported(error: Record<string, unknown> | undefined, otherwise: string): ReportedError {
  const message = field(error, 'message');
  const type = field(error, 'type');
  const code = field(error, 'code');
  return new ReportedError(
    typeof message === 'string' && message !== '' ? message : otherwise,
    typeof type === 'string' ? type : undefined,
    typeof code === 'string' ? code : undefined,
  );
}
