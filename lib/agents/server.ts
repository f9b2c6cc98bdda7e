import { defaultResolveContext } from '../auth/resolve.ts';
import type { ResolveContext } from '../auth/types.ts';
import type {
  Budget,
  FeedbackEvent,
  HitlOptions,
  HostAgentDefinition,
  HostAgentRegistration,
  Pricing,
  RequestContext,
} from '../contract/index.ts';
import { AgentDefinitionError } from '../errors/index.ts';
import type { ModelAgentDefinition } from '../models/types.ts';
import { checkUsageOptions } from '../usage/options.ts';
import { type CustomAgentDefinition, customAgentDefinition } from './custom.ts';
import { modelAgentDefinition } from './model-agent.ts';
import { hostAgentRegistration } from './registration.ts';
import type { SDKAgentDefinition } from './sdk/types.ts';

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
  /**
   * Turns the authoriser's verified claims (a JWT's claims as API Gateway hands them on, every value a
   * string; or a Lambda authoriser's context) into `{ user, data }`: the user, and the app's own data
   * (the tenant among it), which reach the agent as `input.context` and the registry's `agents(ctx)`.
   * Nothing the host sends reaches it. A null user, or a throw, refuses the caller (401).
   * Default: the user is `sub` (else `user`, else `principalId`), the tenant `tenant` or `custom:tenant`.
   */
  resolveContext?: ResolveContext;
  /**
   * Prices per model (US dollars per million tokens: `{ input, output, cachedInput? }`) for every
   * agent; an agent's own `pricing` wins for the models it names. A usage with `model` and no
   * `costUsd` is priced by it.
   */
  pricing?: Pricing;
  /** The default budget of every session (`{ sessionUsd }`); an agent's own `budget` wins. Default: none. */
  budget?: Budget;
  /**
   * When true, the message of every 500 a caller sees (an HTTP 500, and `invalid_host_result` or
   * `agent_error` in `session.error` and on the run) is a generic one; the detail is only logged.
   * Default false.
   */
  maskServerErrors?: boolean;
  /** What happens when a person rates an answer, server-wide (after the agent's own `feedback`). */
  feedback?: FeedbackOptions;
}

/** The server-wide feedback settings. */
export interface FeedbackOptions {
  /**
   * Called with every rating, after it is stored and after the agent's `feedback` hook: an
   * analytics table, an evaluation set. A throw fails the request; the rating stays.
   */
  onFeedback?(event: FeedbackEvent): void | Promise<void>;
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
  /** The server's `resolveContext` hook (or the default one). */
  readonly resolveContext: ResolveContext;
  readonly #pricing: Pricing;
  readonly #budget: Budget | undefined;
  /** Whether a 500's message is generic for callers (`maskServerErrors`). */
  readonly maskServerErrors: boolean;
  /** The server-wide `feedback.onFeedback`, when given. */
  readonly onFeedback: FeedbackOptions['onFeedback'];

  constructor(options: SwitchboardOptions = {}) {
    this.#hitl = options.hitl ?? {};
    if (options.agents !== undefined && typeof options.agents !== 'function') {
      throw new AgentDefinitionError('options.agents must be a function of the request context.');
    }
    this.#resolver = options.agents;
    if (options.resolveContext !== undefined && typeof options.resolveContext !== 'function') {
      throw new AgentDefinitionError('options.resolveContext must be a function of the verified claims.');
    }
    this.resolveContext = options.resolveContext ?? defaultResolveContext;
    checkUsageOptions('options.', options);
    this.#pricing = options.pricing ?? {};
    this.#budget = options.budget;
    if (options.maskServerErrors !== undefined && typeof options.maskServerErrors !== 'boolean') {
      throw new AgentDefinitionError('options.maskServerErrors must be true or false.');
    }
    this.maskServerErrors = options.maskServerErrors ?? false;
    const onFeedback = options.feedback?.onFeedback;
    if (onFeedback !== undefined && typeof onFeedback !== 'function') {
      throw new AgentDefinitionError('options.feedback.onFeedback must be a function when given.');
    }
    this.onFeedback = onFeedback;
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

  /**
   * Registers an agent built with the Vercel AI SDK (`ai`), served as it is: an `agent`
   * (`ToolLoopAgent`) or a `stream` function that calls `streamText`. Its stream becomes events, its
   * tool approvals and calls of tools without `execute` become requests, its usage the turn's
   * (docs/models.md). The adapter, and so the SDK, is loaded on the agent's first turn.
   *
   * @example
   * ```ts
   * server.registerSDKAgent({ info: { id: 'support' }, agent: new ToolLoopAgent({ model, tools }) });
   * ```
   */
  registerSDKAgent(definition: SDKAgentDefinition): HostAgentRegistration {
    const { agent, stream } = definition;
    if (typeof agent !== 'function' && typeof agent?.stream !== 'function' && typeof stream !== 'function')
      throw new AgentDefinitionError(
        `SDK agent "${definition.info?.id}" needs an agent (with stream) or a stream function.`,
      );
    const adapter = () => import('./sdk/ai-sdk-agent.ts');
    return this.registerHostAgent({
      ...definition,
      tools: undefined,
      invoke: async (input, io) => (await adapter()).invokeSDK(definition, input, io),
      resolveAction: async (input, io) => (await adapter()).resolveSDK(definition, input, io),
      continueTurn: async (input, io) => (await adapter()).continueSDK(definition, input, io),
    });
  }

  /**
   * Registers an agent that answers once: `handler(input, { signal, files })` returns `{ content,
   * usage? }` (or any host-agent result); a streamed request gets the content as one text event at
   * the end. Cancel aborts the signal.
   *
   * @example
   * ```ts
   * server.registerCustomAgent({ info: { id: 'faq' }, handler: async ({ message }) => ({ content: `Q: ${message}` }) });
   * ```
   */
  registerCustomAgent(definition: CustomAgentDefinition): HostAgentRegistration {
    return this.registerHostAgent(customAgentDefinition(definition));
  }

  /**
   * Registers an agent served by an OpenAI-compatible Chat Completions endpoint: the runtime runs
   * the model loop (streamed text, backend tools, host actions, approvals, usage, cancel).
   *
   * @example
   * ```ts
   * server.registerChatCompletionsAgent({
   *   info: { id: 'support' },
   *   baseURL: 'https://api.openai.com/v1',
   *   apiKeyFromSecret: 'support/openai-key',
   *   model: 'gpt-4.1-mini',
   *   system: 'You help the customers of Acme.',
   * });
   * ```
   */
  registerChatCompletionsAgent(definition: ModelAgentDefinition): HostAgentRegistration {
    return this.registerHostAgent(modelAgentDefinition('chat', definition));
  }

  /** As {@link registerChatCompletionsAgent}, for an endpoint of the Responses API (`POST /responses`). */
  registerResponsesAgent(definition: ModelAgentDefinition): HostAgentRegistration {
    return this.registerHostAgent(modelAgentDefinition('responses', definition));
  }

  /** The statically registered agents, in registration order. */
  registered(): HostAgentRegistration[] {
    return [...this.#agents.values()];
  }

  /**
   * Every agent a caller may talk to: the registered ones, in registration order, then those the
   * per-request registry gives for `context` (an id registered statically is that agent).
   */
  async agentsFor(context: RequestContext): Promise<HostAgentRegistration[]> {
    const perRequest = this.#resolver ? await this.#resolver(context) : [];
    return [...this.#agents.values(), ...perRequest.filter((agent) => !this.#agents.has(agent.id))];
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

  /** The prices an agent's usage is priced with: its own over the server's. */
  pricingFor(agent: HostAgentRegistration): Pricing {
    return { ...this.#pricing, ...agent.definition.pricing };
  }

  /** The budget of each of an agent's sessions in US dollars: its own, else the server's; undefined for none. */
  budgetFor(agent: HostAgentRegistration | undefined): number | undefined {
    const budget = agent?.definition.budget ?? this.#budget;
    return budget ? budget.sessionUsd : undefined;
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
