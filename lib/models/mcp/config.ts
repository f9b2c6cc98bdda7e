import * as z from 'zod';

/** The separator between a server's name and its tool's in the name the model sees: `<server>__<tool>`. */
export const MCP_SEPARATOR = '__';

/** The tool-name rule the runtime enforces for every tool a model is offered. */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** An HTTP header's name (RFC 9110's token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Per-call time limit when a server names none. */
export const MCP_DEFAULT_TIMEOUT_MS = 30_000;

/** How long a server's tool list is used before a turn reads it again, when a server names no TTL. */
export const MCP_DEFAULT_TOOLS_TTL_MS = 300_000;

/**
 * One MCP server of a model agent (`mcpServers`): its tools are offered to the model as
 * `<name>__<tool>` and run as backend tools. Described once here; the type is `z.input` of it.
 */
export const McpServerSchema = z
  .object({
    /** A short id, unique within the agent: the prefix of its tools' names. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 letters, digits, "_" or "-"')
      .refine(
        (name) => !name.includes(MCP_SEPARATOR) && !name.startsWith('_') && !name.endsWith('_'),
        `must not contain "${MCP_SEPARATOR}", nor begin or end with "_"`,
      ),
    /** The server's Streamable HTTP endpoint: the only URL of this server ever called. */
    url: z
      .string()
      .refine(
        (url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) && new URL(url).username === '',
        'must be an http(s) URL without credentials in it',
      ),
    /** Headers sent with every request to the server (an `Authorization` among them); never logged. */
    headers: z
      .record(z.string(), z.string())
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers))
          if (!HEADER_NAME.test(name))
            ctx.addIssue({ code: 'custom', path: [name], message: 'must be a header name' });
      })
      .optional(),
    /**
     * The id or ARN of a Secrets Manager secret whose string is a JSON object of headers, read once
     * per execution environment with the runtime's secret loader (the construct's `models.secrets`).
     */
    headersFromSecret: z.string().min(1).optional(),
    /** The server's tools to offer, by the server's names (default: every tool it lists). */
    tools: z.array(z.string().min(1)).min(1).optional(),
    /** Ask a person before each call (`true`), or before calls of these tools (the server's names). */
    needsApproval: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
    /** The most milliseconds one call may take: past it the call is a failed result (default 30 s). */
    timeoutMs: z.number().int().min(100).max(900_000).optional(),
    /** How long the server's tool list is used before a turn reads it again (default 5 minutes). */
    toolsTtlMs: z.number().int().min(0).max(86_400_000).optional(),
  })
  .strict();

/** One MCP server of a model agent, as a registration gives it. */
export type McpServer = z.input<typeof McpServerSchema>;

/**
 * The name the model sees for a server's tool, or undefined when it cannot fit the tool-name rule.
 * A server's name neither contains `__` nor ends with `_`, so the first `__` of the name ends it.
 */
export function modelToolName(server: string, tool: string): string | undefined {
  const name = `${server}${MCP_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return MODEL_TOOL_NAME.test(name) ? name : undefined;
}

/**
 * Why an agent's `mcpServers` cannot work, or undefined: each server checked by its schema, names
 * unique, an allowlisted tool whose model name cannot fit or is one of the agent's own tools'.
 */
export function mcpServersProblem(servers: unknown, ownTools: string[]): string | undefined {
  if (!Array.isArray(servers)) return 'mcpServers must be an array';
  const names = new Set<string>();
  const own = new Set(ownTools);
  for (const [index, server] of servers.entries()) {
    const parsed = McpServerSchema.safeParse(server);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = ['mcpServers', index, ...(issue?.path ?? [])].map(String).join('.');
      return `${path}: ${issue?.message ?? 'is not valid'}`;
    }
    const { name, headers, headersFromSecret, tools } = parsed.data;
    if (names.has(name)) return `mcpServers.${index}.name: "${name}" is given twice`;
    names.add(name);
    if (headers !== undefined && headersFromSecret !== undefined)
      return `mcpServers.${index}: give headers or headersFromSecret, not both`;
    const approval = parsed.data.needsApproval;
    const unlisted = Array.isArray(approval) && tools ? approval.filter((t) => !tools.includes(t)) : [];
    if (unlisted.length > 0)
      return `mcpServers.${index}.needsApproval: "${unlisted[0]}" is not in tools, so it would never be offered`;
    for (const tool of tools ?? []) {
      const modelName = modelToolName(name, tool);
      if (!modelName)
        return `mcpServers.${index}.tools: "${name}${MCP_SEPARATOR}${tool}" is longer than a tool name may be (64 characters)`;
      if (own.has(modelName))
        return `mcpServers.${index}.tools: "${modelName}" is also one of the agent's tools`;
    }
  }
  return undefined;
}

/** The server a model's tool name belongs to (the name before its first `__`), if it is one of `servers`. */
export const serverOf = <T extends { name: string }>(servers: T[], name: string): T | undefined => {
  const at = name.indexOf(MCP_SEPARATOR);
  return at > 0 ? servers.find((s) => s.name === name.slice(0, at)) : undefined;
};
