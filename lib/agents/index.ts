export { toJsonSchema } from './json-schema.ts';
export { hostAgentRegistration } from './registration.ts';
export {
  type HostEvent,
  HostEventSchema,
  type HostResult,
  HostResultSchema,
  type PendingAction,
  PendingActionSchema,
  type StopReason,
  StopReasonSchema,
  type Usage,
  UsageSchema,
} from './schemas.ts';
export {
  type AgentsResolver,
  createSwitchboard,
  type FeedbackOptions,
  type ResolvedHitl,
  Switchboard,
  type SwitchboardOptions,
} from './server.ts';
export type {
  AgentFileSettings,
  FeedbackEvent,
  HistoryMessage,
  HitlOptions,
  HostAgentCancelInput,
  HostAgentDefinition,
  HostAgentFile,
  HostAgentFiles,
  HostAgentInfo,
  HostAgentInput,
  HostAgentIO,
  HostAgentRegistration,
  HostTool,
  RequestContext,
  ResolveActionInput,
  ToolDefinition,
  TurnTools,
} from './types.ts';
export { EventGate, validateResult, type WarnFn } from './validate.ts';
