/**
 * The few OpenTelemetry GenAI semantic-convention names the model and tool spans use, as constants:
 * the conventions' own package keeps them in its large `incubating` entry, which stays out of
 * start-up code. Names of Switchboard's own are `switchboard.*`.
 */

/** `gen_ai.operation.name`: `chat` (a model call) or `execute_tool` (a tool run). */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** `gen_ai.provider.name`: who serves the model (`openai` for an OpenAI-compatible endpoint). */
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/** The prompt as GenAI's JSON messages: only with content capture on. */
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
/** The completion as GenAI's JSON messages: only with content capture on. */
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** A tool call's arguments and result as JSON: only with content capture on. */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const SERVER_ADDRESS = 'server.address';
export const ERROR_TYPE = 'error.type';

/** The operations. */
export const CHAT = 'chat';
export const EXECUTE_TOOL = 'execute_tool';

/** The span event of a model call's first streamed token (the conventions have none). */
export const FIRST_TOKEN_EVENT = 'gen_ai.first_token';
/** The time from a model call's start to its first streamed token, in milliseconds. */
export const TIME_TO_FIRST_TOKEN_MS = 'switchboard.gen_ai.time_to_first_token_ms';
/** How a tool call ended: `succeeded`, `failed`, `paused` (waits on an approval or the page), `host` (the host runs it). */
export const TOOL_OUTCOME = 'switchboard.tool.outcome';
export const AGENT_ID = 'switchboard.agent.id';

/** What a tool call's span says of its outcome. */
export type ToolOutcome = 'succeeded' | 'failed' | 'paused' | 'host';

/**
 * An agent's telemetry settings (`telemetry` on `registerChatCompletionsAgent`,
 * `registerResponsesAgent` and `registerSDKAgent` definitions).
 */
export interface AgentTelemetry {
  /**
   * Put the prompt and the completion of each model call on its span (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`, as JSON strings), and a tool's arguments
   * and result on its span. Off by default: with it on, what people write and what the model answers
   * leaves Switchboard for the trace backend, with that backend's retention and access
   * (docs/models.md).
   */
  captureContent?: boolean;
}
