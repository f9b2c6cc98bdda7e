import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { ModelScript } from '../../sandbox/index.ts';

/** A 1×1 PNG: what the `chart` tool returns as image content. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The header the guarded server requires, and the value its secret holds: no log or event may show it. */
export const DOCS_KEY = 'docs-key-3f9a7c21b4e8d6a05f1e2d3c4b5a6978';

/** What the test server's tools saw: calls by tool, and whether the `wait` call was aborted. */
export interface ServerSeen {
  calls: { tool: string; args: unknown }[];
  waits: { aborted: boolean }[];
  /** The `publish` tool of each session, which a test may change (`update`). */
  publish?: RegisteredTool[];
}

/**
 * The tools of the tests' MCP server, `docs`: text with a resource link and structured content, an
 * image, an `isError` result, a call that waits until it is cancelled, one that needs approval in
 * the agent's settings, one whose name has a character outside the tool-name rule.
 */
export function docsTools(seen: ServerSeen) {
  return (server: McpServer) => {
    server.registerTool(
      'search',
      { description: 'Search the docs', inputSchema: { query: z.string() } },
      async ({ query }) => {
        seen.calls.push({ tool: 'search', args: { query } });
        return {
          content: [
            { type: 'text', text: `3 pages match "${query}".` },
            { type: 'resource_link', uri: 'docs://pages/sla', name: 'SLA' },
          ],
          structuredContent: { hits: 3, query },
        };
      },
    );
    server.registerTool('chart', { description: 'Draw the uptime chart', inputSchema: {} }, async () => {
      seen.calls.push({ tool: 'chart', args: {} });
      return { content: [{ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }] };
    });
    server.registerTool('broken', { description: 'Read the index', inputSchema: {} }, async () => {
      seen.calls.push({ tool: 'broken', args: {} });
      return { content: [{ type: 'text', text: 'The index is offline.' }], isError: true };
    });
    server.registerTool('wait', { description: 'Wait for a build', inputSchema: {} }, async (_, extra) => {
      seen.calls.push({ tool: 'wait', args: {} });
      const record = { aborted: false };
      seen.waits.push(record);
      await new Promise<void>((resolve) => {
        if (extra.signal.aborted) resolve();
        extra.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      record.aborted = true;
      return { content: [{ type: 'text', text: 'stopped' }] };
    });
    const publish = server.registerTool(
      'publish',
      { description: 'Publish a page', inputSchema: { page: z.string() } },
      async ({ page }) => {
        seen.calls.push({ tool: 'publish', args: { page } });
        return { content: [{ type: 'text', text: `Published ${page}.` }] };
      },
    );
    seen.publish?.push(publish);
    server.registerTool('page.count', { description: 'Count the pages', inputSchema: {} }, async () => {
      seen.calls.push({ tool: 'page.count', args: {} });
      return { content: [{ type: 'text', text: '42' }] };
    });
  };
}

/** What the scripted model answers in the MCP tests: each prompt calls one of the server's tools. */
export const MCP_SCRIPT: ModelScript = {
  rules: [
    {
      match: 'search the docs',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_search', name: 'docs__search', arguments: { query: 'sla' } }] },
    },
    { tool: 'docs__search', reply: { text: 'The SLA page is the one.' } },
    {
      match: 'draw a chart',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_chart', name: 'docs__chart', arguments: {} }] },
    },
    { tool: 'docs__chart', reply: { text: 'Uptime looks flat.' } },
    {
      match: 'read the index',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_broken', name: 'docs__broken', arguments: {} }] },
    },
    { tool: 'docs__broken', reply: { text: 'The index is down.' } },
    {
      match: 'wait for the build',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_wait', name: 'docs__wait', arguments: {} }] },
    },
    { tool: 'docs__wait', reply: { text: 'The build did not finish in time.' } },
    {
      match: 'publish the page',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_publish', name: 'docs__publish', arguments: { page: 'home' } }] },
    },
    { tool: 'docs__publish', reply: { text: 'It is out.' } },
    {
      match: 'count the pages',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_count', name: 'docs__page_count', arguments: {} }] },
    },
    { tool: 'docs__page_count', reply: { text: 'There are 42 pages.' } },
    { match: 'hello', on: 'user', reply: { text: 'Hello.' } },
  ],
};
