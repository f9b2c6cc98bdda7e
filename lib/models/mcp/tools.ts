import type { HostAgentIO } from '../../contract/index.ts';
import type { ModelTool } from '../types.ts';
import { callServerTool, McpUnavailable, serverTools } from './client.ts';
import { type McpServer, modelToolName } from './config.ts';
import type { ToolAnswer } from './untrusted.ts';

/** A server's tool as the loop offers and runs it: a backend tool whose `execute` answers a {@link ToolAnswer}. */
export interface McpTool extends ModelTool {
  mcp: { server: string; tool: string };
  execute(args: unknown, context: { signal: AbortSignal }): Promise<ToolAnswer>;
}

/** Whether a tool of the loop is a server's. */
export const isMcpTool = (tool: ModelTool | undefined): tool is McpTool =>
  tool !== undefined && Object.hasOwn(tool, 'mcp');

/** The warnings an agent's servers give a turn, as the loop emits them. */
export type McpWarning = Extract<Parameters<HostAgentIO['emit']>[0], { type: 'warning' }>;

/** The longest list of left-out tools a warning names, in characters. */
const MAX_WARNING = 1000;

/**
 * The tools of an agent's MCP servers for one turn, each as `<server>__<tool>`, with the warnings
 * the turn emits: a server whose list could not be read (its tools are not offered; the turn goes on
 * with the rest), and tools left out (a name that cannot fit the tool-name rule or is taken twice,
 * one of the agent's own tools' or a host action's of this turn, a tool the runtime refused).
 */
export async function turnMcpTools(
  servers: McpServer[],
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
  taken: { own: ReadonlySet<string>; host: ReadonlySet<string> },
  now = Date.now(),
): Promise<{ tools: McpTool[]; warnings: McpWarning[] }> {
  const lists = await Promise.allSettled(servers.map((server) => serverTools(server, io, now)));
  const tools: McpTool[] = [];
  const warnings: McpWarning[] = [];
  const names = new Set<string>();
  for (const [index, server] of servers.entries()) {
    const list = lists[index] as PromiseSettledResult<Awaited<ReturnType<typeof serverTools>>>;
    if (list.status === 'rejected') {
      warnings.push(unavailable(server, list.reason));
      continue;
    }
    const allowed = (name: string) => server.tools === undefined || server.tools.includes(name);
    const leftOut = list.value.leftOut
      .filter(({ name }) => allowed(name))
      .map(({ name, reason }) => `${name} (${reason})`);
    for (const listed of list.value.tools) {
      if (!allowed(listed.name)) continue;
      const name = modelToolName(server.name, listed.name);
      const problem = !name
        ? 'its name does not fit in 64 characters'
        : names.has(name)
          ? `another of the server's tools is also named ${name}`
          : taken.own.has(name)
            ? `${name} is also one of the agent's tools`
            : taken.host.has(name)
              ? `a host action of this turn is also named ${name}`
              : undefined;
      if (problem || !name) {
        leftOut.push(`${listed.name} (${problem})`);
        continue;
      }
      names.add(name);
      tools.push(mcpTool(server, name, listed, io));
    }
    if (leftOut.length > 0) {
      const list = leftOut.join('; ');
      warnings.push({
        type: 'warning',
        code: 'mcp_tool_left_out',
        source: server.name,
        message: `Tools of the MCP server "${server.name}" are not offered: ${
          list.length > MAX_WARNING ? `${list.slice(0, MAX_WARNING)}…` : list
        }.`,
      });
    }
  }
  return { tools, warnings };
}

/**
 * The tool named `name` for the answer of a paused call (an approval): from the server's list as
 * this environment keeps it, else read. A server now unavailable, or a tool no longer listed, gives
 * a tool whose call fails with why: the model is told, the turn goes on.
 */
export async function mcpToolNamed(
  servers: McpServer[],
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
  name: string,
): Promise<McpTool | undefined> {
  const server = servers.find((s) => name.startsWith(`${s.name}__`));
  if (!server) return undefined;
  let failure: string;
  try {
    const list = await serverTools(server, io, Date.now());
    const listed = list.tools.find(
      (t) => modelToolName(server.name, t.name) === name && (server.tools?.includes(t.name) ?? true),
    );
    if (listed) return mcpTool(server, name, listed, io);
    failure = `The MCP server "${server.name}" no longer lists this tool.`;
  } catch (error) {
    failure = unavailable(server, error).message;
  }
  return {
    name,
    mcp: { server: server.name, tool: name },
    execute: async () => ({ text: failure, images: [], failed: true, data: { content: [] } }),
  };
}

function mcpTool(
  server: McpServer,
  name: string,
  listed: { name: string; description?: string; inputSchema: Record<string, unknown> },
  io: Pick<HostAgentIO, 'secret'>,
): McpTool {
  const approval = server.needsApproval;
  return {
    name,
    ...(listed.description !== undefined && { description: listed.description }),
    parameters: listed.inputSchema,
    needsApproval: approval === true || (Array.isArray(approval) && approval.includes(listed.name)),
    mcp: { server: server.name, tool: listed.name },
    execute: (args, { signal }) => callServerTool(server, listed.name, args, { secret: io.secret, signal }),
  };
}

/** The warning of a server whose list could not be read: its name and why, never its headers. */
function unavailable(server: McpServer, error: unknown): McpWarning {
  const message =
    error instanceof McpUnavailable
      ? error.message
      : `The MCP server "${server.name}" is unavailable: its tools could not be read.`;
  return { type: 'warning', code: 'mcp_server_unavailable', source: server.name, message };
}
