import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { ToolLoopAgent } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { type LocalMcpServer, startMcpServer } from '../../sandbox/mcp-server.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { call, say, scriptedModel } from '../support/ai-sdk-model.ts';
import { docsTools, type ServerSeen } from '../support/mcp.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, sendTurn, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * An AI SDK agent brings its MCP tools itself (the AI SDK's own MCP client, `@ai-sdk/mcp`): they are
 * tools of its ToolLoopAgent like any other, so Switchboard's events, approvals and cancel hold for
 * them as for the agent's other tools (docs/models.md, "Tools from MCP servers").
 */
const seen: ServerSeen = { calls: [], waits: [] };
let docs: LocalMcpServer;
let mcp: MCPClient | undefined;
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('mcp-sdk');

beforeAll(async () => {
  docs = await startMcpServer({ tools: docsTools(seen) });
  const { model } = scriptedModel({
    'search via mcp': [
      call([{ id: 'sdk_search', name: 'search', input: { query: 'sla' } }]),
      say('Found it.'),
    ],
    'publish via mcp': [
      call([{ id: 'sdk_publish', name: 'publish', input: { page: 'home' } }]),
      say('It is out.'),
    ],
    'wait via mcp': [call([{ id: 'sdk_wait', name: 'wait', input: {} }]), say('Never said.')],
  });
  const app = createSwitchboard();
  app.registerSDKAgent({
    info: { id: 'sdk-mcp' },
    agent: async () => {
      mcp ??= await createMCPClient({ transport: { type: 'http', url: docs.url } });
      const { publish, ...tools } = await mcp.tools();
      if (!publish) throw new Error('The server lists no publish tool.');
      // The team decides which of the server's tools a person approves, as for its own tools.
      return new ToolLoopAgent({ model, tools: { ...tools, publish: { ...publish, needsApproval: true } } });
    },
  });
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 300 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await mcp?.close();
  await docs?.close();
});

const of = (events: Frame[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);

describe('an AI SDK agent with the AI SDK’s MCP client', () => {
  it('reports its MCP tool’s call and result as the agent’s other tools', async () => {
    const calls = seen.calls.length;
    const { events, end } = await sendTurn(host, sid('search'), 'search via mcp', { agent_id: 'sdk-mcp' });
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(seen.calls.slice(calls)).toEqual([{ tool: 'search', args: { query: 'sla' } }]);
    expect(of(events, 'agent.tool_use')).toEqual([
      expect.objectContaining({ id: 'sdk_search', name: 'search', args: { query: 'sla' } }),
    ]);
    expect(of(events, 'agent.tool_result')).toEqual([
      expect.objectContaining({ id: 'sdk_search', name: 'search', ok: true }),
    ]);
  });

  it('asks approval for the MCP tool the team marked, and runs it once approved', async () => {
    const id = sid('publish');
    const calls = seen.calls.length;
    const first = await sendTurn(host, id, 'publish via mcp', { agent_id: 'sdk-mcp' });
    expect(first.end.type).toBe('session.status_requires_action');
    const [asked] = of(first.events, 'action.required').flatMap(
      (d) => d.actions as Record<string, unknown>[],
    );
    expect(asked).toMatchObject({ type: 'tool_approval', toolName: 'publish', args: { page: 'home' } });
    expect(seen.calls.slice(calls)).toEqual([]);
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/${asked?.id}`, {
      decision: 'approve',
    });
    expect(res.status, res.text).toBe(202);
    const end = await host.waitFor(turnEnded(res.json.run_id, id), 'the end of the resolve run');
    expect(end.data).toMatchObject({ status: 'completed' });
    expect(seen.calls.slice(calls)).toEqual([{ tool: 'publish', args: { page: 'home' } }]);
  });

  it('cancels a turn whose MCP call is in flight', async () => {
    const id = sid('wait');
    const waits = seen.waits.length;
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'sdk-mcp',
      content: 'wait via mcp',
    });
    await expect.poll(() => seen.waits.length, queued('the call on the server')).toBe(waits + 1);
    expect((await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`)).status).toBe(202);
    const end = await host.waitFor(turnEnded(accepted.run_id as string, id), 'the end of the turn');
    expect(end.data).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
  });
});
