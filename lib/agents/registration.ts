import type { HostAgentDefinition, HostAgentRegistration } from '../contract/index.ts';
import {
  AgentInfoSchema,
  type AgentSummary,
  objectSchemaProblem,
  ToolNameSchema,
  whenJsonSchemasReady,
} from '../contract/index.ts';
import { AgentDefinitionError, issuesOf } from '../errors/index.ts';
import { checkUsageOptions } from '../usage/options.ts';

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * Validates a host-agent definition and wraps it for serving. A definition that cannot work
 * (no `info.id`, no `invoke`, a hook that is not a function) throws here, not at the first message.
 * A tool's JSON Schema is checked here too where the JSON Schema checker is loaded; in a function,
 * whose bundle loads it on start-up, it is checked then, before the first event is served (see
 * `jsonSchemasReady`).
 *
 * @example
 * ```ts
 * const support = hostAgentRegistration({ info: { id: 'support' }, invoke: async () => ({ content: 'hi' }) });
 * ```
 */
export function hostAgentRegistration(definition: HostAgentDefinition): HostAgentRegistration {
  if (definition === null || typeof definition !== 'object') {
    throw new AgentDefinitionError('A host agent definition must be an object.');
  }
  const id = definition.info?.id;
  if (typeof id !== 'string' || id.length === 0) {
    throw new AgentDefinitionError('A host agent definition needs info.id.');
  }
  if (!AGENT_ID.test(id)) {
    throw new AgentDefinitionError(
      `info.id "${id}" must be 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter or digit.`,
    );
  }
  if (typeof definition.invoke !== 'function') {
    throw new AgentDefinitionError(`Host agent "${id}" needs an invoke function.`);
  }
  for (const hook of ['resolveAction', 'continueTurn', 'cancel', 'feedback'] as const) {
    const value = definition[hook];
    if (value !== undefined && typeof value !== 'function') {
      throw new AgentDefinitionError(`Host agent "${id}": ${hook} must be a function when given.`);
    }
  }
  const summary = agentSummary(id, definition.info);
  checkTools(id, definition.tools);
  checkHitl(id, definition);
  checkFiles(id, definition.files);
  checkUsageOptions(`Host agent "${id}": `, definition);
  return Object.freeze({ kind: 'host' as const, id, definition, summary });
}

/** The rest of `info`, checked by its schema: what hosts may read of the agent. */
function agentSummary(id: string, info: HostAgentDefinition['info']): AgentSummary {
  const parsed = AgentInfoSchema.safeParse(info);
  if (!parsed.success) {
    const [issue] = issuesOf(parsed.error);
    throw new AgentDefinitionError(
      `Host agent "${id}": info.${issue?.path.join('.')}: ${issue?.message ?? 'not valid'}.`,
    );
  }
  const { name, description, suggestions } = parsed.data;
  return Object.freeze({
    id,
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
    ...(suggestions !== undefined && { suggestions: Object.freeze(suggestions) as string[] }),
  });
}

function checkTools(id: string, tools: HostAgentDefinition['tools']): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) throw new AgentDefinitionError(`Host agent "${id}": tools must be an array.`);
  const names = new Set<string>();
  for (const tool of tools) {
    if (!ToolNameSchema.safeParse(tool?.name).success) {
      throw new AgentDefinitionError(
        `Host agent "${id}": tool name ${JSON.stringify(tool?.name)} must be 1-64 letters, digits, "_" or "-".`,
      );
    }
    if (names.has(tool.name))
      throw new AgentDefinitionError(`Host agent "${id}": tool "${tool.name}" is declared twice.`);
    names.add(tool.name);
    const { name, parameters } = tool;
    if (parameters === undefined) continue;
    // At once where the checker is loaded (the sandbox, the tests); in a function, when it starts up.
    whenJsonSchemasReady(() => {
      const problem = objectSchemaProblem(parameters);
      if (problem)
        throw new AgentDefinitionError(`Host agent "${id}": parameters of tool "${name}" ${problem}.`);
    });
  }
}

function checkHitl(id: string, definition: HostAgentDefinition): void {
  const hitl = definition.hitl;
  if (hitl !== undefined) {
    if (
      hitl.timeoutMinutes !== undefined &&
      !(Number.isFinite(hitl.timeoutMinutes) && hitl.timeoutMinutes > 0)
    ) {
      throw new AgentDefinitionError(`Host agent "${id}": hitl.timeoutMinutes must be a positive number.`);
    }
    if (hitl.onTimeout !== undefined && hitl.onTimeout !== 'deny' && hitl.onTimeout !== 'cancel') {
      throw new AgentDefinitionError(`Host agent "${id}": hitl.onTimeout must be "deny" or "cancel".`);
    }
    if (hitl.authorizeResolve !== undefined && typeof hitl.authorizeResolve !== 'function') {
      throw new AgentDefinitionError(`Host agent "${id}": hitl.authorizeResolve must be a function.`);
    }
  }
  const policy = definition.pendingActionPolicy;
  if (policy !== undefined && policy !== 'keep' && policy !== 'cancel') {
    throw new AgentDefinitionError(`Host agent "${id}": pendingActionPolicy must be "keep" or "cancel".`);
  }
}

/** A media range as an agent's accepted media types name them: `type/subtype`, `type/*`, or any type. */
const MEDIA_RANGE = /^(\*\/\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126}))$/;

function checkFiles(id: string, files: HostAgentDefinition['files']): void {
  if (files === undefined) return;
  if (files === null || typeof files !== 'object')
    throw new AgentDefinitionError(`Host agent "${id}": files must be an object.`);
  const { maxBytes, mediaTypes, ...rest } = files;
  const unknown = Object.keys(rest)[0];
  if (unknown) throw new AgentDefinitionError(`Host agent "${id}": files.${unknown} is not a file setting.`);
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0))
    throw new AgentDefinitionError(`Host agent "${id}": files.maxBytes must be a positive whole number.`);
  if (mediaTypes === undefined) return;
  if (!Array.isArray(mediaTypes) || mediaTypes.length === 0)
    throw new AgentDefinitionError(`Host agent "${id}": files.mediaTypes must be a non-empty array.`);
  for (const range of mediaTypes) {
    if (typeof range !== 'string' || !MEDIA_RANGE.test(range.toLowerCase()))
      throw new AgentDefinitionError(
        `Host agent "${id}": files.mediaTypes entry ${JSON.stringify(range)} must be "type/subtype", "type/*" or "*/*".`,
      );
  }
}
