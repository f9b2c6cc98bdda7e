import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isStepCount, streamText, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseDetail } from '../../lib/events/index.ts';
import { createSwitchboard, type ModelAgentDefinition } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { cliAgainst } from '../support/cli.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * Budgets stop the loops Switchboard runs before the model call that would spend past them: the
 * Chat Completions / Responses loop and the AI SDK adapter ask `io.budgetLeft()` (the room read when
 * the run started, less this turn's usage so far) before each model call. Every call here costs
 * $0.03, so a $0.05 budget is reached by the second call, and the third is never made.
 */
const CALL_USD = 0.03;
const SCRIPT = {
  rules: [
    {
      match: 'spend',
      on: 'user' as const,
      reply: {
        text: 'Looking. ',
        toolCalls: [{ name: 'weather', arguments: { city: 'Lyon' } }],
        usage: { promptTokens: 30_000, completionTokens: 0, cachedTokens: 0 },
      },
    },
    {
      // One call that spends $0.06 and asks to refund: the pause keeps requires_action.
      match: 'refund',
      on: 'user' as const,
      reply: {
        text: 'Refunding. ',
        toolCalls: [{ name: 'refund', arguments: { order: 7 } }],
        usage: { promptTokens: 60_000, completionTokens: 0, cachedTokens: 0 },
      },
    },
    { tool: 'refund', reply: { text: 'Refunded.' } },
    {
      tool: 'weather',
      reply: {
        text: 'Still looking. ',
        toolCalls: [{ name: 'weather', arguments: { city: 'Lyon' } }],
        usage: { promptTokens: 30_000, completionTokens: 0, cachedTokens: 0 },
      },
    },
  ],
};

/** A model agent on the scripted model that calls `weather` on every step (up to 10 calls). */
const looping = (
  id: string,
  api: 'chat' | 'responses',
  baseURL: string,
  extra: Partial<ModelAgentDefinition> = {},
) => ({
  info: { id },
  baseURL,
  apiKey: 'sk-budget',
  model: 'scripted-small',
  tools: [
    {
      name: 'weather',
      parameters: z.object({ city: z.string() }),
      execute: (args: unknown) => ({ ...(args as object), sky: 'grey' }),
    },
    {
      name: 'refund',
      parameters: z.object({ order: z.number() }),
      needsApproval: true,
      execute: (args: unknown) => ({ ...(args as object), refunded: true }),
    },
  ],
  pricing: { 'scripted-small': { input: 1, output: 2 } },
  ...extra,
  api,
});

/** The AI SDK's mock model: every step calls `lookup` and reports 10 input tokens ($0.03 at the price below). */
const sdkCalls: { aborted: boolean }[] = [];
const sdkModel = new MockLanguageModelV4({
  modelId: 'budget-mock',
  doStream: async (options) => {
    // A provider's fetch made with an aborted signal sends nothing: only the others reach the endpoint.
    sdkCalls.push({ aborted: options.abortSignal?.aborted ?? false });
    const n = sdkCalls.length;
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: `Step ${n}. ` },
      { type: 'text-end', id: 't' },
      { type: 'tool-call', toolCallId: `lookup_${n}`, toolName: 'lookup', input: '{}' },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: undefined },
          outputTokens: { total: 0, text: 0, reasoning: undefined },
        },
      },
    ];
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  },
});
const sdkTools = { lookup: tool({ inputSchema: z.object({}), execute: async () => ({ found: false }) }) };

/** What the host agent's `io.budgetLeft()` answered, call by call. */
const hostLefts: unknown[] = [];
let model: ScriptedModel;
let sandbox: Sandbox;
const sid = sessionIds('budget-loop');

beforeAll(async () => {
  model = await startScriptedModel({ script: SCRIPT, apiKey: 'sk-budget' });
  const app = createSwitchboard({ pricing: { 'budget-mock': { input: 3000, output: 0 } } });
  for (const kind of ['chat', 'responses'] as const) {
    const register = (d: ModelAgentDefinition) =>
      kind === 'chat' ? app.registerChatCompletionsAgent(d) : app.registerResponsesAgent(d);
    register(looping(`${kind}-capped`, kind, model.baseURL, { budget: { sessionUsd: 0.05 } }));
    register(looping(`${kind}-daily`, kind, model.baseURL));
  }
  app.registerHostAgent({
    info: { id: 'host-capped' },
    budget: { sessionUsd: 0.05 },
    async invoke(_input, io) {
      // A host agent's own loop asks the same question before each of its model calls.
      for (let step = 1; step <= 10; step++) {
        const left = await io.budgetLeft();
        hostLefts.push(left);
        if (left && left.usd <= 0) return { stopReason: 'budget_reached' };
        io.emit({ type: 'text', text: `Call ${step}. ` });
        io.emit({ type: 'usage', usage: { costUsd: CALL_USD } });
      }
      return {};
    },
  });
  app.registerSDKAgent({
    info: { id: 'sdk-capped' },
    budget: { sessionUsd: 0.05 },
    agent: new ToolLoopAgent({ model: sdkModel, tools: sdkTools, stopWhen: isStepCount(10) }),
  });
  app.registerSDKAgent({
    info: { id: 'sdk-stream-capped' },
    budget: { sessionUsd: 0.05 },
    stream: ({ messages, abortSignal, onStepStart }) =>
      streamText({
        model: sdkModel,
        messages,
        tools: sdkTools,
        abortSignal,
        onStepStart,
        stopWhen: isStepCount(10),
      }),
  });
  sandbox = await testSandbox({
    app,
    // Every test spends as its own owner: `token` is the user, `user@tenant` with a tenant.
    tokens: (token) => {
      const [user = '', tenant] = token.split('@');
      return { user, ...(tenant && { tenant }) };
    },
    settings: { budgets: { perUserDailyUsd: 0.1, perTenantDailyUsd: 0.2 } },
  });
});
afterAll(async () => {
  await sandbox?.close();
  await model?.close();
});

const as = (user: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token: user });

/** Sends a message and waits for its turn's final response. */
const say = (user: string, id: string, agentId: string, content: string) =>
  as(user, 'POST', '/api/chat', { session_id: id, agent_id: agentId, content, wait_ms: 20_000 });

describe.each(['chat', 'responses'] as const)('the %s loop at a budget', (kind) => {
  it('stops before the third model call once the second reached the session budget: budget_reached, the text kept, then 402', async () => {
    const user = `alice-${kind}`;
    const id = sid(`session-${kind}`);
    const from = model.requests.length;
    const res = await say(user, id, `${kind}-capped`, 'spend it');
    expect(res.status, res.text).toBe(200);
    // Two model calls: the first left $0.02, the second brought the spend to $0.06.
    expect(model.requests.length - from).toBe(2);
    expect(res.json).toMatchObject({
      content: 'Looking. Still looking. ',
      stop_reason: 'budget_reached',
      usage: { costUsd: 2 * CALL_USD },
    });
    const session = await as(user, 'GET', `/api/sessions/${id}`);
    expect(session.json).toMatchObject({ spent_usd: 2 * CALL_USD });
    const next = await say(user, id, `${kind}-capped`, 'spend more');
    expect(next).toMatchObject({
      status: 402,
      json: { error: { code: 'budget_exceeded', scope: 'session', budget_usd: 0.05 } },
    });
    expect(model.requests.length - from).toBe(2);
  });

  it('stops the loop at the owner’s rolling-day limit the same way, from the run’s start-of-turn read', async () => {
    const user = `bob-${kind}`;
    const from = model.requests.length;
    // $0.10 a day: four calls ($0.12) reach it, the fifth is not made.
    const res = await say(user, sid(`daily-${kind}`), `${kind}-daily`, 'spend it');
    expect(res.status, res.text).toBe(200);
    expect(model.requests.length - from).toBe(4);
    expect(res.json).toMatchObject({ stop_reason: 'budget_reached', usage: { costUsd: 4 * CALL_USD } });
    expect(res.json.content).toBe(`Looking. ${'Still looking. '.repeat(3)}`);
    // Any new message of that owner, in a new session too, is refused.
    const next = await say(user, sid(`daily-next-${kind}`), `${kind}-daily`, 'spend more');
    expect(next).toMatchObject({ status: 402, json: { error: { code: 'budget_exceeded', scope: 'user' } } });
    expect(model.requests.length - from).toBe(4);
  });
});

describe('a host agent’s own loop', () => {
  it('reads what is left with io.budgetLeft(): the session’s budget less this turn’s usage so far', async () => {
    const res = await say('fay', sid('host'), 'host-capped', 'go');
    expect(res.json).toMatchObject({ content: 'Call 1. Call 2. ', stop_reason: 'budget_reached' });
    expect(hostLefts).toEqual([
      { scope: 'session', usd: 0.05 },
      { scope: 'session', usd: 0.02 },
      { scope: 'session', usd: -0.01 },
    ]);
  });
});

describe('an answer after the budget was reached', () => {
  it('is taken and its tool runs, but the loop makes no model call: the turn ends with budget_reached', async () => {
    const user = 'erin';
    const id = sid('answer');
    const from = model.requests.length;
    const asked = await say(user, id, 'chat-capped', 'refund order 7');
    expect(asked.json).toMatchObject({ stop_reason: 'requires_action', usage: { costUsd: 0.06 } });
    const action =
      (asked.json.pending_actions as { id: string }[] | undefined)?.[0] ?? (await pendingOf(user, id));
    const answered = await as(user, 'POST', `/api/sessions/${id}/actions/${action.id}`, {
      decision: 'approve',
    });
    expect(answered.status, answered.text).toBeLessThan(300);
    await expect
      .poll(
        async () => (await as(user, 'GET', `/api/sessions/${id}`)).json.status,
        queued('the answer’s turn'),
      )
      .toBe('idle');
    const messages = (await as(user, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      role: string;
      stop_reason?: string;
      tool_calls?: unknown[];
    }[];
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', stop_reason: 'budget_reached' });
    // The approved tool ran; the model was not called after it.
    expect(JSON.stringify(messages.at(-1))).toContain('refunded');
    expect(model.requests.length - from).toBe(1);
  });
});

/** The session's one open request. */
async function pendingOf(user: string, id: string): Promise<{ id: string }> {
  const session = await as(user, 'GET', `/api/sessions/${id}`);
  return (session.json.pending_actions as { id: string }[])[0] as { id: string };
}

describe('the tenant’s rolling-day limit', () => {
  it('stops the loop of the tenant’s other owner where the tenant’s day runs out: budget_reached, then 402 for the tenant', async () => {
    const from = model.requests.length;
    // The first owner spends $0.12 of the tenant's $0.20 (its own day stops it at four calls).
    expect((await say('gil@initech', sid('tenant-1'), 'chat-daily', 'spend it')).json).toMatchObject({
      stop_reason: 'budget_reached',
      usage: { costUsd: 4 * CALL_USD },
    });
    // The second has $0.10 of its own, but the tenant only $0.08 left: three calls reach it.
    const second = await say('hal@initech', sid('tenant-2'), 'chat-daily', 'spend it');
    expect(second.json).toMatchObject({ stop_reason: 'budget_reached', usage: { costUsd: 3 * CALL_USD } });
    expect(model.requests.length - from).toBe(7);
    const third = await say('ivy@initech', sid('tenant-3'), 'chat-daily', 'spend it');
    expect(third).toMatchObject({
      status: 402,
      json: { error: { code: 'budget_exceeded', scope: 'tenant' } },
    });
  });
});

describe.each([
  ['an AI SDK agent', 'sdk-capped'],
  ['a streamText function', 'sdk-stream-capped'],
])('%s at a budget', (_what, agentId) => {
  it('aborts before the third step: the provider is not called, budget_reached, the text kept, then 402', async () => {
    const user = `carol-${agentId}`;
    const id = sid(agentId);
    sdkCalls.length = 0;
    const res = await say(user, id, agentId, 'spend it');
    expect(res.status, res.text).toBe(200);
    // The third step starts with its signal aborted: a provider sends nothing then.
    expect(sdkCalls.filter((c) => !c.aborted)).toHaveLength(2);
    expect(sdkCalls.length).toBeLessThanOrEqual(3);
    expect(res.json).toMatchObject({
      content: 'Step 1. Step 2. ',
      stop_reason: 'budget_reached',
      usage: { costUsd: 2 * CALL_USD },
    });
    const next = await say(user, id, agentId, 'spend more');
    expect(next).toMatchObject({
      status: 402,
      json: { error: { code: 'budget_exceeded', scope: 'session' } },
    });
  });
});

describe('switchboard budget: one session’s budget raised without a deployment', () => {
  const audits = () =>
    sandbox
      .events()
      .filter((e) => e.detailType === 'Operator Action')
      .map((e) => parseDetail('Operator Action', e.detail));

  it('adds to the session’s budget with an audit event: the stopped turn is carried on, and the loop stops at the new budget', async () => {
    const user = 'dana';
    const id = sid('raised');
    const from = model.requests.length;
    expect((await say(user, id, 'chat-capped', 'spend it')).json).toMatchObject({
      stop_reason: 'budget_reached',
    });
    expect((await say(user, id, 'chat-capped', 'spend more')).status).toBe(402);
    const added = await cliAgainst(
      sandbox.url,
      'budget',
      id,
      '--user',
      user,
      '--add-usd',
      '0.03',
      '--reason',
      'ticket 42',
      '--by',
      'ops-ann',
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    const ref = refOf(id, user);
    expect(added.json()).toMatchObject({
      session: ref,
      owner: user,
      addedUsd: 0.03,
      budgetAddedUsd: 0.03,
      spentUsd: 0.06,
      audit: 'published',
    });
    expect(audits().find((a) => a.session === ref)).toMatchObject({
      version: 1,
      action: 'session_budget_added',
      operator: 'ops-ann',
      owner: user,
      tenant: null,
      reason: 'ticket 42',
      sessions: 1,
      addedUsd: 0.03,
    });
    expect(added.stderr).toContain('"action":"session_budget_added"');
    expect((await as(user, 'GET', `/api/sessions/${id}`)).json).toMatchObject({
      budget_usd: 0.08,
      spent_usd: 0.06,
    });
    // $0.08 now: the stopped turn is carried on, and its next call ($0.09) reaches the budget; the
    // owner's day ($0.10) still has room.
    const continued = await as(user, 'POST', `/api/sessions/${id}/continue`);
    expect(continued.status, continued.text).toBe(202);
    const lastRun = async () =>
      (await as(user, 'GET', `/api/sessions/${id}`)).json.last_run as {
        id: string;
        status: string;
        stop_reason: string;
      };
    await expect.poll(async () => (await lastRun()).status, queued('the continued turn')).toBe('incomplete');
    expect(await lastRun()).toMatchObject({ id: continued.json.run_id, stop_reason: 'budget_reached' });
    expect(model.requests.length - from).toBe(3);
    expect((await say(user, id, 'chat-capped', 'and more')).status).toBe(402);
    expect((await as(user, 'POST', `/api/sessions/${id}/continue`)).status).toBe(402);
  });

  it('refuses an amount that is not a positive number (exit 2), and a session that does not exist (exit 1)', async () => {
    for (const amount of ['0', '-1', 'lots', 'Infinity'])
      expect(
        (await cliAgainst(sandbox.url, 'budget', 'some-session', '--user', 'u', '--add-usd', amount)).code,
      ).toBe(2);
    expect((await cliAgainst(sandbox.url, 'budget', 'some-session', '--user', 'u')).code).toBe(2);
    const missing = await cliAgainst(
      sandbox.url,
      'budget',
      sid('missing'),
      '--user',
      'nobody',
      '--add-usd',
      '1',
      '--json',
    );
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('session_not_found');
  });
});
