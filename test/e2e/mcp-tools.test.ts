import { type AddressInfo, createServer as createNetServer, type Server as NetServer } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ChunkMapper } from '../../ai-sdk/chunks.ts';
import type { SwitchboardEvent } from '../../client/index.ts';
import { AguiTranslator } from '../../lib/agui/translate.ts';
import { createSwitchboard, type McpServer } from '../../lib/index.ts';
import { applyEvent, emptyConversation, messagesOf } from '../../react/messages.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import { type LocalMcpServer, startMcpServer } from '../../sandbox/mcp-server.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { captureOutput } from '../support/capture.ts';
import { DOCS_KEY, docsTools, MCP_SCRIPT, PIXEL_PNG, type ServerSeen } from '../support/mcp.ts';
import { MODEL_KEY, modelAgent } from '../support/model-agents.ts';
import { api, type LoggedEvent, runEvents, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * Model agents whose tools come from MCP servers: a real server built with the SDK's `McpServer`
 * over Streamable HTTP on a local port (sandbox/mcp-server.ts), called by the worker's MCP client,
 * on the scripted model, over HTTP and WebSocket.
 */
const seen: ServerSeen = { calls: [], waits: [] };
const guardedSeen: ServerSeen = { calls: [], waits: [] };
const DOCS_HEADERS_SECRET = 'support/docs-headers';
let docs: LocalMcpServer;
/** A server of the approval test alone: its `publish` tool changes while a call of it waits. */
let changing: LocalMcpServer;
const changingSeen: ServerSeen = { calls: [], waits: [], publish: [] };
let guarded: LocalMcpServer;
let model: ScriptedModel;
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('mcp');
const exporter = new InMemorySpanExporter();

/** Everything written to stdout, stderr and the console while the file runs (no secret may be in it). */
let printed: ReturnType<typeof captureOutput>;

/**
 * A server that is down: it holds its port (so that no other test's server can take it) and cuts
 * every connection at once, before a byte of HTTP.
 */
let down: NetServer;
async function downUrl(): Promise<string> {
  down = createNetServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(down.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  printed = captureOutput();
  docs = await startMcpServer({ tools: docsTools(seen) });
  changing = await startMcpServer({ tools: docsTools(changingSeen) });
  guarded = await startMcpServer({
    tools: docsTools(guardedSeen),
    requireHeaders: { 'x-docs-key': DOCS_KEY },
  });
  model = await startScriptedModel({ script: MCP_SCRIPT, apiKey: MODEL_KEY });
  const app = createSwitchboard();
  const server = (extra: Partial<McpServer> = {}): McpServer => ({
    name: 'docs',
    url: docs.url,
    needsApproval: ['publish'],
    ...extra,
  });
  const agent = (id: string, mcpServers: McpServer[]) => modelAgent(id, model.baseURL, { mcpServers });
  app.registerChatCompletionsAgent(agent('mcp', [server()]));
  app.registerResponsesAgent(agent('mcp-responses', [server()]));
  app.registerChatCompletionsAgent(agent('mcp-quick', [server({ timeoutMs: 300 })]));
  app.registerChatCompletionsAgent(agent('mcp-allow', [server({ tools: ['search', 'publish', 'nope'] })]));
  // Its list read at every turn (no TTL), so that the answer sees the tool as it is now.
  app.registerChatCompletionsAgent(agent('mcp-changing', [server({ url: changing.url, toolsTtlMs: 0 })]));
  app.registerChatCompletionsAgent(
    agent('mcp-down', [
      server(),
      { name: 'gone', url: await downUrl() },
      { name: 'locked', url: guarded.url },
    ]),
  );
  app.registerChatCompletionsAgent(
    agent('mcp-secret', [{ name: 'docs', url: guarded.url, headersFromSecret: DOCS_HEADERS_SECRET }]),
  );
  sandbox = await testSandbox({
    app,
    modelSecrets: { [DOCS_HEADERS_SECRET]: JSON.stringify({ 'x-docs-key': DOCS_KEY }) },
    logLevel: 'INFO',
    settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } },
    traces: { processors: [new SimpleSpanProcessor({ exporter })] },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await docs?.close();
  await guarded?.close();
  await new Promise((resolve) => (down ? down.close(resolve) : resolve(undefined)));
  await changing?.close();
  await model?.close();
  printed?.restore();
});

type Via = 'http' | 'ws';
type Event = Pick<LoggedEvent, 'type' | 'data'>;

/** One message's turn over HTTP or WebSocket: its events once it has ended. */
async function turn(via: Via, sessionId: string, content: string, agentId = 'mcp'): Promise<Event[]> {
  if (via === 'ws')
    return (await sendTurn(host, sessionId, content, { agent_id: agentId })).events as Event[];
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    session_id: sessionId,
    agent_id: agentId,
    content,
  });
  expect(res.status, res.text).toBe(202);
  return runEvents(sandbox.url, sessionId, res.json.run_id);
}

const of = (events: Event[], type: string) => events.filter((e) => e.type === type).map((e) => e.data);
const text = (events: Event[]) =>
  of(events, 'agent.message.delta')
    .map((d) => d.text)
    .join('');
type ChatBody = {
  tools?: { function: { name: string; parameters: unknown } }[];
  messages: { role: string; content: unknown }[];
};
const bodiesSince = (from: number) => model.requests.slice(from).map((r) => r.body as ChatBody);
const toolNames = (body: ChatBody | undefined) => (body?.tools ?? []).map((t) => t.function.name);

describe.each(['ws', 'http'] as const)('an MCP server’s tools over %s', (via) => {
  it('are offered with their schemas and prefixed names; a call runs on the server and its result reaches the model', async () => {
    const from = model.requests.length;
    const calls = seen.calls.length;
    const events = await turn(via, sid(`search-${via}`), 'search the docs');
    const [first, second] = bodiesSince(from);
    expect(toolNames(first)).toEqual(
      expect.arrayContaining(['weather', 'refund', 'docs__search', 'docs__chart', 'docs__page_count']),
    );
    const search = first?.tools?.find((t) => t.function.name === 'docs__search');
    expect(search?.function.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    });
    expect(seen.calls.slice(calls)).toEqual([{ tool: 'search', args: { query: 'sla' } }]);
    expect(of(events, 'agent.tool_use')).toEqual([
      expect.objectContaining({ id: 'call_search', name: 'docs__search', args: { query: 'sla' } }),
    ]);
    // The structured content is the result's data; the model reads the text, the link with its URI.
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'docs__search', ok: true, result: { hits: 3, query: 'sla' } }),
    ]);
    expect(second?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_search',
      content: '3 pages match "sla".\n[Resource link: SLA <docs://pages/sla>]',
    });
    expect(text(events)).toBe('The SLA page is the one.');
  });

  it('asks approval for a tool named in needsApproval, with its input schema; remembered, the next call runs without asking', async () => {
    const id = sid(`publish-${via}`);
    const first = await turn(via, id, 'publish the page');
    const [asked] = of(first, 'action.required').flatMap((d) => d.actions as Record<string, unknown>[]);
    expect(asked).toMatchObject({
      type: 'tool_approval',
      toolName: 'docs__publish',
      args: { page: 'home' },
      argsSchema: { properties: { page: { type: 'string' } } },
    });
    const calls = seen.calls.length;
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
      remember_for_session: true,
    });
    expect(res.status, res.text).toBe(202);
    const resolved = await runEvents(sandbox.url, id, res.json.run_id);
    expect(seen.calls.slice(calls)).toEqual([{ tool: 'publish', args: { page: 'home' } }]);
    expect(text(resolved)).toBe('It is out.');
    const again = await turn(via, id, 'publish the page');
    expect(of(again, 'action.required')).toEqual([]);
    expect(of(again, 'agent.tool_use')).toEqual([
      expect.objectContaining({ name: 'docs__publish', remembered: true }),
    ]);
    expect(seen.calls.slice(calls)).toHaveLength(2);
  });
});

describe('an approval of an MCP tool', () => {
  it('does not run a tool the server changed after it was asked: the person approved another', async () => {
    const id = sid('changed-approval');
    const first = await turn('ws', id, 'publish the page', 'mcp-changing');
    const [asked] = of(first, 'action.required').flatMap((d) => d.actions as Record<string, unknown>[]);
    expect(asked).toMatchObject({ toolName: 'docs__publish', argsSchema: { required: ['page'] } });
    // The server's publish tool now takes another argument as well.
    for (const tool of changingSeen.publish ?? [])
      tool.update({ paramsSchema: { page: z.string(), force: z.boolean().optional() } });
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
    });
    expect(res.status, res.text).toBe(202);
    const resolved = await runEvents(sandbox.url, id, res.json.run_id);
    expect(of(resolved, 'agent.tool_result')).toEqual([
      expect.objectContaining({
        ok: false,
        error: 'The MCP server "docs" changed this tool since it was approved; it was not run.',
      }),
    ]);
    expect(changingSeen.calls.filter((c) => c.tool === 'publish')).toEqual([]);
  });
});

describe('an MCP tool’s results', () => {
  it('hands an image to the model as an image, after the results', async () => {
    const from = model.requests.length;
    const events = await turn('ws', sid('chart'), 'draw a chart');
    const after = bodiesSince(from)[1];
    expect(after?.messages.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'call_chart' });
    expect(after?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The images the tools returned, in the order of their calls:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}` } },
      ],
    });
    // The host's event names the image; its bytes are the model's only.
    expect(of(events, 'agent.tool_result')[0]?.result).toEqual({
      content: [{ type: 'image', mime_type: 'image/png', bytes: 70 }],
    });
  });

  it('reports isError as a failed result the model is told about', async () => {
    const from = model.requests.length;
    const events = await turn('ws', sid('broken'), 'read the index');
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'docs__broken', ok: false, error: 'The index is offline.' }),
    ]);
    expect(bodiesSince(from)[1]?.messages.at(-1)).toMatchObject({
      content: '{"error":"The index is offline."}',
    });
    expect(text(events)).toBe('The index is down.');
  });

  it('runs each call in an execute_tool span with its outcome, as the agent’s own tools', async () => {
    await turn('ws', sid('spans-ok'), 'search the docs');
    await turn('ws', sid('spans-failed'), 'read the index');
    const span = (name: string) =>
      exporter.getFinishedSpans().find((s) => s.name === `execute_tool ${name}`)?.attributes;
    await expect.poll(() => span('docs__broken'), queued('the spans')).toBeDefined();
    expect(span('docs__search')).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'docs__search',
      'gen_ai.tool.call.id': 'call_search',
      'switchboard.tool.outcome': 'succeeded',
    });
    expect(span('docs__broken')).toMatchObject({
      'switchboard.tool.outcome': 'failed',
      'error.type': 'tool_error',
    });
    // No content: the result's text is not on the span.
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toContain('pages match');
  });

  it('maps a tool name outside the tool-name rule into it', async () => {
    const events = await turn('ws', sid('count'), 'count the pages');
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'docs__page_count', ok: true }),
    ]);
    expect(seen.calls.at(-1)).toEqual({ tool: 'page.count', args: {} });
  });

  it('works on the Responses wire too', async () => {
    const from = model.requests.length;
    const events = await turn('http', sid('responses'), 'search the docs', 'mcp-responses');
    expect(model.requests[from]?.path).toBe('/v1/responses');
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'docs__search', ok: true }),
    ]);
    expect(text(events)).toBe('The SLA page is the one.');
  });
});

describe('stopping an MCP call', () => {
  it('cancels a call in flight when the turn is cancelled: the server gets the cancellation', async () => {
    const id = sid('cancel');
    const waits = seen.waits.length;
    const cancelled = docs.cancelled.length;
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'mcp',
      content: 'wait for the build',
    });
    await expect.poll(() => seen.waits.length, queued('the call on the server')).toBe(waits + 1);
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).status).toBe(202);
    const end = await host.waitFor(turnEnded(accepted.run_id as string, id), 'the end of the turn');
    expect(end.data).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    await expect.poll(() => docs.cancelled.length, queued('the cancellation')).toBe(cancelled + 1);
    expect(seen.waits.at(-1)?.aborted).toBe(true);
  });

  it('fails a call past its timeoutMs as a result, not the turn; the server gets the cancellation', async () => {
    const cancelled = docs.cancelled.length;
    const events = await turn('ws', sid('timeout'), 'wait for the build', 'mcp-quick');
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({
        name: 'docs__wait',
        ok: false,
        error: 'The MCP server "docs" did not answer within 300 ms.',
      }),
    ]);
    expect(text(events)).toBe('The build did not finish in time.');
    expect(of(events, 'session.status_idle')).toEqual([expect.objectContaining({ status: 'completed' })]);
    await expect.poll(() => docs.cancelled.length, queued('the cancellation')).toBe(cancelled + 1);
  });
});

describe('an MCP session', () => {
  it('is opened again when the server forgot it (404): the call is sent once more, on the new session', async () => {
    await turn('ws', sid('session-1'), 'search the docs');
    const calls = seen.calls.length;
    for (const server of docs.sessions.values()) await server.close();
    const from = docs.requests.length;
    const events = await turn('ws', sid('session-2'), 'search the docs');
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'docs__search', ok: true }),
    ]);
    expect(seen.calls.slice(calls)).toEqual([{ tool: 'search', args: { query: 'sla' } }]);
    expect(docs.requests.slice(from).map((r) => r.status)).toContain(404);
  });
});

describe('which MCP tools a turn is offered', () => {
  it.each(['ws', 'http'] as const)(
    'goes on without a server that is down or refuses, with a warning for each that names it and why (%s)',
    async (via) => {
      const from = model.requests.length;
      const unavailable = sandbox.metrics.sum('McpServersUnavailable');
      const events = await turn(via, sid(`down-${via}`), 'search the docs', 'mcp-down');
      const warnings = of(events, 'agent.warning');
      expect(warnings).toEqual([
        {
          message_id: expect.any(String),
          code: 'mcp_server_unavailable',
          source: 'gone',
          message: expect.stringMatching(
            /^The MCP server "gone" is unavailable: it could not be reached( \([A-Z_]+\))?$/,
          ),
        },
        {
          message_id: expect.any(String),
          code: 'mcp_server_unavailable',
          source: 'locked',
          message: 'The MCP server "locked" is unavailable: it answered 401: the request was not authorized',
        },
      ]);
      const names = toolNames(bodiesSince(from)[0]);
      expect(names).toContain('docs__search');
      expect(names.filter((n) => n.startsWith('gone__') || n.startsWith('locked__'))).toEqual([]);
      expect(text(events)).toBe('The SLA page is the one.');
      await expect
        .poll(() => sandbox.metrics.sum('McpServersUnavailable'), queued('the metric'))
        .toBeGreaterThanOrEqual(unavailable + 2);
      expect(printed.text()).toMatch(/The agent warned.*mcp_server_unavailable/);
      // What a host shows: the hook's answer has a warning part each, useChat's a data part each, AG-UI a CUSTOM event each.
      const log = events as unknown as SwitchboardEvent[];
      const [answer] = messagesOf(log.reduce(applyEvent, emptyConversation()), new Map()).filter(
        (m) => m.role === 'assistant',
      );
      expect(answer?.parts.filter((p) => p.type === 'warning').map((p) => 'source' in p && p.source)).toEqual(
        ['gone', 'locked'],
      );
      const agui = new AguiTranslator('thread', 'run', {
        text: new Map(),
        toolCalls: new Set(),
        toolResults: new Set(),
      });
      const custom = log
        .flatMap((event) => agui.translate(event as never).events)
        .filter((e) => e.type === 'CUSTOM');
      expect(custom).toEqual([
        expect.objectContaining({
          name: 'switchboard.warning',
          value: expect.objectContaining({ source: 'gone' }),
        }),
        expect.objectContaining({
          name: 'switchboard.warning',
          value: expect.objectContaining({ source: 'locked' }),
        }),
      ]);
      const mapper = new ChunkMapper(undefined, new Map());
      const chunks = log.flatMap((event, i) => mapper.map(event, i === log.length - 1));
      expect(chunks.filter((c) => c.type === 'data-switchboard-warning')).toEqual([
        expect.objectContaining({
          data: expect.objectContaining({ code: 'mcp_server_unavailable', source: 'gone' }),
        }),
        expect.objectContaining({
          data: expect.objectContaining({ code: 'mcp_server_unavailable', source: 'locked' }),
        }),
      ]);
    },
  );

  it('offers only the tools of the allowlist, and warns of a name in it the server does not list', async () => {
    const from = model.requests.length;
    const events = await turn('ws', sid('allow'), 'hello', 'mcp-allow');
    expect(of(events, 'agent.warning')).toEqual([
      expect.objectContaining({
        code: 'mcp_tool_left_out',
        message:
          'Tools of the MCP server "docs" are not offered: nope (named in the agent\'s settings, but the server does not list it).',
      }),
    ]);
    expect(toolNames(bodiesSince(from)[0]).filter((n) => n.startsWith('docs__'))).toEqual([
      'docs__search',
      'docs__publish',
    ]);
  });

  it('sends the headers of a secret, which no log or event shows', async () => {
    const id = sid('secret');
    const calls = guardedSeen.calls.length;
    const events = await turn('ws', id, 'search the docs', 'mcp-secret');
    expect(guardedSeen.calls.slice(calls)).toEqual([{ tool: 'search', args: { query: 'sla' } }]);
    expect(
      guarded.requests.filter((r) => r.status === 200).every((r) => r.headers['x-docs-key'] === DOCS_KEY),
    ).toBe(true);
    expect(text(events)).toBe('The SLA page is the one.');
    const log = await api(sandbox.url, 'GET', `/api/sessions/${id}/events`);
    expect(log.text).not.toContain(DOCS_KEY);
    expect(printed.text()).not.toContain(DOCS_KEY);
  });

  it('reads a list again once the server says it changed', async () => {
    const from = model.requests.length;
    await turn('ws', sid('changed-1'), 'hello');
    expect(toolNames(bodiesSince(from)[0])).not.toContain('docs__status');
    for (const server of docs.sessions.values())
      server.registerTool('status', { description: 'The status page', inputSchema: {} }, async () => ({
        content: [{ type: 'text', text: 'green' }],
      }));
    await expect
      .poll(async () => {
        const at = model.requests.length;
        await turn('ws', sid(`changed-${at}`), 'hello');
        return toolNames(bodiesSince(at)[0]);
      }, queued('the new tool offered'))
      .toContain('docs__status');
  });
});
