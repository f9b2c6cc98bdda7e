import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link startMcpServer}. */
export interface McpServerOptions {
  /** Registers the server's tools on each session's `McpServer` (one per MCP session). */
  tools(server: McpServer): void;
  /** Default: a free port. */
  port?: number;
  /** Headers every request must carry (else 401), as a server behind a key would. */
  requireHeaders?: Record<string, string>;
  /** The server's name in its `initialize` answer. */
  name?: string;
}

/** A local MCP server over Streamable HTTP, and what it saw. */
export interface LocalMcpServer {
  /** Its Streamable HTTP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every request's method and headers, in order. */
  requests: { method: string; headers: IncomingMessage['headers']; status: number }[];
  /** The request ids the client cancelled (`notifications/cancelled`). */
  cancelled: unknown[];
  /** The open sessions' servers: a test adds a tool to one and sees the client told (`list_changed`). */
  sessions: Map<string, McpServer>;
  close(): Promise<void>;
}

/**
 * Starts an MCP server built with the SDK's `McpServer` over its Streamable HTTP transport, on
 * 127.0.0.1, with one MCP session per client (`Mcp-Session-Id`): the server `npm run start:model`
 * starts for the demo, and the one the tests call.
 */
export async function startMcpServer(options: McpServerOptions): Promise<LocalMcpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sessions = new Map<string, McpServer>();
  const requests: LocalMcpServer['requests'] = [];
  const cancelled: unknown[] = [];
  const http: Server = createServer(async (req, res) => {
    const entry = { method: req.method ?? '', headers: req.headers, status: 200 };
    requests.push(entry);
    const refuse = (status: number, message: string) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
    };
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return refuse(404, 'Not found');
    for (const [name, value] of Object.entries(options.requireHeaders ?? {}))
      if (req.headers[name.toLowerCase()] !== value) return refuse(401, 'Unauthorized');
    const sessionId = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return refuse(400, 'Parse error');
      }
      if ((body as { method?: unknown }).method === 'notifications/cancelled')
        cancelled.push((body as { params?: { requestId?: unknown } }).params?.requestId);
    }
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined) return refuse(404, 'Session not found');
      if (req.method !== 'POST' || !isInitializeRequest(body)) return refuse(400, 'No session');
      const server = new McpServer(
        { name: options.name ?? 'local', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } },
      );
      options.tools(server);
      const made = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, made);
          sessions.set(id, server);
        },
      });
      made.onclose = () => {
        if (made.sessionId) {
          transports.delete(made.sessionId);
          sessions.delete(made.sessionId);
        }
      };
      await server.connect(made);
      transport = made;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    cancelled,
    sessions,
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
