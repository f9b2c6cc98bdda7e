import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutItem } from '../../lib/aws/index.ts';
import type { MetricDimensions, MetricName } from '../../lib/config/index.ts';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

/** Streams two pieces of text and reports a cost; a message `fail` makes it throw instead. */
const metered: HostAgentDefinition = {
  info: { id: 'metered' },
  budget: { sessionUsd: 0.3 },
  async invoke({ message }, { emit }) {
    if (message === 'fail') throw new Error('the backend is down');
    emit({ type: 'text', text: 'Counting ' });
    emit({ type: 'text', text: 'along.' });
    return { content: 'Counting along.', usage: { costUsd: 0.25 } };
  },
};

const app = createSwitchboard();
app.registerHostAgent(metered);
for (const agent of pauseAgents().definitions) app.registerHostAgent(agent);
const sid = sessionIds('metrics');
let sandbox: Sandbox;
let host: TestSocket;

beforeAll(async () => {
  sandbox = await testSandbox({ app });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

/** The total of a metric the functions published so far. */
const total = (name: MetricName, dimensions?: MetricDimensions) => sandbox.metrics.sum(name, dimensions);

/** Waits until a metric's total has grown by `by` from `from` (metrics are published once a turn has ended). */
async function grows(name: MetricName, from: number, by: number, dimensions?: MetricDimensions) {
  await expect
    .poll(() => total(name, dimensions) - from, queued(`${name} to grow by ${by}`))
    .toBeGreaterThanOrEqual(by);
  return total(name, dimensions) - from;
}

/** Sends a message over the socket and waits for its turn's end. */
async function say(id: string, content: string, agent = 'metered') {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: id,
    agent_id: agent,
    content,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  return host.waitFor(turnEnded(accepted.run_id), 'the end of the turn');
}

/** Every counter's total, to compare before and after. */
const counters = () =>
  Object.fromEntries(
    (['TurnsStarted', 'TurnsCompleted', 'TurnsFailed', 'EventsSent', 'CostUsd'] as const).map((n) => [
      n,
      total(n),
    ]),
  );

describe('metrics of a turn, read back from the sandbox', () => {
  it('counts a completed turn: started, ended by stop reason, its events, bytes, durations and cost', async () => {
    const before = counters();
    const endTurn = total('TurnsEnded', { StopReason: 'end_turn' });
    const [durations, firsts, bytes] = [
      sandbox.metrics.values('TurnDuration').length,
      sandbox.metrics.values('TimeToFirstEvent').length,
      total('BytesSent'),
    ];
    const end = await say(sid('done'), 'hello');
    expect(end.data).toMatchObject({ stop_reason: 'end_turn' });

    expect(await grows('TurnsEnded', endTurn, 1, { StopReason: 'end_turn' })).toBe(1);
    expect(total('TurnsStarted') - (before.TurnsStarted ?? 0)).toBe(1);
    expect(total('TurnsCompleted') - (before.TurnsCompleted ?? 0)).toBe(1);
    expect(total('TurnsFailed') - (before.TurnsFailed ?? 0)).toBe(0);
    expect(sandbox.metrics.values('TurnDuration')).toHaveLength(durations + 1);
    expect(sandbox.metrics.values('TimeToFirstEvent')).toHaveLength(firsts + 1);
    expect(total('CostUsd') - (before.CostUsd ?? 0)).toBeCloseTo(0.25, 6);
    // Every event of the turn reached the one socket joined to it (running, the user's message, the
    // text, the answer, idle), and the bytes posted are at least those of its frames.
    const events = host.events().filter((f) => f.run_id === end.run_id).length;
    expect(await grows('EventsSent', before.EventsSent ?? 0, events)).toBe(events);
    expect(total('BytesSent') - bytes).toBeGreaterThan(0);
  });

  it('counts a turn whose agent threw as failed, with stop reason error', async () => {
    const [failed, byReason, completed] = [
      total('TurnsFailed'),
      total('TurnsEnded', { StopReason: 'error' }),
      total('TurnsCompleted'),
    ];
    const end = await say(sid('fail'), 'fail');
    expect(end.data).toMatchObject({ status: 'error', stop_reason: 'error' });
    expect(await grows('TurnsFailed', failed, 1)).toBe(1);
    expect(total('TurnsEnded', { StopReason: 'error' }) - byReason).toBe(1);
    expect(total('TurnsCompleted') - completed).toBe(0);
  });

  it('counts a pause opened, answered, and another that lapsed and was expired by the sweep', async () => {
    const [opened, resolved, expired] = [
      total('PendingActionsOpened'),
      total('PendingActionsResolved'),
      total('PendingActionsExpired'),
    ];
    const id = sid('pause');
    await say(id, 'wire', 'pauser');
    expect(await grows('PendingActionsOpened', opened, 1)).toBe(1);
    const answer = await host.request({
      action: 'assistant_resolve_action',
      session_id: id,
      action_id: 'req_wire',
      decision: 'approve',
    });
    expect(answer.type, JSON.stringify(answer)).toBe('assistant:resolved');
    await host.waitFor(turnEnded(answer.run_id), 'the end of the answer');
    expect(await grows('PendingActionsResolved', resolved, 1)).toBe(1);

    await say(sid('lapse'), 'lapsed', 'pauser');
    await sandbox.sweep();
    expect(await grows('PendingActionsExpired', expired, 1)).toBe(1);
    expect(total('PendingActionsResolved') - resolved).toBe(1);
  });

  it('counts a message refused for its budget', async () => {
    const refusals = total('BudgetRefusals');
    const id = sid('budget');
    await say(id, 'one');
    await say(id, 'two');
    // $0.50 spent of $0.30: the next message is refused before anything is stored.
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: id,
      agent_id: 'metered',
      content: 'three',
    });
    expect(res.status).toBe(402);
    expect(await grows('BudgetRefusals', refusals, 1)).toBe(1);
  });

  it('counts a post to a connection API Gateway no longer knows as Gone', async () => {
    const gone = total('PostToConnectionGone');
    const id = sid('ghost');
    await say(id, 'first');
    // A connection the table still lists but the gateway no longer knows: its $disconnect never came.
    await sandbox.runtime.db.send(
      new PutItem({
        TableName: sandbox.runtime.table,
        Item: { ...keys.subscriber(refOf(id), 'ghostConn='), type: 'subscriber', connectionId: 'ghostConn=' },
      }),
    );
    await say(id, 'second');
    // Once: the gone connection's records are removed at its first 410.
    expect(await grows('PostToConnectionGone', gone, 1)).toBe(1);
  });

  it('serves the totals at GET /sandbox/metrics, by metric and stop reason', async () => {
    const before = total('TurnsEnded', { StopReason: 'end_turn' });
    await say(sid('served'), 'hello');
    // The worker publishes after the turn's end reaches the socket: wait for this turn's own count.
    await grows('TurnsEnded', before, 1, { StopReason: 'end_turn' });
    const documentsBefore = sandbox.metrics.documents.length;
    const res = await api(sandbox.url, 'GET', '/sandbox/metrics');
    expect(res.status).toBe(200);
    const served = res.json as { documents: number; totals: Record<string, number> };
    // Another invocation (the sweep) may publish between the two reads, never take one away.
    expect(served.documents).toBeGreaterThanOrEqual(documentsBefore);
    expect(served.documents).toBeLessThanOrEqual(sandbox.metrics.documents.length);
    expect(served.totals['TurnsEnded{StopReason=end_turn}']).toBe(
      total('TurnsEnded', { StopReason: 'end_turn' }),
    );
    expect(served.totals.TurnsStarted).toBe(total('TurnsStarted'));
  });

  it('publishes CloudWatch embedded metric format: the Switchboard namespace, the service dimension, units', () => {
    const document = sandbox.metrics.documents.find((d) => 'TurnsEnded' in d);
    expect(document?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'Switchboard',
      Dimensions: [['service', 'StopReason']],
      Metrics: [{ Name: 'TurnsEnded', Unit: 'Count' }],
    });
    const timed = sandbox.metrics.documents.find((d) => 'TurnDuration' in d);
    expect(timed?._aws.CloudWatchMetrics[0]?.Metrics).toContainEqual({
      Name: 'TurnDuration',
      Unit: 'Milliseconds',
    });
    expect(timed).toMatchObject({ service: 'switchboard' });
  });
});
