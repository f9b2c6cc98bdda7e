export type {
  AgentFileSettings,
  FeedbackEvent,
  HistoryMessage,
  HitlOptions,
  HostAgentCancelInput,
  HostAgentDefinition,
  HostAgentFile,
  HostAgentFiles,
  HostAgentInput,
  HostAgentIO,
  HostAgentRegistration,
  HostTool,
  RequestContext,
  ResolveActionInput,
  ToolDefinition,
  TurnTools,
} from '../contract/index.ts';
export {
  AgentInfoSchema,
  type AgentSummary,
  AgentSummarySchema,
  type ContentPart,
  ContentPartSchema,
  type DocumentPart,
  DocumentPartSchema,
  type HostAgentInfo,
  type HostEvent,
  HostEventSchema,
  type HostResult,
  HostResultSchema,
  type ImagePart,
  ImagePartSchema,
  type PendingAction,
  PendingActionSchema,
  type StopReason,
  StopReasonSchema,
  SuggestionsSchema,
  type TextPart,
  TextPartSchema,
  type Usage,
  UsageSchema,
} from '../contract/index.ts';
export type { CustomAgentDefinition, CustomAgentIO } from './custom.ts';
export { toJsonSchema } from './json-schema.ts';
export { hostAgentRegistration } from './registration.ts';
export type { SDKAgent, SDKAgentCall, SDKAgentDefinition, SDKStreamResult } from './sdk/types.ts';
export {
  type AgentsResolver,
  createSwitchboard,
  type FeedbackOptions,
  type ResolvedHitl,
  Switchboard,
  type SwitchboardOptions,
} from './server.ts';
export { EventGate, validateResult, type WarnFn } from './validate.ts';
