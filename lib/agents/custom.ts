import type { HostAgentDefinition, HostAgentFiles, HostAgentInput, HostResult } from '../contract/index.ts';
import { AgentDefinitionError } from '../errors/index.ts';

/** What a custom agent's handler is given beside its input: the turn's stop signal and the conversation's files. */
export interface CustomAgentIO {
  /** Aborted when the turn is cancelled: pass it to whatever the handler awaits. */
  signal: AbortSignal;
  files: HostAgentFiles;
}

/**
 * An agent that answers once: an HTTP call, a function. Its handler returns `{ content, usage? }`
 * (or any host-agent result: `pendingActions`, `stopReason`, `files`…); a streamed request gets the
 * whole content as one text event at the end.
 *
 * @example
 * ```ts
 * server.registerCustomAgent({
 *   info: { id: 'faq' },
 *   handler: async ({ message }, { signal }) => ({ content: await answerFaq(message, { signal }) }),
 * });
 * ```
 */
export interface CustomAgentDefinition
  extends Omit<HostAgentDefinition, 'invoke' | 'resolveAction' | 'tools'> {
  handler(input: HostAgentInput, io: CustomAgentIO): Promise<HostResult | unknown>;
}

/** A custom agent as a host agent: the handler's content is emitted as one text event when it returns. */
export function customAgentDefinition(definition: CustomAgentDefinition): HostAgentDefinition {
  if (definition === null || typeof definition !== 'object')
    throw new AgentDefinitionError('A custom agent definition must be an object.');
  const { handler, ...rest } = definition;
  if (typeof handler !== 'function')
    throw new AgentDefinitionError(`Custom agent "${String(definition.info?.id)}" needs a handler function.`);
  return {
    ...rest,
    async invoke(input, io) {
      const result = await handler(input, { signal: io.signal, files: io.files });
      const content = (result as { content?: unknown } | null)?.content;
      if (typeof content === 'string' && content !== '' && !io.signal.aborted)
        io.emit({ type: 'text', text: content });
      return result;
    },
  };
}
