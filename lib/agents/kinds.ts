import type { HostAgentRegistration } from '../contract/index.ts';
import { AgentDefinitionError } from '../errors/index.ts';
import type { ModelAgentDefinition } from '../models/types.ts';
import { type CustomAgentDefinition, customAgentDefinition } from './custom.ts';
import { modelAgentDefinition } from './model-agent.ts';
import { hostAgentRegistration } from './registration.ts';
import { runtimeLoop } from './runtime-loop.ts';
import type { SDKAgentDefinition } from './sdk/types.ts';

/**
 * The registration of every kind of agent, each checked as its `register…` method checks it and
 * usable wherever {@link hostAgentRegistration}'s is: the per-request registry (`createSwitchboard({
 * agents })`) above all, where a tenant's own model agent, SDK agent or custom agent is built.
 *
 * @example
 * ```ts
 * createSwitchboard({
 *   agents: (context) => [
 *     chatCompletionsAgentRegistration({ info: { id: 'acme-bot' }, baseURL, apiKeyFromSecret, model }),
 *   ],
 * });
 * ```
 */
export function customAgentRegistration(definition: CustomAgentDefinition): HostAgentRegistration {
  return hostAgentRegistration(customAgentDefinition(definition));
}

/** As {@link customAgentRegistration}, for an agent served by a Chat Completions endpoint. */
export function chatCompletionsAgentRegistration(definition: ModelAgentDefinition): HostAgentRegistration {
  return hostAgentRegistration(modelAgentDefinition('chat', definition));
}

/** As {@link customAgentRegistration}, for an agent served by a Responses endpoint (`POST /responses`). */
export function responsesAgentRegistration(definition: ModelAgentDefinition): HostAgentRegistration {
  return hostAgentRegistration(modelAgentDefinition('responses', definition));
}

/**
 * As {@link customAgentRegistration}, for an agent built with the Vercel AI SDK (an `agent` or a
 * `stream` function). The adapter, and so the SDK, is loaded on the agent's first turn.
 */
export function sdkAgentRegistration(definition: SDKAgentDefinition): HostAgentRegistration {
  if (definition === null || typeof definition !== 'object')
    throw new AgentDefinitionError('An SDK agent definition must be an object.');
  const { agent, stream } = definition;
  if (typeof agent !== 'function' && typeof agent?.stream !== 'function' && typeof stream !== 'function')
    throw new AgentDefinitionError(
      `SDK agent "${definition.info?.id}" needs an agent (with stream) or a stream function.`,
    );
  const adapter = () => import('./sdk/ai-sdk-agent.ts');
  return hostAgentRegistration(
    runtimeLoop({
      ...definition,
      tools: undefined,
      invoke: async (input, io) => (await adapter()).invokeSDK(definition, input, io),
      resolveAction: async (input, io) => (await adapter()).resolveSDK(definition, input, io),
      continueTurn: async (input, io) => (await adapter()).continueSDK(definition, input, io),
    }),
  );
}
