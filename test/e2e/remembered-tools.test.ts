import { ToolLoopAgent, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createClient, SwitchboardApiError, type WebSocketConstructor } from '../../client/index.ts';
import { PutItem, Query } from '../../lib/aws/index.ts';
import { createSwitchboard, type ModelTool } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { call, say, scriptedModel } from '../support/ai-sdk-model.ts';
import { MODEL_KEY } from '../support/model-agents.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, type LoggedEvent, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * Remembered tools: an approval answered with `remember_for_session: true` lets the later calls of
 * its tool in the same session run without asking (their `agent.tool_use` says `remembered: true`),
 * for the agents whose loop the runtime runs (Chat Completions, Responses, the AI SDK adapter). The
 * session's list is read and forgotten over HTTP, by its owner only; a host agent's stays empty.
 */

/** The payments the model agents' `pay` tool made, in order. */
const paid: unknown[] = [];
/** The refunds the SDK agent's `refund` tool made, in order. */
const refunds: unknown[] = [];

const AMOUNT = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
const pay: ModelTool = {
  name: 'pay',
  description: 'Pay an amount',
  parameters: { ...AMOUNT, additionalProperties: false },
  // An approved call is checked against this: at most 100.
  approval: {
    title: 'Pay this?',
    argsSchema: {
      type: 'object',
      properties: { amount: { type: 'number', maximum: 100 } },
      required: ['amount'],
      additionalProperties: false,
    },
  },
  execute: (args) => {
    paid.push(args);
    return { paid: (args as { amount: number }).amount };
  },
};

/** What the scripted model answers: a call of `pay` per message, then a word on its result. */
const PAY_SCRIPT = {
  rules: [
    ...[5, 6, 7, 8, 9, 500].map((amount) => ({
      match: `pay ${amount} `,
      on: 'user' as const,
      reply: { toolCalls: [{ name: 'pay', arguments: { amount } }] },
    })),
    { tool: 'pay', match: 'error', reply: { text: 'It could not be paid.' } },
    { tool: 'pay', reply: { text: 'Paid.' } },
  ],
};

/** The SDK agent's model: each session's script is named by its first message. */
function sdkScripts() {
  const scripts: Parameters<typeof scriptedModel>[0] = {};
  for (const via of ['http', 'ws']) {
    scripts[`remember sdk ${via}`] = [
      call([{ id: `r1_${via}`, name: 'refund', input: { order: '1', amount: 5 } }]),
      say('Refunded.'),
      call([{ id: `r2_${via}`, name: 'refund', input: { order: '2', amount: 6 } }]),
      say('Refunded again.'),
      call([{ id: `r3_${via}`, name: 'refund', input: { order: '3', amount: 7 } }]),
      say('Refunded once more.'),
    ];
    scripts[`elsewhere sdk ${via}`] = [
      call([{ id: `r4_${via}`, name: 'refund', input: { order: '4', amount: 8 } }]),
      say('Refunded.'),
    ];
  }
  return scripts;
}

const TOKENS: Record<string, { user: string }> = { alice: { user: 'alice' }, bob: { user: 'bob' } };
const pauses = pauseAgents();
let model: ScriptedModel;
let sandbox: Sandbox;
let socket: TestSocket;
const sid = sessionIds('remember');

beforeAll(async () => {
  model = await startScriptedModel({ script: PAY_SCRIPT, apiKey: MODEL_KEY });
  const app = createSwitchboard();
  const agent = (id: string) => ({
    info: { id },
    baseURL: model.baseURL,
    apiKey: MODEL_KEY,
    model: 'scripted-small',
    tools: [pay],
  });
  app.registerChatCompletionsAgent(agent('chat'));
  app.registerResponsesAgent(agent('responses'));
  const sdkModel = scriptedModel(sdkScripts()).model;
  const refund = tool({
    description: 'Refund an order',
    inputSchema: z.object({ order: z.string(), amount: z.number().positive().max(25) }),
    needsApproval: true,
    execute: async ({ order, amount }) => {
      refunds.push({ order, amount });
      return { refunded: amount };
    },
  });
  app.registerSDKAgent({
    info: { id: 'sdk' },
    agent: new ToolLoopAgent({ model: sdkModel, tools: { refund } }),
  });
  app.registerHostAgent(pauses.definitions[0]!);
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
  socket = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
});
afterAll(async () => {
  await socket?.close();
  await sandbox?.close();
  await model?.close();
});

type Via = 'http' | 'ws';
const as = (token: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

/** The events of one run, once it has ended, as the transport delivers them. */
async function eventsOf(via: Via, sessionId: string, runId: unknown): Promise<LoggedEvent[]> {
  if (via === 'ws') {
    await socket.waitFor(turnEnded(runId, sessionId), `the end of run ${String(runId)}`);
    return socket.events(sessionId).filter((e) => e.run_id === runId) as unknown as LoggedEvent[];
  }
  let events: LoggedEvent[] = [];
  await expect
    .poll(
      async () => {
        const res = await as('alice', 'GET', `/api/sessions/${sessionId}/events?after=0&limit=1000`);
        events = (res.json.events as LoggedEvent[]).filter((e) => e.run_id === runId);
        return events.some((e) => TURN_ENDS.includes(e.type));
      },
      queued(`the end of run ${String(runId)}`),
    )
    .toBe(true);
  return events;
}

/** Alice's message to `agentId`, and its run's events once it has ended. */
async function send(via: Via, sessionId: string, agentId: string, content: string) {
  if (via === 'ws') {
    const accepted = await socket.request({
      action: 'assistant_message',
      session_id: sessionId,
      agent_id: agentId,
      content,
    });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    return eventsOf(via, sessionId, accepted.run_id);
  }
  const res = await as('alice', 'POST', '/api/chat', { session_id: sessionId, agent_id: agentId, content });
  expect(res.status, res.text).toBe(202);
  return eventsOf(via, sessionId, res.json.run_id);
}

/** Alice's answer to a request, and the events of the run that hands it to the agent. */
async function answer(via: Via, sessionId: string, actionId: string, body: Record<string, unknown>) {
  if (via === 'ws') {
    const accepted = await socket.request({
      action: 'assistant_resolve_action',
      session_id: sessionId,
      action_id: actionId,
      ...body,
    });
    expect(accepted.run_id, JSON.stringify(accepted)).toBeDefined();
    return eventsOf(via, sessionId, accepted.run_id);
  }
  const res = await as('alice', 'POST', `/api/sessions/${sessionId}/actions/${actionId}`, body);
  expect(res.status, res.text).toBe(202);
  return eventsOf(via, sessionId, res.json.run_id);
}

const ofType = (events: LoggedEvent[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.data);
/** The approval a run asked, if it asked one. */
const asked = (events: LoggedEvent[]) =>
  ((ofType(events, 'action.required')[0]?.actions ?? []) as Record<string, unknown>[])[0];
const TURN_ENDS = ['session.status_idle', 'session.status_requires_action'];
const lastEnd = (events: LoggedEvent[]) => events.filter((e) => TURN_ENDS.includes(e.type)).at(-1)?.type;
const remembered = async (sessionId: string, token = 'alice') =>
  as(token, 'GET', `/api/sessions/${sessionId}/remembered-tools`);

describe.each([
  ['chat', 'http'],
  ['responses', 'ws'],
] as const)('a %s agent, answered over %s', (agentId, via) => {
  it('runs a tool approved with remember_for_session without asking for the rest of the session, and asks again once it is forgotten', async () => {
    const id = sid(`${agentId}-${via}`);
    const first = await send(via, id, agentId, 'pay 5 now');
    const request = asked(first);
    expect(request).toMatchObject({ type: 'tool_approval', toolName: 'pay', args: { amount: 5 } });
    expect((await remembered(id)).json).toEqual({ session_id: id, tools: [] });

    const approved = await answer(via, id, request?.id as string, {
      decision: 'approve',
      remember_for_session: true,
    });
    // The approved call itself was asked: its tool_use does not say remembered.
    expect(ofType(approved, 'agent.tool_use')).toEqual([
      expect.not.objectContaining({ remembered: expect.anything() }),
    ]);
    expect(lastEnd(approved)).toBe('session.status_idle');
    const listed = await remembered(id);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({
      session_id: id,
      tools: [{ name: 'pay', remembered_at: expect.any(String), actor: 'alice' }],
    });
    const rememberedAt = (listed.json.tools as { remembered_at: string }[])[0]?.remembered_at ?? '';
    expect(Number.isNaN(Date.parse(rememberedAt))).toBe(false);

    // A later call runs at once, with the arguments the model wrote, and says so.
    const before = paid.length;
    const later = await send(via, id, agentId, 'pay 6 more');
    expect(asked(later)).toBeUndefined();
    expect(lastEnd(later)).toBe('session.status_idle');
    expect(ofType(later, 'agent.tool_use')).toEqual([
      expect.objectContaining({ name: 'pay', args: { amount: 6 }, remembered: true }),
    ]);
    expect(ofType(later, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'pay', ok: true, result: { paid: 6 } }),
    ]);
    expect(paid.slice(before)).toEqual([{ amount: 6 }]);

    // Arguments the approval's argsSchema refuses are not run: the model reads the error.
    const refused = await send(via, id, agentId, 'pay 500 please');
    expect(asked(refused)).toBeUndefined();
    expect(ofType(refused, 'agent.tool_use')).toEqual([
      expect.objectContaining({ name: 'pay', args: { amount: 500 }, remembered: true }),
    ]);
    expect(ofType(refused, 'agent.tool_result')).toEqual([
      expect.objectContaining({ name: 'pay', ok: false, error: expect.stringMatching(/do not fit/) }),
    ]);
    expect(paid.slice(before)).toEqual([{ amount: 6 }]);

    // Another session of the same owner and agent asks again.
    const other = sid(`${agentId}-${via}-other`);
    const elsewhere = await send(via, other, agentId, 'pay 7 there');
    expect(asked(elsewhere)).toMatchObject({ type: 'tool_approval', toolName: 'pay', args: { amount: 7 } });
    expect((await remembered(other)).json).toEqual({ session_id: other, tools: [] });

    // Forgotten, the tool asks again; forgetting it twice is a 404.
    const forgot = await as('alice', 'DELETE', `/api/sessions/${id}/remembered-tools/pay`);
    expect({ status: forgot.status, text: forgot.text }).toEqual({ status: 204, text: '' });
    expect((await remembered(id)).json).toEqual({ session_id: id, tools: [] });
    const again = await as('alice', 'DELETE', `/api/sessions/${id}/remembered-tools/pay`);
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({
      error: { code: 'tool_not_remembered', issues: [{ path: ['name'] }] },
    });
    const asksAgain = await send(via, id, agentId, 'pay 8 again');
    expect(asked(asksAgain)).toMatchObject({ type: 'tool_approval', toolName: 'pay', args: { amount: 8 } });
  });

  it('remembers nothing for an approval answered without remember_for_session, or denied with it', async () => {
    const id = sid(`${agentId}-${via}-plain`);
    const first = await send(via, id, agentId, 'pay 5 now');
    await answer(via, id, asked(first)?.id as string, { decision: 'approve' });
    const second = await send(via, id, agentId, 'pay 6 more');
    const denied = await answer(via, id, asked(second)?.id as string, {
      decision: 'deny',
      remember_for_session: true,
    });
    expect(lastEnd(denied)).toBe('session.status_idle');
    expect((await remembered(id)).json).toEqual({ session_id: id, tools: [] });
    const third = await send(via, id, agentId, 'pay 7 then');
    expect(asked(third)).toMatchObject({ type: 'tool_approval', toolName: 'pay' });
  });
});

describe.each(['http', 'ws'] as const)('an AI SDK agent, answered over %s', (via) => {
  it('runs a remembered tool’s next call without asking, through the SDK’s own approval', async () => {
    const id = sid(`sdk-${via}`);
    const first = await send(via, id, 'sdk', `remember sdk ${via}`);
    const request = asked(first);
    expect(request).toMatchObject({ type: 'tool_approval', toolName: 'refund' });
    await answer(via, id, request?.id as string, { decision: 'approve', remember_for_session: true });
    expect((await remembered(id)).json).toEqual({
      session_id: id,
      tools: [{ name: 'refund', remembered_at: expect.any(String), actor: 'alice' }],
    });

    const before = refunds.length;
    const later = await send(via, id, 'sdk', 'and order 2');
    expect(asked(later)).toBeUndefined();
    expect(lastEnd(later)).toBe('session.status_idle');
    expect(ofType(later, 'agent.tool_use')).toEqual([
      expect.objectContaining({
        id: `r2_${via}`,
        name: 'refund',
        args: { order: '2', amount: 6 },
        remembered: true,
      }),
    ]);
    expect(ofType(later, 'agent.tool_result')).toEqual([
      expect.objectContaining({ id: `r2_${via}`, ok: true, result: { refunded: 6 } }),
    ]);
    expect(ofType(later, 'final_response').at(-1)).toMatchObject({ content: 'Refunded again.' });
    expect(refunds.slice(before)).toEqual([{ order: '2', amount: 6 }]);

    // Another session asks.
    const other = sid(`sdk-${via}-other`);
    const elsewhere = await send(via, other, 'sdk', `elsewhere sdk ${via}`);
    expect(asked(elsewhere)).toMatchObject({ type: 'tool_approval', toolName: 'refund' });

    // Forgotten, it asks again.
    expect((await as('alice', 'DELETE', `/api/sessions/${id}/remembered-tools/refund`)).status).toBe(204);
    const asksAgain = await send(via, id, 'sdk', 'and order 3');
    expect(asked(asksAgain)).toMatchObject({ type: 'tool_approval', toolName: 'refund' });
    expect(ofType(asksAgain, 'agent.tool_use')).toEqual([
      expect.not.objectContaining({ remembered: expect.anything() }),
    ]);
  });
});

describe('a host agent', () => {
  it('gets rememberForSession in the resolution and decides for itself: the server remembers nothing', async () => {
    const id = sid('host');
    const first = await send('http', id, 'pauser', 'wire');
    expect(asked(first)).toMatchObject({ id: 'req_wire', toolName: 'wire_money' });
    await answer('http', id, 'req_wire', { decision: 'approve', remember_for_session: true });
    const handed = pauses.resolved.findLast((r) => r.actionId === 'req_wire');
    expect(handed?.resolution).toMatchObject({ decision: 'approve', rememberForSession: true });
    expect((await remembered(id)).json).toEqual({ session_id: id, tools: [] });
    const forgot = await as('alice', 'DELETE', `/api/sessions/${id}/remembered-tools/wire_money`);
    expect(forgot.json).toMatchObject({ error: { code: 'tool_not_remembered' } });
  });
});

describe('the routes', () => {
  it('are behind the ownership gate: another user’s session is session_not_found, and nothing of it changes', async () => {
    const id = sid('gate');
    const first = await send('http', id, 'chat', 'pay 5 now');
    await answer('http', id, asked(first)?.id as string, { decision: 'approve', remember_for_session: true });
    for (const [method, path] of [
      ['GET', `/api/sessions/${id}/remembered-tools`],
      ['DELETE', `/api/sessions/${id}/remembered-tools/pay`],
      ['GET', '/api/sessions/never-made/remembered-tools'],
      ['DELETE', '/api/sessions/never-made/remembered-tools/pay'],
    ] as const) {
      const res = await as('bob', method, path);
      expect(
        { status: res.status, code: (res.json.error as { code?: string })?.code },
        `${method} ${path}`,
      ).toEqual({
        status: 404,
        code: 'session_not_found',
      });
    }
    expect(((await remembered(id)).json.tools as unknown[]).length).toBe(1);
  });

  it('records the tool once: a retry of the approval (the same request id) keeps its time and actor', async () => {
    const id = sid('retry');
    const first = await send('http', id, 'chat', 'pay 5 now');
    const path = `/api/sessions/${id}/actions/${asked(first)?.id as string}`;
    const body = { id: 'req_remember_once', decision: 'approve', remember_for_session: true };
    const sent = await as('alice', 'POST', path, body);
    expect(sent.json).toMatchObject({ duplicate: false });
    await eventsOf('http', id, sent.json.run_id);
    const before = (await remembered(id)).json;
    const retried = await as('alice', 'POST', path, body);
    expect(retried.json).toMatchObject({ duplicate: true, run_id: sent.json.run_id });
    expect((await remembered(id)).json).toEqual(before);
    expect((before.tools as unknown[]).length).toBe(1);
  });

  it('go with the session: a deleted session’s remembered tools are gone with it', async () => {
    const id = sid('deleted');
    const first = await send('http', id, 'chat', 'pay 5 now');
    await answer('http', id, asked(first)?.id as string, { decision: 'approve', remember_for_session: true });
    expect(((await remembered(id)).json.tools as unknown[]).length).toBe(1);
    const partition = async () => {
      const { Items = [] } = await sandbox.runtime.db.send(
        new Query({
          TableName: sandbox.runtime.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.session(refOf(id, 'alice')).pk },
        }),
      );
      return Items.map((item) => String(item.sk));
    };
    expect(await partition()).toContain(keys.rememberedTool(refOf(id, 'alice'), 'pay').sk);
    expect((await as('alice', 'DELETE', `/api/sessions/${id}`)).status).toBe(202);
    expect((await remembered(id)).json).toMatchObject({ error: { code: 'session_not_found' } });
    // The session's items, the remembered tool among them, are deleted with it.
    await expect.poll(partition, queued('the deletion of the session')).toEqual([]);
  });

  it('never take an item a former session of the same id left behind (one DynamoDB’s TTL did not remove)', async () => {
    const id = sid('stale');
    const first = await send('http', id, 'chat', 'pay 5 now');
    const ref = refOf(id, 'alice');
    await sandbox.runtime.db.send(
      new PutItem({
        TableName: sandbox.runtime.table,
        Item: {
          ...keys.rememberedTool(ref, 'pay'),
          type: 'remembered_tool',
          name: 'pay',
          rememberedAt: '2020-01-01T00:00:00.000Z',
          actor: 'someone-before',
          sessionCreatedAt: '2020-01-01T00:00:00.000Z',
        },
      }),
    );
    expect((await remembered(id)).json).toEqual({ session_id: id, tools: [] });
    const forgot = await as('alice', 'DELETE', `/api/sessions/${id}/remembered-tools/pay`);
    expect(forgot.json).toMatchObject({ error: { code: 'tool_not_remembered' } });
    await answer('http', id, asked(first)?.id as string, { decision: 'deny' });
    const second = await send('http', id, 'chat', 'pay 6 more');
    expect(asked(second)).toMatchObject({ type: 'tool_approval', toolName: 'pay' });
    // Remembered now, the session's own record replaces the old one.
    await answer('http', id, asked(second)?.id as string, {
      decision: 'approve',
      remember_for_session: true,
    });
    const listed = (await remembered(id)).json.tools as { actor: string; remembered_at: string }[];
    expect(listed).toEqual([{ name: 'pay', remembered_at: expect.any(String), actor: 'alice' }]);
    expect(listed[0]?.remembered_at).not.toBe('2020-01-01T00:00:00.000Z');
  });

  it('are the client’s session.rememberedTools() and session.forgetTool(name)', async () => {
    const id = sid('client');
    const first = await send('http', id, 'chat', 'pay 5 now');
    await answer('http', id, asked(first)?.id as string, { decision: 'approve', remember_for_session: true });
    const client = createClient({
      url: sandbox.url,
      wsUrl: sandbox.wsUrl,
      token: 'alice',
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    try {
      const session = client.session(id);
      expect(await session.rememberedTools()).toEqual({
        session_id: id,
        tools: [{ name: 'pay', remembered_at: expect.any(String), actor: 'alice' }],
      });
      await session.forgetTool('pay');
      expect((await session.rememberedTools()).tools).toEqual([]);
      const error = await session.forgetTool('pay').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SwitchboardApiError);
      expect(error).toMatchObject({ status: 404, code: 'tool_not_remembered' });
    } finally {
      client.close();
    }
  });
});
