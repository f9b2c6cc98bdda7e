import { ToolLoopAgent, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  chatCompletionsAgentRegistration,
  createSwitchboard,
  customAgentRegistration,
  type HostAgentRegistration,
  responsesAgentRegistration,
  sdkAgentRegistration,
} from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { call, say, scriptedModel } from '../support/ai-sdk-model.ts';
import { MODEL_KEY, MODEL_SCRIPT, modelAgent, refunds } from '../support/model-agents.ts';
import { api, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * Per-request agents of every kind: a tenant's own custom agent, Chat Completions and Responses
 * model agents, and AI SDK agent come from the per-request registry, built with the kind's
 * registration function, and work as the registered ones do (a turn, a pause and its answer).
 */
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  carol: { user: 'carol', tenant: 'globex' },
};
let model: ScriptedModel;
let sandbox: Sandbox;
const sid = sessionIds('kinds');
const sdkRefunds: unknown[] = [];

beforeAll(async () => {
  model = await startScriptedModel({ script: MODEL_SCRIPT, apiKey: MODEL_KEY });
  const sdk = scriptedModel({
    'hello sdk': [say('Hello from ', 'acme’s SDK agent.')],
    'refund sdk': [call([{ id: 'refund_sdk', name: 'refund', input: { order: '9' } }]), say('Refunded.')],
  });
  const acme = (): HostAgentRegistration[] => {
    return [
      customAgentRegistration({
        info: { id: 'acme-faq' },
        handler: async ({ message, context }) => ({ content: `${context.data.tenant} says: ${message}` }),
      }),
      chatCompletionsAgentRegistration(modelAgent('acme-chat', model.baseURL)),
      responsesAgentRegistration(modelAgent('acme-responses', model.baseURL)),
      sdkAgentRegistration({
        info: { id: 'acme-sdk' },
        agent: new ToolLoopAgent({
          model: sdk.model,
          tools: {
            refund: tool({
              description: 'Refund an order',
              inputSchema: z.object({ order: z.string() }),
              needsApproval: true,
              execute: async ({ order }) => {
                sdkRefunds.push(order);
                return { refunded: order };
              },
            }),
          },
        }),
      }),
    ];
  };
  const app = createSwitchboard({ agents: (ctx) => (ctx.data.tenant === 'acme' ? acme() : []) });
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
});
afterAll(async () => {
  await sandbox?.close();
  await model?.close();
});

const as = (token: string, method: string, path: string, body?: unknown) =>
  api(sandbox.url, method, path, body, { token });

type Event = { type: string; run_id?: unknown; data: Record<string, unknown> };

/** A run's events as alice reads them, once the run has ended (idle, or waiting on a request). */
async function eventsOf(id: string, runId: unknown): Promise<Event[]> {
  let events: Event[] = [];
  await expect
    .poll(
      async () => {
        const res = await as('alice', 'GET', `/api/sessions/${id}/events?after=0&limit=1000`);
        events = (res.json.events as Event[]).filter((e) => e.run_id === runId);
        return events.some(
          (e) => e.type === 'session.status_idle' || e.type === 'session.status_requires_action',
        );
      },
      queued(`the end of run ${String(runId)}`),
    )
    .toBe(true);
  return events;
}

const finalOf = (events: Event[]) => events.filter((e) => e.type === 'final_response').at(-1)?.data;

describe('per-request agents of every kind', () => {
  it('lists each kind for the tenant whose registry gives them, and none for another tenant', async () => {
    const alice = await as('alice', 'GET', '/api/agents');
    expect((alice.json.agents as { id: string }[]).map((a) => a.id)).toEqual([
      'acme-faq',
      'acme-chat',
      'acme-responses',
      'acme-sdk',
    ]);
    const carol = await as('carol', 'POST', '/api/chat', {
      session_id: sid('carol'),
      agent_id: 'acme-chat',
      content: 'hello model',
    });
    expect(carol).toMatchObject({ status: 404, json: { error: { code: 'agent_not_found' } } });
  });

  it.each([
    ['acme-faq', 'hi there', 'acme says: hi there'],
    ['acme-chat', 'hello model', 'Hello there!'],
    ['acme-responses', 'hello model', 'Hello there!'],
    ['acme-sdk', 'hello sdk', 'Hello from acme’s SDK agent.'],
  ])('answers a turn with %s', async (agentId, content, answer) => {
    const id = sid(agentId);
    const res = await as('alice', 'POST', '/api/chat', {
      session_id: id,
      agent_id: agentId,
      content,
      wait_ms: 20_000,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ content: answer, stop_reason: 'end_turn' });
  });

  it.each([
    ['acme-chat', 'refund order 7', 'The refund is done.'],
    ['acme-responses', 'refund order 8', 'The refund is done.'],
    ['acme-sdk', 'refund sdk', 'Refunded.'],
  ])(
    'pauses %s on an approval and hands the answer to the same kind of agent',
    async (agentId, content, done) => {
      const id = sid(`${agentId}-approval`);
      const before = refunds.length + sdkRefunds.length;
      const sent = await as('alice', 'POST', '/api/chat', { session_id: id, agent_id: agentId, content });
      expect(sent.status, sent.text).toBe(202);
      const asked = await eventsOf(id, sent.json.run_id);
      const actions = asked.find((e) => e.type === 'action.required')?.data.actions as
        | { id: string; type: string }[]
        | undefined;
      const request = actions?.[0];
      expect(request).toMatchObject({ type: 'tool_approval' });
      const approved = await as('alice', 'POST', `/api/sessions/${id}/actions/${request?.id}`, {
        decision: 'approve',
      });
      expect(approved.status, approved.text).toBe(202);
      const events = await eventsOf(id, approved.json.run_id);
      expect(finalOf(events)).toMatchObject({ content: done, stop_reason: 'end_turn' });
      expect(refunds.length + sdkRefunds.length).toBe(before + 1);
    },
  );
});
