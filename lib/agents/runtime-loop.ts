import type { HostAgentDefinition, HostAgentRegistration } from '../contract/index.ts';

/**
 * The definitions whose model loop the runtime runs: the Chat Completions and Responses agents and
 * the AI SDK adapter. Only these remember a tool approved with `remember_for_session: true`; a host
 * agent gets the flag in the resolution and decides for itself.
 */
const RUNTIME_LOOPS = new WeakSet<HostAgentDefinition>();

/** Marks a definition as one whose model loop the runtime runs. */
export function runtimeLoop<T extends HostAgentDefinition>(definition: T): T {
  RUNTIME_LOOPS.add(definition);
  return definition;
}

/** Whether the runtime runs this agent's model loop, and so remembers the tools approved for a session. */
export function remembersTools(agent: HostAgentRegistration | undefined): boolean {
  return agent !== undefined && RUNTIME_LOOPS.has(agent.definition);
}
