import type { HostAgentDefinition, HostAgentInput } from '../../contract/index.ts';
import type { AgentTelemetry } from '../../telemetry/gen-ai.ts';

/**
 * What `registerSDKAgent` hands the AI SDK on each call. `messages` are AI SDK `ModelMessage`s (the
 * conversation, this turn's steps and the answers to what it asked); `tools` are this turn's host
 * actions as AI SDK tools without `execute` (client-side tools: a call ends the turn and the host
 * performs it; with a screenshot in the turn, also `look_at_screen`, which the adapter answers);
 * `abortSignal` aborts with the run.
 */
export interface SDKAgentCall {
  /** `ModelMessage[]` (typed `never[]` so that it fits \`streamText\`'s own type without Switchboard importing it). */
  messages: never[];
  /** A `ToolSet` of the host actions (typed as empty, for the same reason): spread it into your tools. */
  tools: Record<never, never>;
  /** Aborts with the run, and before a step once the turn's budget is spent: pass it to `streamText`. */
  abortSignal: AbortSignal;
  /**
   * Spread it into `streamText`'s options (`experimental_steering` and `onStepEnd`): the steering
   * messages sent while the turn runs (`on_busy: "steer"`) then reach the model at its next step, in
   * the same turn. (Typed loosely for the same reason as `messages`.)
   */
  steering: Record<never, never>;
  /**
   * Pass it to `streamText` (`onStepStart`): before each step after the first it waits for the earlier
   * steps' usage and, once the turn's budget is spent, aborts `abortSignal`, so no further model call
   * is made (docs/models.md).
   */
  onStepStart(event: { stepNumber: number }): Promise<void>;
  /** The turn as `invoke` got it (for a continuation, the one that asked). */
  input: Pick<HostAgentInput, 'conversationId' | 'runId' | 'hostContext' | 'context' | 'metadata'>;
}

/** The part of an AI SDK `streamText` result that is read: its full stream of parts and its response messages. */
export interface SDKStreamResult {
  readonly stream?: AsyncIterable<unknown>;
  readonly fullStream?: AsyncIterable<unknown>;
  readonly responseMessages?: PromiseLike<unknown[]>;
  readonly response?: PromiseLike<{ messages: unknown[] }>;
}

/** An AI SDK agent (`ToolLoopAgent`, or anything implementing the SDK's `Agent` interface). */
export interface SDKAgent {
  readonly tools?: Record<string, unknown>;
  /** Called with the turn's messages, its abort signal, the SDK's steering options (`experimental_steering`, `onStepEnd`) and `onStepStart`. */
  stream(options: {
    messages: never[];
    abortSignal?: AbortSignal;
    onStepStart?: (event: { stepNumber: number }) => Promise<void>;
  }): PromiseLike<SDKStreamResult>;
}

/** The host-agent settings an SDK agent keeps: everything but the functions the adapter provides. */
type SDKAgentSettings = Omit<HostAgentDefinition, 'invoke' | 'resolveAction' | 'tools'> & {
  /** What the agent's spans carry beyond names and counts: content capture, off by default ({@link AgentTelemetry}). */
  telemetry?: AgentTelemetry;
};

/**
 * An agent built with the Vercel AI SDK (`ai`), served as it is: either the agent itself, or a
 * function that calls `streamText` (which can add this turn's host actions to its tools).
 *
 * @example
 * ```ts
 * import { ToolLoopAgent, streamText } from 'ai';
 *
 * server.registerSDKAgent({ info: { id: 'support' }, agent: new ToolLoopAgent({ model, tools }) });
 * server.registerSDKAgent({
 *   info: { id: 'operator' },
 *   stream: ({ messages, tools, abortSignal, steering }) =>
 *     streamText({ model, messages, tools: { ...myTools, ...tools }, abortSignal, ...steering, stopWhen: isStepCount(5) }),
 *   tools: myTools, // so approvals carry each tool's argsSchema
 * });
 * ```
 */
export type SDKAgentDefinition = SDKAgentSettings &
  (
    | {
        /**
         * The agent, or a function that loads it (`() => import('./support-agent.ts').then((m) => m.agent)`):
         * loaded so, the AI SDK stays out of every function's start-up code and is read on the first turn.
         */
        agent: SDKAgent | (() => SDKAgent | PromiseLike<SDKAgent>);
        stream?: never;
      }
    | {
        stream(call: SDKAgentCall): SDKStreamResult | PromiseLike<SDKStreamResult>;
        agent?: never;
        /** The AI SDK tools `stream` passes (optional): an approval of one carries its JSON Schema as `argsSchema`. */
        tools?: Record<string, unknown>;
      }
  );
