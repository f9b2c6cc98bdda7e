import type { Settings } from '../config/index.ts';
import type { ToolDefinition, TurnTools } from '../contract/index.ts';
import { HOLD_TOOL, type HostContext } from '../contract/index.ts';

/**
 * The tools of one turn. Configured host tools are offered every turn; request-declared actions
 * for the turns whose context carries them (one whose name is already a configured host tool or one
 * of the agent's backend tools is ignored, with a warning); backend tools named in a page scope only
 * on the views of that scope, the others everywhere. Without any context, every backend tool.
 */
export function toolsForTurn(
  settings: Settings['tools'],
  backendTools: ToolDefinition[],
  context: HostContext | null | undefined,
  warn: (message: string, detail: Record<string, unknown>) => void,
): TurnTools {
  const host: TurnTools['host'] = settings.hostTools.map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    parameters: tool.parameters as Record<string, unknown>,
    source: 'configured' as const,
  }));
  const taken = new Set([...host.map((t) => t.name), ...backendTools.map((t) => t.name)]);
  for (const action of context?.actions ?? []) {
    if (taken.has(action.name)) {
      warn('Ignored a host action whose name is already a registered tool', { action: action.name });
      continue;
    }
    host.push({
      name: action.name,
      ...(action.description !== undefined && { description: action.description }),
      parameters: action.parameters as Record<string, unknown>,
      source: 'request',
    });
  }
  if (!context) return { host, backend: backendTools };
  const scoped = new Set(Object.values(settings.pageScopes).flat());
  const onThisView = new Set(context.view ? (settings.pageScopes[context.view.name] ?? []) : []);
  return {
    host,
    backend: backendTools.filter((tool) => !scoped.has(tool.name) || onThisView.has(tool.name)),
  };
}

/**
 * The tools of a silent host decision (`output_mode: "host_tools"`): the context's actions and the
 * reserved `hold`, nothing else (no configured host tools, no backend tools).
 */
export function decisionTools(context: HostContext | null | undefined): TurnTools {
  const host: TurnTools['host'] = (context?.actions ?? [])
    .filter((action) => action.name !== HOLD_TOOL)
    .map((action) => ({
      name: action.name,
      ...(action.description !== undefined && { description: action.description }),
      parameters: action.parameters as Record<string, unknown>,
      source: 'request' as const,
    }));
  host.push({
    name: HOLD_TOOL,
    description: 'Perform no host action now.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    source: 'reserved',
  });
  return { host, backend: [] };
}
