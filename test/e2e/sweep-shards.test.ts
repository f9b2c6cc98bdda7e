import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem, UpdateItem } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import {
  dueBucket,
  getAction,
  getRun,
  keys,
  messageId,
  putRun,
  type RunRecord,
} from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

const HOUR_MS = 3_600_000;
const SHARDS = 4;
const pauses = pauseAgents();
const app = createSwitchboard();
for (const d of pauses.definitions) app.registerHostAgent(d);
let sandbox: Sandbox;
let offset = 0;
const sid = sessionIds('shards');

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    clock: () => Date.now() + offset,
    // Only the test's own sweeps.
    sweepPeriodMs: 3_600_000,
    settings: { sweep: { dueShards: SHARDS } },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

type Key = { pk: string; sk: string };

const itemOf = async (key: Key) =>
  (
    await sandbox.runtime.db.send(
      new GetItem({ TableName: sandbox.runtime.table, Key: key, ConsistentRead: true }),
    )
  ).Item;

/**
 * Moves an item to its hour's unsharded bucket, as the code before shards wrote it: what a
 * deployment updated in place finds in its table.
 */
async function unshard(key: Key): Promise<void> {
  const item = await itemOf(key);
  const sharded = String(item?.gsi1pk);
  expect(sharded).toMatch(new RegExp(`^DUE#(run|conn|act)#\\d{4}-\\d\\d-\\d\\dT\\d\\d#[0-${SHARDS - 1}]$`));
  const due = Number(String(item?.gsi1sk).split('#')[0]);
  const legacy = dueBucket(sharded.split('#')[1] as string, due);
  expect(sharded.startsWith(`${legacy}#`)).toBe(true);
  await sandbox.runtime.db.send(
    new UpdateItem({
      TableName: sandbox.runtime.table,
      Key: key,
      UpdateExpression: 'SET gsi1pk = :legacy',
      ExpressionAttributeValues: { ':legacy': legacy },
    }),
  );
}

/** A queued run whose job was lost (never sent), accepted ten minutes ago: due for the sweep. */
function lostRun(sessionId: string, runId: string): RunRecord {
  return {
    runId,
    sessionId,
    requestId: runId,
    agentId: 'pauser',
    userMessageId: messageId(runId, 0),
    assistantMessageId: messageId(runId, 1),
    status: 'queued',
    createdAt: new Date(Date.now() - 10 * 60_000).toISOString(),
    kind: 'turn',
  };
}

/** A session whose request lapsed, with its pause open: its request is due for the sweep. */
async function lapsedPause(socket: TestSocket, id: string): Promise<void> {
  const accepted = await socket.request({
    action: 'assistant_message',
    session_id: id,
    agent_id: 'pauser',
    content: 'lapsed',
  });
  expect(accepted.type).toBe('assistant:accepted');
  await expect
    .poll(
      async () => (await getAction(sandbox.runtime, refOf(id), 'req_lapsed'))?.status,
      queued('the pause'),
    )
    .toBe('pending');
}

describe('the sweep over sharded due buckets', () => {
  it('after an in-place update, sweeps the runs, requests and connections written unsharded before it, beside those written since', async () => {
    const rt = sandbox.runtime;
    const before = new Set(sandbox.connections());
    const sockets = [await TestSocket.open(sandbox.wsUrl), await TestSocket.open(sandbox.wsUrl)];
    const [oldConnection, newConnection] = sandbox.connections().filter((c) => !before.has(c));
    if (!oldConnection || !newConnection) throw new Error('the sockets have no connections');
    const [oldSession, newSession] = [sid('old'), sid('new')];
    await lapsedPause(sockets[0] as TestSocket, oldSession);
    await lapsedPause(sockets[1] as TestSocket, newSession);
    const oldRun = 'run_01M8Y0000000000000000000OL';
    const newRun = 'run_01M8Y0000000000000000000NW';
    await putRun(rt, lostRun(refOf(oldSession), oldRun));
    await putRun(rt, lostRun(refOf(newSession), newRun));

    // What the deployment before shards left in flight.
    await unshard(keys.connection(oldConnection));
    await unshard(keys.action(refOf(oldSession), 'req_lapsed'));
    await unshard(keys.run(refOf(oldSession), oldRun));

    // Past the connections' two hours: everything staged is due.
    offset = 2 * HOUR_MS + 60_000;
    try {
      await sandbox.sweep();
      for (const [id, runId] of [
        [oldSession, oldRun],
        [newSession, newRun],
      ] as const) {
        const action = await getAction(rt, refOf(id), 'req_lapsed');
        expect(action).toMatchObject({ status: 'resolved', actor: 'system:timeout', expired: true });
        await expect
          .poll(async () => (await getRun(rt, refOf(id), runId))?.status, queued('the requeued run'))
          .toBe('completed');
      }
      for (const connectionId of [oldConnection, newConnection]) {
        expect(sandbox.connections()).not.toContain(connectionId);
        expect(await itemOf(keys.connection(connectionId))).toBeUndefined();
      }
    } finally {
      offset = 0;
      await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    }
  });
});
