/**
 * The scripted model's shared types: a request as the script sees it, the answer planned for it, and
 * what a test can read of the server (the requests it took, the clients that went away).
 */
import type { ModelScript, PromptInput } from './script.ts';

/** How the request lets the model use its tools (`tool_choice`, normalised for both APIs). */
export interface ToolChoice {
  mode: 'none' | 'auto' | 'required';
  /** Only these tools (a named function, or `allowed_tools`). */
  names?: string[];
}

/** A request, read and checked: what the rules and the answer depend on. */
export interface PromptTurn {
  model: string;
  stream: boolean;
  /** Chat Completions' `stream_options.include_usage` (the Responses API always sends usage). */
  includeUsage: boolean;
  /** The last user message or tool result. */
  input?: PromptInput;
  /** How many tool calls the conversation holds already (the next call's id is `call_<that + 1>`). */
  priorCalls: number;
  /** The names of the functions the request offers. */
  tools: string[];
  choice: ToolChoice;
  /** `parallel_tool_calls` (default true). */
  parallel: boolean;
  /** The prompt as one string (tools, instructions, messages in order): its size and shared prefix. */
  prompt: string;
}

/** A tool call as sent. */
export interface PlannedCall {
  id: string;
  name: string;
  /** The arguments' text (JSON, or whatever the script gave). */
  arguments: string;
}

/** The answer to one request. */
export interface PlannedReply {
  deltas: string[];
  calls: PlannedCall[];
  finishReason: 'stop' | 'length' | 'content_filter' | 'tool_calls';
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number };
  pause: boolean;
}

/** One request the server took. */
export interface RecordedRequest {
  /** 1 for the first request the server took, and so on. */
  seq: number;
  method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  path: string;
  /** Its headers, lower-case, without the key (`authorization`, `api-key`). */
  headers: Record<string, string>;
  /** The JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The status it was answered with (once answered). */
  status?: number;
  /** The rule that answered it: its index in `rules`, or `default`. */
  rule?: number | 'default';
  /** The answer waits (`pauseUntilAborted`) for the client to go away or `release()`. */
  paused: boolean;
  /** The client went away before the answer ended (a cancelled turn aborts its HTTP request). */
  disconnected: boolean;
}

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** The rules (checked at start: a mistake throws, naming the field). Default: none, so every prompt gets the default reply. */
  script?: ModelScript;
  /** The key requests must carry (`Authorization: Bearer …` or `api-key`); without it any key, or none, is taken. */
  apiKey?: string;
  /** The model's context window in estimated tokens (4 characters each): a longer prompt is a `context_length_exceeded` 400. */
  contextTokens?: number;
  /** Told of each script mistake (a call of a tool the request does not offer…) as it is answered with a 400. */
  onScriptError?: (message: string) => void;
  /** Default 127.0.0.1 and 0 (a free port). */
  host?: string;
  port?: number;
}

/** A running scripted model. */
export interface ScriptedModel {
  /** What a client takes as its base URL: `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  /** Every request, in order. */
  readonly requests: RecordedRequest[];
  /** The requests whose client went away before the answer ended. */
  readonly disconnects: RecordedRequest[];
  /** The script mistakes found, in order (each was answered with a 400 saying it). */
  readonly scriptErrors: string[];
  /** Replaces the script (and forgets how often each rule answered). */
  setScript(script: ModelScript): void;
  /** Lets every paused answer go on to its end. */
  release(): void;
  /** Stops the server (open streams are ended). */
  close(): Promise<void>;
}
