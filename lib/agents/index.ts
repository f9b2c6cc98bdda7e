export type { CustomAgentDefinition, CustomAgentIO } from './custom.ts';
export { toJsonSchema } from './json-schema.ts';
export {
  chatCompletionsAgentRegistration,
  customAgentRegistration,
  responsesAgentRegistration,
  sdkAgentRegistration,
} from './kinds.ts';
export { hostAgentRegistration } from './registration.ts';
export { remembersTools } from './runtime-loop.ts';
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
