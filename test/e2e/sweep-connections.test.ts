import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testSandbox } from '../support/sandbox.ts';
import { TestSocket } from '../support/ws-client.ts';

const HOUR_MS = 3_600_000;
let sandbox: Sandbox;
let offset = 0;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({ info: { id: 'quiet' }, invoke: async () => ({}) });
  sandbox = await testSandbox({
    app,
    clock: () => Date.now() + offset,
    // Only the test's own sweeps: a timed one running when the test sweeps would be the one it awaits.
    sweepPeriodMs: 3_600_000,
    // Every management API call fails (a 5xx, past the SDK's retries) while the test turns faults on.
    faults: { seed: 1, rates: { connections: { error: 1 } } },
  });
  faults().enabled = false;
});
afterAll(async () => {
  await sandbox?.close();
});

function faults() {
  if (!sandbox.faults) throw new Error('the sandbox was started without faults');
  return sandbox.faults;
}

const recordOf = async (connectionId: string) =>
  (
    await sandbox.runtime.db.send(
      new GetItem({
        TableName: sandbox.runtime.table,
        Key: keys.connection(connectionId),
        ConsistentRead: true,
      }),
    )
  ).Item;

describe('the sweep and a connection past its lifetime', () => {
  it('keeps its record while closing it fails, and closes it and removes the record on the next sweep', async () => {
    const before = new Set(sandbox.connections());
    const socket = await TestSocket.open(sandbox.wsUrl);
    const [connectionId] = sandbox.connections().filter((id) => !before.has(id));
    if (!connectionId) throw new Error('the socket has no connection');
    expect(await recordOf(connectionId)).toBeDefined();
    offset = 2 * HOUR_MS + 60_000;
    try {
      faults().enabled = true;
      await sandbox.sweep().finally(() => {
        faults().enabled = false;
      });
      // The close failed: the connection is still open, and its record still says so.
      expect(sandbox.connections()).toContain(connectionId);
      expect(await recordOf(connectionId)).toBeDefined();
      await sandbox.sweep();
      expect(sandbox.connections()).not.toContain(connectionId);
      expect(await recordOf(connectionId)).toBeUndefined();
    } finally {
      offset = 0;
      await socket.close().catch(() => undefined);
    }
  });
});
