import * as z from 'zod';
import { type LocalMcpServer, startMcpServer } from '../sandbox/mcp-server.ts';

/**
 * The demo's MCP server (`npm run start:model` starts it on a free local port): `status`, a status
 * page of the issue tracker with one tool, `uptime`. The demo agent takes it through `mcpServers`,
 * and the model sees the tool as `status__uptime`.
 */
export function startDemoMcpServer(): Promise<LocalMcpServer> {
  return startMcpServer({
    name: 'status',
    tools(server) {
      server.registerTool(
        'uptime',
        {
          description: 'The uptime of a service over the last 30 days, and its incidents.',
          inputSchema: { service: z.enum(['issue tracker', 'api']) },
        },
        async ({ service }) => {
          const uptime = service === 'api' ? '99.995%' : '99.98%';
          return {
            content: [{ type: 'text', text: `${service}: ${uptime} up over 30 days, 1 incident.` }],
            structuredContent: { service, uptime, days: 30, incidents: 1 },
          };
        },
      );
    },
  });
}
