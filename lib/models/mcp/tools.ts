import type { HostAgentIO } from '../../contract/index.ts';
import type { ModelTool } from '../types.ts';
import { callServerTool, McpUnavailable, serverTools } from './client.ts';
import { type McpServer, modelToolName, serverOf } from './config.ts';
import { type ListedTool, MCP_LIMITS, nameText, type ToolAnswer } from './untrusted.ts';

/** Which server's tool a model's tool is: kept on a paused call, so that its answer runs that one tool. */
export interface McpIdentity {
  server: string;
  tool: string;
}

/** A server's tool as the loop offers and runs it: a backend tool whose `execute` answers a {@link ToolAnswer}. */
export interface McpTool extends ModelTool {
  mcp: McpIdentity;
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
 * one of the agent's own tools' or a host action's of this turn, a tool the runtime refused, past the
 * bound of one server's tools), and names of the agent's `tools` or `needsApproval` the server does
 * not list. A turn cancelled meanwhile gets no tools and no warnings.
 */
export async function turnMcpTools(
  servers: McpServer[],
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
  taken: { own: ReadonlySet<string>; host: ReadonlySet<string> },
  now = Date.now(),
): Promise<{ tools: McpTool[]; warnings: McpWarning[] }> {
  const lists = await Promise.allSettled(servers.map((server) => serverTools(server, io, now)));
  if (io.signal.aborted) return { tools: [], warnings: [] };
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
      .map(({ name, reason }) => `${nameText(name)} (${reason})`);
    let offered = 0;
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
              : offered >= MCP_LIMITS.tools
                ? `more than ${MCP_LIMITS.tools} of the server's tools would be offered`
                : undefined;
      if (problem || !name) {
        leftOut.push(`${nameText(listed.name)} (${problem})`);
        continue;
      }
      names.add(name);
      offered += 1;
      tools.push(mcpTool(server, name, listed, io));
    }
    // A name the definition gives that the server does not list: an allowlisted tool that is not
    // there, or one that should be approved (the setting fails open if it is misspelt).
    const listedNames = new Set(list.value.tools.map((t) => t.name));
    const approval = Array.isArray(server.needsApproval) ? server.needsApproval : [];
    for (const missing of new Set([...(server.tools ?? []), ...approval]))
      if (!listedNames.has(missing) && !list.value.leftOut.some((t) => t.name === missing))
        leftOut.push(`${nameText(missing)} (named in the agent's settings, but the server does not list it)`);
    if (leftOut.length > 0) {
      const text = leftOut.join('; ');
      warnings.push({
        type: 'warning',
        code: 'mcp_tool_left_out',
        source: server.name,
        message: `Tools of the MCP server "${server.name}" are not offered: ${
          text.length > MAX_WARNING ? `${text.slice(0, MAX_WARNING)}…` : text
        }.`,
      });
    }
  }
  return { tools, warnings };
}

/** A JSON value as text with its objects' keys sorted: the same for the same value, however it was stored. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The tool of an approved call, for the answer of a paused turn: the server's tool the call was
 * asked for (its identity kept with the call), as the server lists it now. It runs only if it is
 * still that tool, with the input schema the person saw (`argsSchema`); else, or when the server is
 * now unavailable, the call fails with why: the model is told, the turn goes on. Undefined when the
 * name is no server's.
 */
export async function mcpToolNamed(
  servers: McpServer[],
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
  name: string,
  asked: { identity?: McpIdentity; argsSchema?: unknown },
): Promise<McpTool | undefined> {
  const server = serverOf(servers, name);
  if (!server || (asked.identity && asked.identity.server !== server.name)) return undefined;
  let failure: string;
  try {
    const list = await serverTools(server, io, Date.now());
    const listed = list.tools.find((t) =>
      asked.identity ? t.name === asked.identity.tool : modelToolName(server.name, t.name) === name,
    );
    const allowed = listed && (server.tools?.includes(listed.name) ?? true);
    if (!listed || !allowed)
      failure = `The MCP server "${server.name}" no longer offers this tool; it was not run.`;
    else if (asked.argsSchema !== undefined && canonical(asked.argsSchema) !== canonical(listed.inputSchema))
      failure = `The MCP server "${server.name}" changed this tool since it was approved; it was not run.`;
    else return mcpTool(server, name, listed, io);
  } catch (error) {
    if (io.signal.aborted) throw error;
    failure = unavailable(server, error).message;
  }
  return {
    name,
    mcp: { server: server.name, tool: asked.identity?.tool ?? name },
    execute: async () => ({ text: failure, images: [], failed: true, data: { content: [] } }),
  };
}

function mcpTool(
  server: McpServer,
  name: string,
  listed: ListedTool,
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
