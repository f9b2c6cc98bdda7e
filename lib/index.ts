/**
 * Switchboard's public API: build a server, register host-backed agents on it, export it as the
 * default of the module that the Lambda functions (and the local sandbox) serve.
 */
export {
  type AgentFileSettings,
  type ContentPart,
  ContentPartSchema,
  type CustomAgentDefinition,
  type CustomAgentIO,
  createSwitchboard,
  type DocumentPart,
  type FeedbackEvent,
  type FeedbackOptions,
  type HistoryMessage,
  type HitlOptions,
  type HostAgentCancelInput,
  type HostAgentDefinition,
  type HostAgentFile,
  type HostAgentFiles,
  type HostAgentInput,
  type HostAgentIO,
  type HostAgentRegistration,
  type HostEvent,
  type HostResult,
  type HostTool,
  hostAgentRegistration,
  type ImagePart,
  type PendingAction,
  type RequestContext,
  type ResolveActionInput,
  type SDKAgent,
  type SDKAgentCall,
  type SDKAgentDefinition,
  type SDKStreamResult,
  Switchboard,
  type SwitchboardOptions,
  type TextPart,
  type ToolDefinition,
  type TurnTools,
  toJsonSchema,
} from './agents/index.ts';
export type { Budget, ModelPrice, Pricing } from './contract/index.ts';
export { type Attachment, type HostContext, renderHostContext } from './contract/index.ts';
export {
  type DetailOf,
  type DetailType,
  DOMAIN_EVENTS,
  type DomainEvent,
  EVENT_SOURCE,
  parseDetail,
} from './events/index.ts';
export type {
  ModelAgentDefinition,
  ModelTool,
  ModelToolContext,
  ToolSchema,
} from './models/types.ts';
