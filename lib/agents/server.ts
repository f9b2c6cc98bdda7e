import { AgentDefinitionError } from '../errors/index.ts';
import { hostAgentRegistration } from './registration.ts';
import type { HitlOptions, HostAgentDefinition, HostAgentRegistration, RequestContext } from './types.ts';

/** Agents that depend on the request (a tenant's own), looked up per request. */
export type AgentsResolver = (
  context: RequestContext,
) => HostAgentRegistration[] | Promise<HostAgentRegistration[]>;

/** Options of {@link createSwitchboard}. */
export interface SwitchboardOptions {
  /** Per-request agents, asked after the statically registered ones. */
  agents?: AgentsResolver;
  /** Defaults for every agent's `hitl` (an agent's own win). */
  hitl?: HitlOptions;
}

/** The request settings an agent runs with, defaults applied. */
export type ResolvedHitl = Required<Pick<HitlOptions, 'timeoutMinutes' | 'onTimeout'>> &
  Pick<HitlOptions, 'authorizeResolve'>;

/**
 * The server object a team's agents module builds and exports as its default: every Lambda
 * function (and the local sandbox) serves the agents registered on it.
 */
export class Switchboard {
  readonly #agents = new Map<string, HostAgentRegistration>();
  readonly #resolver: AgentsResolver | undefined;
  readonly #hitl: HitlOptions;

  constructor(options: SwitchboardOptions = {}) {
    this.#hitl = options.hitl ?? {};
    if (options.agents !== undefined && typeof options.agents !== 'function') {
      throw new AgentDefinitionError('options.agents must be a function of the request context.');
    }
    this.#resolver = options.agents;
  }

  /**
   * Registers a host-backed agent; throws when the definition cannot work or its id is taken.
   *
   * @example
   * ```ts
   * server.registerHostAgent({ info: { id: 'echo' }, invoke: async ({ message }) => ({ content: message }) });
   * ```
   */
  registerHostAgent(definition: HostAgentDefinition): HostAgentRegistration {
    const registration = hostAgentRegistration(definition);
    if (this.#agents.has(registration.id)) {
      throw new AgentDefinitionError(`An agent with id "${registration.id}" is already registered.`);
    }
    this.#agents.set(registration.id, registration);
    return registration;
  }

  /** The statically registered agents, in registration order. */
  registered(): HostAgentRegistration[] {
    return [...this.#agents.values()];
  }

  /** Finds the agent `id` for a request: registered ones first, then the per-request registry. */
  async resolveAgent(id: string, context: RequestContext): Promise<HostAgentRegistration | undefined> {
    const registered = this.#agents.get(id);
    if (registered || !this.#resolver) return registered;
    const perRequest = await this.#resolver(context);
    return perRequest.find((agent) => agent.id === id);
  }

  /** The hitl settings of an agent: its own, over the server's, over the defaults (60 minutes, deny). */
  hitlFor(agent: HostAgentRegistration): ResolvedHitl {
    const own = agent.definition.hitl ?? {};
    return {
      timeoutMinutes: own.timeoutMinutes ?? this.#hitl.timeoutMinutes ?? 60,
      onTimeout: own.onTimeout ?? this.#hitl.onTimeout ?? 'deny',
      authorizeResolve: own.authorizeResolve ?? this.#hitl.authorizeResolve,
    };
  }

  /** The agent a request without `agent_id` goes to: the only registered one, if there is exactly one. */
  defaultAgentId(): string | undefined {
    return this.#agents.size === 1 && !this.#resolver ? this.registered()[0]?.id : undefined;
  }
}

/**
 * Creates the server object that agents are registered on.
 *
 * @example
 * ```ts
 * const server = createSwitchboard();
 * server.registerHostAgent({ info: { id: 'support' }, invoke: async () => ({ content: 'Hello' }) });
 * export default server;
 * ```
 */
export function createSwitchboard(options: SwitchboardOptions = {}): Switchboard {
  return new Switchboard(options);
}
