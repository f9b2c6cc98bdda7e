import type { Usage } from '../contract/index.ts';
import { Budget, count, field, MODEL_REPLY_LIMITS, malformed, objectOf, optionalString } from './parse.ts';
import { identifier, modelName } from './redact.ts';
import type { ModelCall } from './transcript.ts';
import type { WireAnswer } from './wire.ts';

/**
 * A Chat Completions stream read as untrusted input, chunk by chunk: the one place what the endpoint
 * sends is looked at. Each chunk's shape is checked (a field of the wrong type, a tool call's `index`
 * that is not an integer from 0 to {@link MODEL_REPLY_LIMITS}.calls − 1, a call without an id or a
 * name → `model_error` naming the field); calls are put together in a `Map` by index; text and
 * arguments are bounded. Fields the loop does not use are not read.
 */
export class ChatReader {
  private text = '';
  private readonly calls = new Map<number, ModelCall>();
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  private responseModel: string | undefined;
  private readonly textBudget = new Budget(MODEL_REPLY_LIMITS.textBytes, 'its text');
  private readonly argBudgets = new Map<number, Budget>();

  constructor(private readonly model: string) {}

  /** Reads one chunk; returns its text delta, if any. */
  read(raw: unknown): string | undefined {
    const chunk = objectOf(raw);
    if (!chunk) throw malformed('a chunk is not an object');
    const choices = field(chunk, 'choices');
    if (choices !== undefined && choices !== null && !Array.isArray(choices))
      throw malformed('choices is not an array');
    const choice = Array.isArray(choices) ? choices[0] : undefined;
    if (choice !== undefined && !objectOf(choice)) throw malformed('choices[0] is not an object');
    const rawDelta = field(objectOf(choice), 'delta');
    if (rawDelta !== undefined && rawDelta !== null && !objectOf(rawDelta))
      throw malformed('choices[0].delta is not an object');
    const delta = objectOf(rawDelta);
    const content = optionalString(delta, 'content', 'choices[0].delta');
    const pieces = field(delta, 'tool_calls');
    if (pieces !== undefined && pieces !== null && !Array.isArray(pieces))
      throw malformed('choices[0].delta.tool_calls is not an array');
    for (const [i, piece] of (Array.isArray(pieces) ? pieces : []).entries())
      this.piece(piece, `choices[0].delta.tool_calls[${i}]`);
    // Read for the model call's span only: kept when they are plain names.
    this.responseModel = modelName(field(chunk, 'model')) ?? this.responseModel;
    this.finishReason = identifier(field(objectOf(choice), 'finish_reason')) ?? this.finishReason;
    const usage = field(chunk, 'usage');
    if (usage !== undefined && usage !== null) this.readUsage(usage);
    if (content) {
      this.textBudget.add(content);
      this.text += content;
      return content;
    }
    return undefined;
  }

  /** One piece of a tool call: its index, then its id, name and a piece of its arguments. */
  private piece(raw: unknown, where: string): void {
    const piece = objectOf(raw);
    if (!piece) throw malformed(`${where} is not an object`);
    const index = field(piece, 'index');
    if (
      !Number.isSafeInteger(index) ||
      (index as number) < 0 ||
      (index as number) >= MODEL_REPLY_LIMITS.calls
    )
      throw malformed(`${where}.index is not an integer from 0 to ${MODEL_REPLY_LIMITS.calls - 1}`);
    const at = index as number;
    const fn = field(piece, 'function');
    if (fn !== undefined && fn !== null && !objectOf(fn))
      throw malformed(`${where}.function is not an object`);
    const id = optionalString(piece, 'id', where);
    const name = optionalString(objectOf(fn), 'name', `${where}.function`);
    const args = optionalString(objectOf(fn), 'arguments', `${where}.function`);
    let call = this.calls.get(at);
    if (!call) {
      call = { id: '', name: '', args: '' };
      this.calls.set(at, call);
      this.argBudgets.set(at, new Budget(MODEL_REPLY_LIMITS.argumentsBytes, `the arguments of a tool call`));
    }
    if (id) call.id = id;
    if (name) call.name += name;
    if (call.id.length > MODEL_REPLY_LIMITS.idLength) throw tooLong(`${where}.id`);
    if (call.name.length > MODEL_REPLY_LIMITS.idLength) throw tooLong(`${where}.function.name`);
    if (args) {
      this.argBudgets.get(at)?.add(args);
      call.args += args;
    }
  }

  private readUsage(raw: unknown): void {
    const usage = objectOf(raw);
    if (!usage) throw malformed('usage is not an object');
    const details = field(usage, 'prompt_tokens_details');
    if (details !== undefined && details !== null && !objectOf(details))
      throw malformed('usage.prompt_tokens_details is not an object');
    const cached = field(objectOf(details), 'cached_tokens');
    this.usage = {
      inputTokens: count(usage, 'prompt_tokens', 'usage'),
      outputTokens: count(usage, 'completion_tokens', 'usage'),
      totalTokens: count(usage, 'total_tokens', 'usage'),
      ...(cached !== undefined &&
        cached !== null && {
          cachedInputTokens: count(objectOf(details), 'cached_tokens', 'usage.prompt_tokens_details'),
        }),
      // Priced by the configured model: the name an endpoint reports is its to choose.
      model: this.model,
    };
  }

  /** The whole answer: its text, its calls in the order of their indices (each with an id and a name), its usage. */
  answer(): WireAnswer {
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, call] of calls) {
      if (call.id === '') throw malformed(`the tool call at index ${index} has no id`);
      if (call.name === '') throw malformed(`the tool call at index ${index} has no function name`);
    }
    return {
      text: this.text,
      calls: calls.map(([, call]) => call),
      ...(this.usage && { usage: this.usage }),
      ...(this.finishReason && { finishReason: this.finishReason }),
      ...(this.responseModel && { responseModel: this.responseModel }),
    };
  }
}

const tooLong = (what: string) =>
  malformed(`${what} is longer than ${MODEL_REPLY_LIMITS.idLength} characters`);
