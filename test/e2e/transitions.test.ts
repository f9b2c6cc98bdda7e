import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem, PutItem, TableClient } from '../../lib/aws/index.ts';
import type { Runtime } from '../../lib/config/index.ts';
import { ACTION_ENDS, ACTION_TRANSITIONS } from '../../lib/store/action-machine.ts';
import { RUN_ENDS, RUN_TRANSITIONS } from '../../lib/store/run-machine.ts';
import { applyTransition } from '../../lib/store/table.ts';
import type { Transition } from '../../lib/store/types.ts';
import {
  type LocalServices,
  SANDBOX_CREDENTIALS,
  SANDBOX_NAMES,
  SANDBOX_REGION,
  startLocalServices,
} from '../../sandbox/services.ts';

/**
 * Each transition against the sandbox's DynamoDB: from every status it leaves it is applied, the
 * same write sent again (the SDK's retry of a lost answer) is applied again, and a writer that
 * meets an item in another status is refused with the item as it was, without a read.
 */

const NOW = 1_800_000_000_000;
const LATER = NOW + 60_000;

/** For each transition: what the item holds for its guard to pass, and the values one writer writes. */
interface Case {
  item?: Record<string, unknown>;
  values: Record<string, unknown>;
  /** Another writer's values: when it enters a status, its write is refused once this one's is applied. */
  other?: Record<string, unknown>;
}

const RUN_CASES = {
  claim: {
    values: { startedAt: 'a1', leaseOwner: 'w1', leaseExpiresAt: LATER },
    other: { startedAt: 'a2', leaseOwner: 'w2', leaseExpiresAt: LATER },
  },
  finish: {
    item: { leaseOwner: 'w1' },
    values: { stopReason: 'end_turn', endedAt: 'e1', error: null, usage: null, leaseOwner: 'w1' },
    other: { stopReason: 'error', endedAt: 'e2', error: null, usage: null, leaseOwner: 'w1' },
  },
  keepResume: {
    item: { leaseOwner: 'w1' },
    values: { resume: '{"loop":1}', resumeKey: null, stoppedIn: null, leaseOwner: 'w1' },
  },
  renew: { item: { leaseOwner: 'w1' }, values: { leaseExpiresAt: LATER, leaseOwner: 'w1' } },
  takeOver: {
    item: { leaseOwner: 'w0', leaseExpiresAt: NOW - 1 },
    values: { leaseOwner: 'w1', leaseExpiresAt: LATER, now: NOW },
    other: { leaseOwner: 'w2', leaseExpiresAt: LATER + 1, now: NOW },
  },
  cancel: { values: { cancelRequested: 'user' } },
  interrupt: {
    values: { cancelRequested: 'user', interruptedBy: 'r1' },
    other: { cancelRequested: 'user', interruptedBy: 'r2' },
  },
  steer: { values: { steeredInto: 'r1', endedAt: 'e1' }, other: { steeredInto: 'r2', endedAt: 'e1' } },
  postpone: { values: { gsi1pk: 'DUE#x', gsi1sk: '1' } },
  requeue: { values: { gsi1pk: 'DUE#x', gsi1sk: '1', requeues: 1 } },
  abandon: {
    values: { stopReason: 'error', endedAt: 'e1', error: { code: 'job_lost', message: 'm' } },
    other: { stopReason: 'error', endedAt: 'e2', error: { code: 'job_lost', message: 'm' } },
  },
} satisfies Record<keyof typeof RUN_TRANSITIONS, Case>;

const decision = {
  resolution: null,
  resolutionBlobKey: null,
  channel: 'api',
  expired: false,
  decidedBy: null,
  now: NOW,
};
const ACTION_CASES = {
  answer: {
    item: { expiresAt: LATER },
    values: { ...decision, actor: 'u1', resolvedAt: 'r1' },
    other: { ...decision, actor: 'u2', resolvedAt: 'r1' },
  },
  decide: {
    values: { ...decision, actor: 'u1', resolvedAt: 'r1' },
    other: { ...decision, actor: 'u2', resolvedAt: 'r2' },
  },
  promote: {
    values: { expiresAt: LATER, gsi1pk: 'DUE#x', gsi1sk: '1' },
    other: { expiresAt: LATER + 1, gsi1pk: 'DUE#x', gsi1sk: '2' },
  },
  announceExpiring: {
    item: { expiresAt: LATER },
    values: { expiringAnnouncedAt: 'n1', expiresAt: LATER },
    other: { expiringAnnouncedAt: 'n2', expiresAt: LATER },
  },
} satisfies Record<keyof typeof ACTION_TRANSITIONS, Case>;

let services: LocalServices;
let rt: Runtime;
beforeAll(async () => {
  services = await startLocalServices({});
  const client = new TableClient({
    endpoint: services.dynamodbEndpoint,
    region: SANDBOX_REGION,
    credentials: SANDBOX_CREDENTIALS,
    maxAttempts: 3,
  });
  // What the store's writes use of a runtime: its table and its client.
  rt = { db: client, table: SANDBOX_NAMES.table } as unknown as Runtime;
});
afterAll(async () => {
  rt?.db.destroy();
  await services?.stop();
});

let n = 0;
async function put(status: string, item: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  n += 1;
  const key = { pk: 'TRANSITIONS', sk: `ITEM#${n}` };
  await rt.db.send(new PutItem({ TableName: rt.table, Item: { ...key, ...item, status } }));
  return key;
}
const read = async (key: Record<string, unknown>) =>
  (await rt.db.send(new GetItem({ TableName: rt.table, Key: key, ConsistentRead: true }))).Item;

const machines = [
  { name: 'run', transitions: RUN_TRANSITIONS, cases: RUN_CASES, ends: RUN_ENDS },
  { name: 'request', transitions: ACTION_TRANSITIONS, cases: ACTION_CASES, ends: ACTION_ENDS },
] as const;

describe.each(machines)('each $name transition, in DynamoDB', ({ transitions, cases, ends }) => {
  const all = Object.entries(transitions as Record<string, Transition>).map(
    ([name, t]) => [name, t, (cases as Record<string, Case>)[name]!] as const,
  );

  it('is applied from every status it leaves, and again when the same write is sent again', async () => {
    const tries = all.flatMap(([name, t, c]) =>
      t.from.flatMap((from) =>
        (t.to ?? [undefined]).map((to) => ({ name: `${name} from ${from}`, t, c, from, to })),
      ),
    );
    await Promise.all(
      tries.map(async ({ name, t, c, from, to }) => {
        const key = await put(from, c.item);
        const first = await applyTransition(rt, t, key, c.values, { to });
        expect(first.applied, name).toBe(true);
        expect(first.item, name).toMatchObject({ status: to ?? from });
        for (const removed of t.remove ?? []) expect(first.item, name).not.toHaveProperty(removed);
        const retry = await applyTransition(rt, t, key, c.values, { to });
        expect(retry, `${name}, sent again`).toEqual({ applied: true, item: first.item });
      }),
    );
  });

  it('refuses another writer once it changed the status, answering the item as it was', async () => {
    await Promise.all(
      all.map(async ([name, t, c]) => {
        if (!t.to || !c.other) return;
        const key = await put(t.from[0]!, c.item);
        const won = await applyTransition(rt, t, key, c.values);
        const lost = await applyTransition(rt, t, key, c.other);
        expect(lost, name).toEqual({ applied: false, item: won.item });
        expect(await read(key), name).toEqual(won.item);
      }),
    );
  });

  it('refuses to leave an ended status or a missing item, answering what it found', async () => {
    // One ended status for each (in turn): the unit test checks that none is in any `from`.
    await Promise.all(
      all.map(async ([name, t, c], i) => {
        const end = ends[i % ends.length]!;
        const key = await put(end, c.item);
        const before = await read(key);
        const refused = await applyTransition(rt, t, key, c.values);
        expect(refused, `${name} from ${end}`).toEqual({ applied: false, item: before });
        const missing = await applyTransition(rt, t, { pk: 'TRANSITIONS', sk: 'NONE' }, c.values);
        expect(missing, name).toEqual({ applied: false, item: undefined });
      }),
    );
  });
});
