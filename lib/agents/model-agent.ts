import type { HostAgentDefinition, ToolDefinition } from '../contract/index.ts';
import { AgentDefinitionError } from '../errors/index.ts';
import { mcpServersProblem } from '../models/mcp/config.ts';
import type { ModelAgentDefinition, ModelApi, ToolSchema } from '../models/types.ts';
import { runtimeLoop } from './runtime-loop.ts';

const isZod = (schema: ToolSchema | undefined) =>
  typeof (schema as { safeParse?: unknown })?.safeParse === 'function';

/**
 * A model agent as a host agent. Only the checks that need nothing are made here (this module is
 * part of every function): the model loop and the `openai` client load with the first turn, in the
 * worker (`import()`).
 */
export function modelAgentDefinition(api: ModelApi, definition: ModelAgentDefinition): HostAgentDefinition {
  if (definition === null || typeof definition !== 'object')
    throw new AgentDefinitionError('A model agent definition must be an object.');
  const {
    baseURL,
    apiKey,
    apiKeyFromSecret,
    model,
    system,
    tools,
    temperature,
    maxTurns,
    maxRetries,
    questions,
    telemetry,
    mcpServers,
    ...rest
  } = definition;
  const id = String(definition.info?.id);
  const fail = (problem: string) => {
    throw new AgentDefinitionError(`Model agent "${id}": ${problem}.`);
  };
  if (typeof baseURL !== 'string' || !/^https?:\/\//.test(baseURL)) fail('baseURL must be an http(s) URL');
  if (typeof model !== 'string' || model === '') fail('model must be a non-empty string');
  if ((apiKey === undefined) === (apiKeyFromSecret === undefined))
    fail('give exactly one of apiKey and apiKeyFromSecret');
  if (system !== undefined && typeof system !== 'string') fail('system must be a string');
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0))
    fail('temperature must be a number of 0 or more');
  if (maxTurns !== undefined && !(Number.isSafeInteger(maxTurns) && maxTurns > 0))
    fail('maxTurns must be a positive whole number');
  if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && maxRetries >= 0))
    fail('maxRetries must be a whole number of 0 or more');
  if (questions !== undefined && typeof questions !== 'boolean') fail('questions must be true or false');
  if (tools !== undefined && !Array.isArray(tools)) fail('tools must be an array');
  if (
    telemetry !== undefined &&
    (telemetry === null ||
      typeof telemetry !== 'object' ||
      (telemetry.captureContent !== undefined && typeof telemetry.captureContent !== 'boolean'))
  )
    fail('telemetry must be an object whose captureContent is true or false');
  for (const tool of tools ?? []) {
    if (tool?.execute !== undefined && typeof tool.execute !== 'function')
      fail(`tool "${tool.name}": execute must be a function`);
  }
  const mcpProblem =
    mcpServers === undefined
      ? undefined
      : mcpServersProblem(
          mcpServers,
          (tools ?? []).map((t) => t?.name),
        );
  if (mcpProblem) fail(mcpProblem);
  // What the runtime offers and checks: a zod schema's JSON Schema is made with the first turn.
  const declared: ToolDefinition[] = (tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    ...(tool.parameters !== undefined &&
      !isZod(tool.parameters) && { parameters: tool.parameters as Record<string, unknown> }),
  }));
  const settings = { ...definition, api };
  const loop = () => import('../models/loop.ts');
  return runtimeLoop({
    ...rest,
    tools: declared,
    invoke: async (input, io) => (await loop()).invokeModel(settings, input, io),
    resolveAction: async (input, io) => (await loop()).resumeModel(settings, input, io),
    continueTurn: async (input, io) => (await loop()).continueModel(settings, input, io),
  });
}
