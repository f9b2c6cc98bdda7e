import type { HostAgentDefinition, HostAgentFiles, RequestContext } from '../contract/index.ts';
import type { AgentTelemetry } from '../telemetry/gen-ai.ts';
import type { McpServer } from './mcp/config.ts';

/** A JSON Schema object, or a zod schema (anything with `safeParse`): a tool's parameters or an approval's arguments. */
export type ToolSchema = Record<string, unknown> | { safeParse(value: unknown): unknown };

/** What a backend tool's `execute` is given beside its arguments. */
export interface ModelToolContext {
  /** Aborted when the turn is cancelled. */
  signal: AbortSignal;
  files: HostAgentFiles;
  context: RequestContext;
  conversationId: string;
  /** The model's id for this call. */
  callId: string;
}

/**
 * A tool of a model agent. With `execute`, a backend tool: it runs in the worker and its result goes
 * back to the model. Without, a client tool: the page runs it (a `client_tool` request) and its output
 * goes back to the model. `needsApproval` (or `approval`) makes a person approve each call first.
 */
export interface ModelTool {
  name: string;
  description?: string;
  /** The arguments' schema: JSON Schema, or a zod schema (the model's arguments are parsed with it). */
  parameters?: ToolSchema;
  execute?(args: unknown, context: ModelToolContext): unknown;
  /** Ask a person before each call (`true`), or before the calls this answers true for. */
  needsApproval?: boolean | ((args: unknown) => boolean | Promise<boolean>);
  /** An approval's title and the schema edited arguments are checked against (default: `parameters`). */
  approval?: { argsSchema?: ToolSchema; title?: string | ((args: unknown) => string) };
}

/** Which wire an endpoint speaks. */
export type ModelApi = 'chat' | 'responses';

/**
 * An agent served by an OpenAI-compatible endpoint: the runtime runs the model loop (streamed text,
 * tools, host actions, approvals, usage, cancel).
 */
export interface ModelAgentDefinition
  extends Omit<HostAgentDefinition, 'invoke' | 'resolveAction' | 'tools'> {
  /** The endpoint, e.g. `https://api.openai.com/v1`, an Azure OpenAI deployment, vLLM, Ollama, LiteLLM. */
  baseURL: string;
  /** The endpoint's key. */
  apiKey?: string;
  /** The id or ARN of a Secrets Manager secret holding the key: read once per execution environment. */
  apiKeyFromSecret?: string;
  model: string;
  /** The system prompt (Chat Completions) or instructions (Responses). */
  system?: string;
  tools?: ModelTool[];
  temperature?: number;
  /** The most model calls one turn makes (default 10): past it the turn stops with `max_turns`. */
  maxTurns?: number;
  /** Retries of a 429 or 5xx by the client (default 2): the only retry layer, within the turn's deadline. */
  maxRetries?: number;
  /** Offer the model the `ask_user` tool: a call asks the person (a `user_question`), whose answers go back to the model. */
  questions?: boolean;
  /**
   * MCP servers whose tools the model is offered, each as `<name>__<tool>`, run as backend tools
   * (events, approvals, remembered tools, cancel, traces): their Streamable HTTP endpoints, called
   * by the worker only. A server that is down when its list is read is left out of that turn, with
   * an `agent.warning`. Needs the `@modelcontextprotocol/sdk` package beside the agents.
   */
  mcpServers?: McpServer[];
  /** What the agent's spans carry beyond names and counts: content capture, off by default ({@link AgentTelemetry}). */
  telemetry?: AgentTelemetry;
}

/** A model agent's settings as its loop gets them: the registration and the wire it speaks. */
export type ModelSettings = ModelAgentDefinition & { api: ModelApi };
