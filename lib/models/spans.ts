/**
 * The spans of a model loop, on the OpenTelemetry GenAI conventions (docs/operations.md, Traces): a
 * `chat {model}` client span per model call, an `execute_tool {name}` span per tool call. Names,
 * counts and ids only; the prompt, the completion and a tool's arguments and result only with the
 * agent's `telemetry.captureContent` on. Without tracing nothing is made (and nothing serialized).
 */
import type { Span } from '@opentelemetry/api';
import type { Usage } from '../contract/index.ts';
import * as G from '../telemetry/gen-ai.ts';
import { openSpan, type SpanAttributes, SpanKind, tracedHere } from '../telemetry/tracing.ts';

/** The host of an endpoint's URL (`server.address`): never its path, query or credentials. */
export function serverAddress(baseURL: string | undefined): string | undefined {
  try {
    return baseURL ? new URL(baseURL).hostname : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `gen_ai.provider.name` of an OpenAI-compatible endpoint: `azure.ai.openai` for an Azure OpenAI host,
 * else `openai`, the wire it speaks (a vLLM, Ollama or LiteLLM endpoint is not told apart: it
 * speaks OpenAI's API, and the host is in `server.address`).
 */
export function providerOf(baseURL: string | undefined): string {
  const host = serverAddress(baseURL) ?? '';
  return /\.openai\.azure\.com$|\.services\.ai\.azure\.com$/.test(host) ? 'azure.ai.openai' : 'openai';
}

/** JSON of content captured on a span (never thrown on: a value that does not serialize is a note). */
export function contentJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"[not serializable]"';
  }
}

/** The error's kind as `error.type`: its name (`ModelEndpointError`), never its message. */
export const errorType = (error: unknown): string =>
  error instanceof Error && /^[A-Za-z0-9_.]{1,64}$/.test(error.name) ? error.name : '_OTHER';

/** Marks a span failed: `error.type`, and a status message only when it is known to be safe (redacted). */
export function failSpan(span: Span | undefined, type: string, safeMessage?: string): void {
  if (!span) return;
  span.setAttribute(G.ERROR_TYPE, type);
  // SpanStatusCode.ERROR: the API's value, without importing the API where tracing is off.
  span.setStatus({ code: 2, ...(safeMessage !== undefined && { message: safeMessage }) });
}

/** What starts a model call's span. */
export interface ChatStart {
  provider?: string;
  model?: string;
  serverAddress?: string;
  /** Content capture on: the prompt (`input`, `system`) goes on the span. */
  capture: boolean;
  /** The prompt's messages, made only when captured. */
  input?: () => unknown;
  system?: string;
}

/** A model call's span as the loop fills it in. */
export class ChatSpan {
  private readonly started = performance.now();
  private firstSeen = false;

  constructor(
    readonly span: Span | undefined,
    private readonly capture: boolean,
  ) {}

  /** The first token streamed: a span event and the time to it. */
  firstToken(): void {
    if (this.firstSeen || !this.span) return;
    this.firstSeen = true;
    const ms = Math.round(performance.now() - this.started);
    this.span.addEvent(G.FIRST_TOKEN_EVENT, { [G.TIME_TO_FIRST_TOKEN_MS]: ms });
    this.span.setAttribute(G.TIME_TO_FIRST_TOKEN_MS, ms);
  }

  /** What the call answered: the model, the token counts, the finish reasons (and the completion, captured). */
  answered(answer: {
    responseModel?: string;
    usage?: Usage;
    finishReasons?: string[];
    output?: () => unknown;
  }): void {
    const span = this.span;
    if (!span) return;
    const attributes: SpanAttributes = {
      [G.GEN_AI_RESPONSE_MODEL]: answer.responseModel,
      [G.GEN_AI_USAGE_INPUT_TOKENS]: answer.usage?.inputTokens,
      [G.GEN_AI_USAGE_OUTPUT_TOKENS]: answer.usage?.outputTokens,
      [G.GEN_AI_RESPONSE_FINISH_REASONS]: answer.finishReasons?.length ? answer.finishReasons : undefined,
      ...(this.capture && answer.output && { [G.GEN_AI_OUTPUT_MESSAGES]: contentJson(answer.output()) }),
    };
    for (const [key, value] of Object.entries(attributes))
      if (value !== undefined) span.setAttribute(key, value);
    if (answer.responseModel) span.updateName(`${G.CHAT} ${answer.responseModel}`);
  }

  /** Failed: `error.type` (the error's kind, or `cancelled`) and a message already redacted, if any. */
  failed(type: string, safeMessage?: string): void {
    failSpan(this.span, type, safeMessage);
  }
}

const chatAttributes = (start: ChatStart): SpanAttributes => ({
  [G.GEN_AI_OPERATION_NAME]: G.CHAT,
  [G.GEN_AI_PROVIDER_NAME]: start.provider,
  [G.GEN_AI_REQUEST_MODEL]: start.model,
  [G.SERVER_ADDRESS]: start.serverAddress,
});

/** The prompt on a span, with content capture on: serialized only when there is a span to carry it. */
function captureInput(span: Span | undefined, start: ChatStart): void {
  if (!span || !start.capture) return;
  if (start.input) span.setAttribute(G.GEN_AI_INPUT_MESSAGES, contentJson(start.input()));
  if (start.system !== undefined)
    span.setAttribute(G.GEN_AI_SYSTEM_INSTRUCTIONS, contentJson([{ type: 'text', content: start.system }]));
}

const chatName = (model: string | undefined) => (model ? `${G.CHAT} ${model}` : G.CHAT);

/** Runs one model call in its `chat {model}` client span. */
export function chatSpan<T>(start: ChatStart, fn: (call: ChatSpan) => Promise<T>): Promise<T> {
  return tracedHere(
    chatName(start.model),
    chatAttributes(start),
    (span) => {
      captureInput(span, start);
      return fn(new ChatSpan(span, start.capture));
    },
    {
      kind: SpanKind.CLIENT,
    },
  );
}

/** Opens a model call's span for a step of a stream (the AI SDK's), ended by its holder. */
export async function openChatSpan(start: ChatStart): Promise<ChatSpan> {
  const span = await openSpan(chatName(start.model), chatAttributes(start), { kind: SpanKind.CLIENT });
  captureInput(span, start);
  return new ChatSpan(span, start.capture);
}

/** What a tool call's span starts with. */
export interface ToolStart {
  name: string;
  callId: string;
  capture: boolean;
  args?: unknown;
}

const toolAttributes = (start: ToolStart): SpanAttributes => ({
  [G.GEN_AI_OPERATION_NAME]: G.EXECUTE_TOOL,
  [G.GEN_AI_TOOL_NAME]: start.name,
  [G.GEN_AI_TOOL_CALL_ID]: start.callId,
});

/** A tool call's arguments on its span, with content capture on: serialized only when there is a span. */
function captureArgs(span: Span | undefined, start: ToolStart): Span | undefined {
  if (span && start.capture && start.args !== undefined)
    span.setAttribute(G.GEN_AI_TOOL_CALL_ARGUMENTS, contentJson(start.args));
  return span;
}

/** A tool call's span as its runner fills it in. */
export class ToolSpan {
  constructor(
    readonly span: Span | undefined,
    private readonly capture: boolean,
  ) {}

  /** How it ended: failed marks the span an error (`error.type`, no message: a tool's error may hold content). */
  outcome(outcome: G.ToolOutcome, detail: { result?: unknown; error?: unknown } = {}): void {
    const span = this.span;
    if (!span) return;
    span.setAttribute(G.TOOL_OUTCOME, outcome);
    if (this.capture && detail.result !== undefined)
      span.setAttribute(G.GEN_AI_TOOL_CALL_RESULT, contentJson(detail.result));
    if (outcome === 'failed')
      failSpan(span, detail.error === undefined ? 'tool_error' : errorType(detail.error));
  }
}

/** Runs one tool call in its `execute_tool {name}` span. */
export function toolSpan<T>(start: ToolStart, fn: (tool: ToolSpan) => Promise<T>): Promise<T> {
  return tracedHere(`${G.EXECUTE_TOOL} ${start.name}`, toolAttributes(start), (span) =>
    fn(new ToolSpan(captureArgs(span, start), start.capture)),
  );
}

/** Opens a tool call's span, ended by its holder (a call the AI SDK runs, seen as parts of its stream). */
export async function openToolSpan(start: ToolStart): Promise<ToolSpan> {
  return new ToolSpan(
    captureArgs(await openSpan(`${G.EXECUTE_TOOL} ${start.name}`, toolAttributes(start)), start),
    start.capture,
  );
}
