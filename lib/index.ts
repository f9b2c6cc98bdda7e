/**
 * Switchboard's public API: build a server, register host-backed agents on it, export it as the
 * default of the module that the Lambda functions (and the local sandbox) serve.
 */
export {
  createSwitchboard,
  type HostAgentDefinition,
  type HostAgentInput,
  type HostAgentIO,
  type HostAgentRegistration,
  type HostEvent,
  type HostResult,
  hostAgentRegistration,
  type RequestContext,
  Switchboard,
  type SwitchboardOptions,
} from './agents/index.ts';
