import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HostAgentIO } from '../../contract/index.ts';
import { jsonSchemasReady, objectSchemaProblem } from '../../contract/json-schema.ts';
import { MCP_DEFAULT_TIMEOUT_MS, MCP_DEFAULT_TOOLS_TTL_MS, type McpServer } from './config.ts';
import { type ListedTool, listedTool, MCP_LIMITS, type ToolAnswer, toolAnswer } from './untrusted.ts';
import { checkedMcpFetch, REFUSED_CODE } from './wire.ts';

/** A server's tools could not be read: its name and why, in words that hold none of its headers. */
export class McpUnavailable extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`The MCP server "${server}" is unavailable: ${reason}`);
    this.name = 'McpUnavailable';
  }
}

/** A server's list as the runtime keeps it: the tools it may offer, and those left out with why. */
export interface ServerList {
  tools: ListedTool[];
  leftOut: { name: string; reason: string }[];
}

/** One connected client of a server (its MCP session), kept for the execution environment. */
interface Connection {
  client: Client;
  /** When the list was read (the runtime's clock), and the list. */
  list?: { at: number; value: ServerList };
  /** The server said its list changed (`notifications/tools/list_changed`): the next turn reads it. */
  stale: boolean;
}

/** The most connections one execution environment keeps (past it, the oldest is closed). */
const MAX_CONNECTIONS = 32;

/** How long a server whose list could not be read is reported so without being asked again. */
export const MCP_RETRY_AFTER_MS = 30_000;

/**
 * The connections of this execution environment, by server URL and headers. An MCP session
 * (`Mcp-Session-Id`) lives as long as its connection: until the environment ends, a transport
 * failure drops it, or the server forgets it (it answers 404), when the next use opens a new one.
 */
const connections = new Map<string, Promise<Connection>>();

/** The servers whose list could not be read lately, by key and time limit: why, and until when it is not asked again. */
const failures = new Map<string, { error: McpUnavailable; until: number }>();

const keyOf = (server: McpServer, headers: Record<string, string>) =>
  `${server.url}\n${JSON.stringify(headers)}`;

/** The headers a server's requests carry: its own, or its secret's JSON object (read once per environment). */
async function headersOf(
  server: McpServer,
  io: Pick<HostAgentIO, 'secret'>,
): Promise<Record<string, string>> {
  if (server.headersFromSecret === undefined) return server.headers ?? {};
  let text: string;
  try {
    text = await io.secret(server.headersFromSecret);
  } catch (error) {
    throw new McpUnavailable(
      server.name,
      `its headers could not be read from ${server.headersFromSecret}: ${(error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {}
  const entries =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : [];
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== 'string'))
    throw new McpUnavailable(
      server.name,
      `the secret ${server.headersFromSecret} holds no JSON object of header names and string values`,
    );
  return Object.fromEntries(entries) as Record<string, string>;
}

/** A validator of tools' output schemas that compiles none: a result's structured content is data, passed on as it is. */
const passThrough = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

/** What `work` gives, unless `signal` aborts first (it throws the signal's reason then); `work` goes on. */
function until<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * The connection of a server with these headers: made (initialized) once, then kept. It is made with
 * no turn's signal (a turn that waits for it and is cancelled stops waiting; the others do not), within
 * the server's time limit.
 */
function connection(server: McpServer, headers: Record<string, string>): Promise<Connection> {
  const key = keyOf(server, headers);
  let made = connections.get(key);
  if (!made) {
    made = open(server, headers, () => {
      if (connections.get(key) === made) connections.delete(key);
    });
    made.catch(() => connections.get(key) === made && connections.delete(key));
    connections.set(key, made);
    // The oldest connection past the bound is closed (a rotated secret leaves its old one behind).
    for (const [old, conn] of connections) {
      if (connections.size <= MAX_CONNECTIONS) break;
      connections.delete(old);
      void conn.then((c) => c.client.close()).catch(() => {});
    }
  }
  return made;
}

async function open(
  server: McpServer,
  headers: Record<string, string>,
  forget: () => void,
): Promise<Connection> {
  // The SDK is an optional peer: loaded here, in the worker, with the first turn that uses a server.
  // (A bundle built without it has an empty module in its place: see infra/bundling.ts.)
  const [{ Client }, { StreamableHTTPClientTransport }, { ToolListChangedNotificationSchema }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]).catch(() => [{}, {}, {}] as never);
  if (typeof Client !== 'function' || typeof StreamableHTTPClientTransport !== 'function')
    throw new McpUnavailable(
      server.name,
      'the @modelcontextprotocol/sdk package is not installed beside the agents (it is an optional peer of switchboard)',
    );
  const client = new Client(
    { name: 'switchboard', version: '1' },
    { capabilities: {}, jsonSchemaValidator: passThrough },
  );
  const conn: Connection = { client, stale: false };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    conn.stale = true;
  });
  // A connection that fails (its event stream cut, the server gone) is dropped: the next turn opens another.
  client.onclose = forget;
  // No authProvider: the SDK's OAuth discovery is off, and a 401 is the server being unavailable.
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
    fetch: checkedMcpFetch,
    redirectPolicy: 'same-origin',
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 30_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  });
  try {
    await client.connect(transport, { timeout: server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => {});
    throw new McpUnavailable(server.name, reasonOf(error, server, { connecting: true }));
  }
  return conn;
}

/** Closes a connection and forgets it (a transport failure, or the server forgot its session). */
async function drop(server: McpServer, headers: Record<string, string>, conn: Connection): Promise<void> {
  const key = keyOf(server, headers);
  const made = connections.get(key);
  if (made && (await made.catch(() => undefined)) === conn) connections.delete(key);
  await conn.client.close().catch(() => {});
}

/**
 * A server's tools, from the list this environment keeps while it is fresh (its TTL, and no
 * `notifications/tools/list_changed` since), else read now: where a server that is down is noticed
 * (a {@link McpUnavailable}, remembered for {@link MCP_RETRY_AFTER_MS}: the turns meanwhile do not
 * wait for it again). The whole read is bounded by the server's `timeoutMs`; a session the server
 * forgot, or a connection it cut, is opened again once. Each listed tool is checked
 * ({@link listedTool}, its input schema a usable JSON Schema of type object); one that fails is left
 * out, with why. The list is the server's whole list (agents that share a server share it): each
 * agent's allowlist is applied by its turn. A cancelled turn throws its signal's reason.
 */
export async function serverTools(
  server: McpServer,
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
  now: number,
): Promise<ServerList> {
  const headers = await headersOf(server, io);
  // By the time limit too: an agent whose limit is short does not make the server down for the others.
  const key = `${keyOf(server, headers)}\n${server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS}`;
  const failed = failures.get(key);
  if (failed && failed.until > now) throw failed.error;
  const timeout = server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS;
  for (let attempt = 0; ; attempt++) {
    let conn: Connection | undefined;
    try {
      conn = await until(connection(server, headers), io.signal);
      const ttl = server.toolsTtlMs ?? MCP_DEFAULT_TOOLS_TTL_MS;
      if (conn.list && !conn.stale && now - conn.list.at < ttl) return conn.list.value;
      conn.stale = false;
      const value = await until(readList(conn.client, AbortSignal.timeout(timeout), timeout), io.signal);
      conn.list = { at: now, value };
      failures.delete(key);
      return value;
    } catch (error) {
      if (io.signal.aborted) throw io.signal.reason;
      const again = conn !== undefined && (statusOf(error) === 404 || transportFailed(error));
      if (conn && again) await drop(server, headers, conn);
      if (again && attempt === 0) continue;
      const unavailable =
        error instanceof McpUnavailable ? error : new McpUnavailable(server.name, reasonOf(error, server));
      failures.set(key, { error: unavailable, until: now + MCP_RETRY_AFTER_MS });
      throw unavailable;
    }
  }
}

async function readList(client: Client, signal: AbortSignal, timeout: number): Promise<ServerList> {
  await jsonSchemasReady();
  const list: ServerList = { tools: [], leftOut: [] };
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === MCP_LIMITS.listPages) {
      list.leftOut.push({
        name: '(the rest)',
        reason: `the list was cut after ${MCP_LIMITS.listPages} pages`,
      });
      break;
    }
    const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout });
    for (const tool of answer.tools) {
      if (list.tools.length >= MCP_LIMITS.listedTools) {
        list.leftOut.push({
          name: tool.name,
          reason: `the server lists more than ${MCP_LIMITS.listedTools} tools`,
        });
        continue;
      }
      const checked = listedTool(tool as Parameters<typeof listedTool>[0]);
      const problem = typeof checked === 'string' ? checked : objectSchemaProblem(checked.inputSchema);
      if (typeof checked === 'string' || problem !== undefined)
        list.leftOut.push({
          name: tool.name,
          reason: typeof checked === 'string' ? checked : `its input schema ${problem}`,
        });
      else list.tools.push(checked);
    }
    cursor = answer.nextCursor;
    if (cursor === undefined) break;
  }
  return list;
}

/**
 * Calls a server's tool: its answer mapped for the model ({@link toolAnswer}). A time-out, a
 * protocol error or a transport failure is a failed answer, not a failed turn; a cancel (the turn's
 * signal) throws, after the SDK has sent the server `notifications/cancelled`. A session the server
 * forgot (404) is opened again once, for the same call (the server did not run it).
 */
export async function callServerTool(
  server: McpServer,
  tool: string,
  args: unknown,
  io: Pick<HostAgentIO, 'secret' | 'signal'>,
): Promise<ToolAnswer> {
  let headers: Record<string, string> = {};
  const timeoutMs = server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS;
  for (let attempt = 0; ; attempt++) {
    let conn: Connection | undefined;
    try {
      headers = await headersOf(server, io);
      conn = await until(connection(server, headers), io.signal);
      const result = await conn.client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { signal: io.signal, timeout: timeoutMs },
      );
      return toolAnswer(result as Parameters<typeof toolAnswer>[0]);
    } catch (error) {
      if (io.signal.aborted) throw error;
      if (timedOut(error))
        return failedAnswer(`The MCP server "${server.name}" did not answer within ${timeoutMs} ms.`);
      const gone = statusOf(error) === 404;
      if (conn && (gone || transportFailed(error))) await drop(server, headers, conn);
      if (gone && attempt === 0) continue;
      const reason = error instanceof McpUnavailable ? error.reason : reasonOf(error, server);
      return failedAnswer(`The MCP server "${server.name}" failed: ${reason}`);
    }
  }
}

/** Closes every kept connection and forgets every failure (a sandbox that stops; a Lambda environment just ends). */
export async function closeMcpConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  failures.clear();
  await Promise.all(
    all.map(async (made) => (await made.catch(() => undefined))?.client.close().catch(() => {})),
  );
}

const failedAnswer = (text: string): ToolAnswer => ({
  text,
  images: [],
  failed: true,
  data: { content: [{ type: 'text', text }] },
});

/** The SDK's JSON-RPC error codes the runtime tells apart: a request that timed out, a connection closed. */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

const codeOf = (error: unknown) => (error as { code?: unknown } | undefined)?.code;
const timedOut = (error: unknown) =>
  codeOf(error) === REQUEST_TIMEOUT || (error as Error | undefined)?.name === 'TimeoutError';
/** The HTTP status of a `StreamableHTTPError`, the SDK's error for a response it could not use. */
const statusOf = (error: unknown) =>
  (error as Error | undefined)?.name === 'StreamableHTTPError' ||
  (error as { constructor?: { name?: string } })?.constructor?.name === 'StreamableHTTPError'
    ? (codeOf(error) as number | undefined)
    : undefined;
const transportFailed = (error: unknown) =>
  statusOf(error) !== undefined || codeOf(error) === CONNECTION_CLOSED || error instanceof TypeError;

/**
 * Why a server failed, in words a host may read: the status it answered, the network's error code,
 * its protocol error's code, or what the runtime refused. Never the server's own text (it may echo a
 * header, encoded or not) nor its URL (a key may be in its path).
 */
function reasonOf(error: unknown, server: McpServer, at: { connecting?: boolean } = {}): string {
  if (error instanceof McpUnavailable) return error.reason;
  const status = statusOf(error);
  if (status === 401 || status === 403) return `it answered ${status}: the request was not authorized`;
  if (at.connecting && (status === 404 || status === 405))
    return `it answered ${status} to initialize: not a Streamable HTTP endpoint (a server that speaks only the older HTTP+SSE transport is not supported)`;
  if (status !== undefined) return `it answered ${status}`;
  if (timedOut(error)) return `it did not answer within ${server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS} ms`;
  const code = codeOf(error);
  const refused = (error as { data?: { refused?: unknown } } | undefined)?.data?.refused;
  if (code === REFUSED_CODE && typeof refused === 'string') return `what it sent was refused: ${refused}`;
  if (typeof code === 'number' && Number.isSafeInteger(code)) return `it answered a protocol error (${code})`;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const network =
    typeof cause?.code === 'string' && /^[A-Z_]{2,32}$/.test(cause.code) ? cause.code : undefined;
  if (error instanceof TypeError) return `it could not be reached${network ? ` (${network})` : ''}`;
  // The runtime's own bound (a response past its size), else nothing of the error's text.
  const message = error instanceof Error ? error.message : '';
  return /^the server's response passed \d+ MiB$/.test(message) ? message : 'its answer could not be used';
}
