/**
 * Switchboard's public API: build a server, register host-backed agents on it, export it as the
 * default of the module that the Lambda functions (and the local sandbox) serve.
 */
export {
  type CustomAgentDefinition,
  type CustomAgentIO,
  chatCompletionsAgentRegistration,
  createSwitchboard,
  customAgentRegistration,
  type FeedbackOptions,
  hostAgentRegistration,
  responsesAgentRegistration,
  type SDKAgent,
  type SDKAgentCall,
  type SDKAgentDefinition,
  type SDKStreamResult,
  Switchboard,
  type SwitchboardOptions,
  sdkAgentRegistration,
  toJsonSchema,
} from './agents/index.ts';
export type { Budget, ModelPrice, Pricing } from './contract/index.ts';
export {
  type AgentFileSettings,
  type AnsweredRequest,
  type Attachment,
  type BudgetLeft,
  type ContentPart,
  ContentPartSchema,
  type ContinueTurnInput,
  type DocumentPart,
  type FeedbackEvent,
  type HistoryMessage,
  type HitlOptions,
  type HostAgentCancelInput,
  type HostAgentDefinition,
  type HostAgentFile,
  type HostAgentFiles,
  type HostAgentInput,
  type HostAgentIO,
  type HostAgentRegistration,
  type HostContext,
  type HostEvent,
  type HostResult,
  type HostTool,
  type ImagePart,
  type PendingAction,
  type RequestContext,
  type ResolveActionInput,
  renderHostContext,
  type TextPart,
  type ToolDefinition,
  type TurnTools,
} from './contract/index.ts';
export {
  type DetailOf,
  type DetailType,
  DOMAIN_EVENTS,
  type DomainEvent,
  EVENT_SOURCE,
  parseDetail,
} from './events/index.ts';
export type { McpServer } from './models/mcp/config.ts';
export type {
  ModelAgentDefinition,
  ModelTool,
  ModelToolContext,
  ToolSchema,
} from './models/types.ts';
