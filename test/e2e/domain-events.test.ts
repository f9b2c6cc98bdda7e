import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_PERMISSIONS, type Permissions } from '../../lib/config/index.ts';
import { type DetailType, EVENT_SOURCE, parseDetail } from '../../lib/events/index.ts';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import type { ReceivedEvent } from '../../sandbox/event-bus.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

const WIRE = {
  type: 'tool_approval' as const,
  toolName: 'wire_money',
  title: 'Wire $5?',
  args: { amount: 5 },
};
const MINUTE = 60_000;

/** Agents whose message says what to do: pause (lapsing when), fail, or spend past their budget. */
function agents(): HostAgentDefinition[] {
  return [
    {
      info: { id: 'approver' },
      async invoke({ message }) {
        const lapse = { wire: undefined, lapsed: -1_000, soon: 2 * MINUTE }[message];
        return {
          content: 'I need your OK first.',
          pendingActions: [
            {
              ...WIRE,
              id: `req_${message}`,
              ...(lapse !== undefined && { expiresAt: new Date(Date.now() + lapse).toISOString() }),
            },
          ],
        };
      },
      async resolveAction({ resolution }) {
        return { content: `resolved: ${String(resolution.decision)}` };
      },
    },
    {
      info: { id: 'failing' },
      async invoke() {
        throw new Error('the backend is down');
      },
    },
    {
      info: { id: 'spender' },
      budget: { sessionUsd: 1 },
      async invoke() {
        return { content: 'spent', usage: { costUsd: 2 } };
      },
    },
  ];
}

function appOf() {
  const app = createSwitchboard();
  for (const definition of agents()) app.registerHostAgent(definition);
  return app;
}

const sid = sessionIds('de');

/** Sends a message; returns the accepted run's id. */
async function say(box: Sandbox, id: string, agent: string, content: string): Promise<string> {
  const res = await api(box.url, 'POST', '/api/chat', { session_id: id, agent_id: agent, content });
  expect(res.status, res.text).toBe(202);
  return res.json.run_id as string;
}

/** The events of one session (by its host id) of one detail-type, once `count` of them arrived. */
async function eventsOf(box: Sandbox, id: string, type: DetailType, count = 1): Promise<ReceivedEvent[]> {
  const of = () =>
    box
      .events()
      .filter((e) => e.detailType === type && (e.detail as { sessionId?: string }).sessionId === id);
  await expect.poll(() => of().length, queued(`${count} "${type}" of ${id}`)).toBeGreaterThanOrEqual(count);
  return of();
}

describe('domain events on the bus', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await testSandbox({ app: appOf(), settings: { events: { expiringLeadMinutes: 5 } } });
  });
  afterAll(async () => {
    await box?.close();
  });

  it('announces a pause with the ids to answer it, and its answer, given at the path the event names', async () => {
    const id = sid('answer');
    const runId = await say(box, id, 'approver', 'wire');
    const [opened] = await eventsOf(box, id, 'Pause Opened');
    expect(opened).toMatchObject({ source: EVENT_SOURCE, bus: 'switchboard-events' });
    const detail = parseDetail('Pause Opened', opened?.detail);
    expect(detail).toMatchObject({
      sessionId: id,
      sessionRef: refOf(id),
      owner: 'anonymous',
      tenant: null,
      agentId: 'approver',
      runId,
      actionId: 'req_wire',
      kind: 'tool_approval',
      request: WIRE,
      requestOmitted: false,
    });
    expect(Date.parse(detail.expiresAt)).toBeGreaterThan(Date.now());

    const answered = await api(box.url, 'POST', detail.answerPath, { decision: 'approve' });
    expect(answered.status, answered.text).toBe(202);
    const [resolved] = await eventsOf(box, id, 'Pause Resolved');
    expect(parseDetail('Pause Resolved', resolved?.detail)).toMatchObject({
      actionId: 'req_wire',
      status: 'resolved',
      actor: 'anonymous',
      channel: 'api',
      decision: 'approve',
      answerPath: detail.answerPath,
    });
  });

  it('announces a lapse the sweep applied', async () => {
    const id = sid('lapse');
    await say(box, id, 'approver', 'lapsed');
    await eventsOf(box, id, 'Pause Opened');
    await box.sweep();
    const [lapsed] = await eventsOf(box, id, 'Pause Lapsed');
    expect(parseDetail('Pause Lapsed', lapsed?.detail)).toMatchObject({
      actionId: 'req_lapsed',
      agentId: 'approver',
      outcome: expect.stringMatching(/^(denied|withdrawn)$/),
    });
    // A lapsed request is not announced as lapsing.
    expect(
      box.events().filter((e) => e.detailType === 'Pause Expiring' && JSON.stringify(e.detail).includes(id)),
    ).toEqual([]);
  });

  it('announces a request that lapses within the lead once, however many sweeps see it', async () => {
    const id = sid('soon');
    const far = sid('far');
    await say(box, id, 'approver', 'soon');
    // The default expiry (hitl.timeoutMinutes) is far beyond the five-minute lead.
    await say(box, far, 'approver', 'wire');
    await eventsOf(box, id, 'Pause Opened');
    await eventsOf(box, far, 'Pause Opened');
    await box.sweep();
    await box.sweep();
    const expiring = await eventsOf(box, id, 'Pause Expiring');
    expect(expiring).toHaveLength(1);
    expect(parseDetail('Pause Expiring', expiring[0]?.detail)).toMatchObject({
      actionId: 'req_soon',
      leadMinutes: 5,
    });
    expect(
      box.events().filter((e) => e.detailType === 'Pause Expiring' && JSON.stringify(e.detail).includes(far)),
    ).toEqual([]);
  });

  it('announces a failed turn with its error', async () => {
    const id = sid('fail');
    const runId = await say(box, id, 'failing', 'hello');
    const [failed] = await eventsOf(box, id, 'Turn Failed');
    expect(parseDetail('Turn Failed', failed?.detail)).toMatchObject({
      agentId: 'failing',
      runId,
      status: 'error',
      stopReason: 'error',
      error: { code: expect.any(String) },
    });
  });

  it('announces a budget a turn reached, with the limit and what was spent', async () => {
    const id = sid('budget');
    const runId = await say(box, id, 'spender', 'hello');
    const [reached] = await eventsOf(box, id, 'Budget Reached');
    expect(parseDetail('Budget Reached', reached?.detail)).toMatchObject({
      agentId: 'spender',
      runId,
      scope: 'session',
      limitUsd: 1,
      turnCostUsd: 2,
      sessionSpentUsd: 2,
    });
  });

  it('refuses a PutEvents call past 10 entries or 256 KB, and a malformed entry, as EventBridge does', async () => {
    const client = await box.runtime.events();
    const entry = { EventBusName: 'switchboard-events', Source: 'test', DetailType: 'Probe', Detail: '{}' };
    await expect(
      client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry) })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    const big = { ...entry, Detail: JSON.stringify({ pad: 'x'.repeat(140 * 1024) }) };
    await expect(client.send(new PutEventsCommand({ Entries: [big, big] }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    const answer = await client.send(
      new PutEventsCommand({ Entries: [entry, { ...entry, Detail: 'not json' }] }),
    );
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries?.[1]).toMatchObject({ ErrorCode: 'MalformedDetail' });
  });
});

describe('when publishing fails', () => {
  let box: Sandbox;
  // The worker's role without events:PutEvents: every event it publishes is refused.
  const permissions: Permissions = {
    ...FUNCTION_PERMISSIONS,
    worker: FUNCTION_PERMISSIONS.worker.filter((grant) => grant.resource !== 'eventBus'),
  };
  beforeAll(async () => {
    box = await testSandbox({ app: appOf(), permissions });
  });
  afterAll(async () => {
    await box?.close();
  });

  it('the turn still pauses and its answer is still taken: the refused event is only logged', async () => {
    const id = sid('refused');
    await say(box, id, 'approver', 'wire');
    await expect
      .poll(async () => (await api(box.url, 'GET', `/api/sessions/${id}`)).json.status, queued('the pause'))
      .toBe('requires_action');
    expect(box.events()).toEqual([]);
    const answered = await api(box.url, 'POST', `/api/sessions/${id}/actions/req_wire`, { decision: 'deny' });
    expect(answered.status, answered.text).toBe(202);
    // The HTTP function may publish: its event arrives, the worker's never did.
    const resolved = await eventsOf(box, id, 'Pause Resolved');
    expect(resolved).toHaveLength(1);
    expect(box.events().map((e) => e.detailType)).toEqual(['Pause Resolved']);
  });

  it('counts each refused event in EventsNotPublished, the metric the construct alarms on', async () => {
    const before = box.metrics.sum('EventsNotPublished');
    await say(box, sid('counted'), 'approver', 'wire');
    // The worker's Pause Opened is refused; metrics are published once its turn has ended.
    await expect
      .poll(() => box.metrics.sum('EventsNotPublished') - before, queued('the refused event counted'))
      .toBe(1);
  });
});
