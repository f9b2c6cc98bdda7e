import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Query } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Erased } from '../../lib/operate/index.ts';
import { getRun, keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { cliAgainst } from '../support/cli.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

const app = createSwitchboard();
for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);
/** Callers by token: `user@tenant`. */
const TOKENS: Record<string, { user: string; tenant?: string }> = Object.fromEntries(
  ['eve@acme', 'bob@acme', 'u1@initech', 'u2@initech', 'ray@umbrella', 'ttl@acme'].map((token) => {
    const [user, tenant] = token.split('@') as [string, string];
    return [token, { user, tenant }];
  }),
);
const DAY_S = 86_400;
const RETENTION = { sessionsDays: 30, messagesDays: 7, eventsDays: 45 };
/** The functions' clock: a test moves it on to see a session's expiry follow its last message. */
let offsetMs = 0;
let sandbox: Sandbox;
const sid = sessionIds('rt');

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    tokens: (token) => TOKENS[token] ?? null,
    settings: { retention: RETENTION, requests: { retentionHours: 48 } },
    clock: () => Date.now() + offsetMs,
  });
});
afterAll(async () => {
  await sandbox?.close();
});

/** The `switchboard` command, in this process, against the sandbox. */
const cli = (...args: string[]) => cliAgainst(sandbox.url, ...args);

/** Sends a message as `token` and waits until its turn has ended. */
async function say(token: string, session: string, content = 'hello') {
  const sent = await api(
    sandbox.url,
    'POST',
    '/api/chat',
    { session_id: session, agent_id: 'pauser', content },
    { token },
  );
  expect(sent.status).toBe(202);
  const [user, tenant] = token.split('@') as [string, string];
  const ref = refOf(session, user, tenant);
  await expect
    .poll(
      async () => (await getRun(sandbox.runtime, ref, String(sent.json.run_id)))?.status,
      queued('the turn'),
    )
    .toBe('completed');
  return ref;
}

/** Every item of a session's partition, keys and ttl. */
async function partition(ref: string): Promise<{ sk: string; ttl?: number }[]> {
  const { Items = [] } = await sandbox.runtime.db.send(
    new Query({
      TableName: sandbox.runtime.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.session(ref).pk },
      ProjectionExpression: 'sk, #ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
    }),
  );
  return Items as { sk: string; ttl?: number }[];
}

const ttlOf = (items: { sk: string; ttl?: number }[], prefix: string) =>
  items.filter((item) => item.sk.startsWith(prefix)).map((item) => item.ttl);

/** A `ttl` `days` after a moment between `from` and `to` (epoch ms): what the write at that moment set. */
const daysAfter = (days: number, from: number, to: number) => ({
  asymmetricMatch: (ttl: unknown) =>
    typeof ttl === 'number' &&
    ttl >= Math.floor(from / 1000) + days * DAY_S &&
    ttl <= Math.ceil(to / 1000) + days * DAY_S,
  toString: () => `a ttl ${days} days on`,
});

describe('retention', () => {
  it("gives every item of a turn the ttl its kind's setting says, and a new message keeps the session longer", async () => {
    const from = Date.now() + offsetMs;
    const ref = await say('ttl@acme', sid('ttl'));
    const to = Date.now() + offsetMs;
    const items = await partition(ref);
    expect(ttlOf(items, 'META')).toEqual([daysAfter(30, from, to)]);
    expect(ttlOf(items, 'RUN#')).toEqual([daysAfter(30, from, to)]);
    expect(ttlOf(items, 'MSG#')).toEqual([daysAfter(7, from, to), daysAfter(7, from, to)]);
    expect(ttlOf(items, 'EVT#').length).toBeGreaterThan(0);
    expect(ttlOf(items, 'EVT#')).toEqual(ttlOf(items, 'EVT#').map(() => daysAfter(45, from, to)));
    expect(ttlOf(items, 'REQ#')).toEqual([daysAfter(2, from, to)]);

    offsetMs += 3 * DAY_S * 1000;
    const later = Date.now() + offsetMs;
    await say('ttl@acme', ref.slice(ref.indexOf('~') + 1), 'again');
    expect(ttlOf(await partition(ref), 'META')).toEqual([daysAfter(30, later, Date.now() + offsetMs)]);
  });
});

describe('switchboard erase', () => {
  it('deletes everything of one user, found on the owner listing, and nothing of anyone else', async () => {
    const eve = [await say('eve@acme', sid('eve-a')), await say('eve@acme', sid('eve-b'))];
    const bob = await say('bob@acme', sid('bob'));
    const upload = await fetch(`${sandbox.url}/api/files?name=notes.txt`, {
      method: 'POST',
      headers: { authorization: 'Bearer eve@acme', 'content-type': 'text/plain' },
      body: 'private notes',
    });
    expect(upload.status).toBe(201);
    const fileId = ((await upload.json()) as { id: string }).id;

    expect((await cli('erase', '--user', 'eve', '--tenant', 'acme')).code).toBe(2);
    const dry = await cli('erase', '--user', 'eve', '--tenant', 'acme', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toMatchObject({ dryRun: true, files: [fileId] });
    expect(new Set((dry.json() as Erased).sessions)).toEqual(new Set(eve));
    expect(
      (await api(sandbox.url, 'GET', `/api/files/${fileId}`, undefined, { token: 'eve@acme' })).status,
    ).toBe(200);

    const erased = await cli('erase', '--user', 'eve', '--tenant', 'acme', '--yes', '--json');
    expect(erased.code, erased.stderr).toBe(0);
    expect(new Set((erased.json() as Erased).sessions)).toEqual(new Set(eve));
    const listed = await api(sandbox.url, 'GET', '/api/sessions', undefined, { token: 'eve@acme' });
    expect(listed.json.sessions).toEqual([]);
    expect(
      (await api(sandbox.url, 'GET', `/api/files/${fileId}`, undefined, { token: 'eve@acme' })).status,
    ).toBe(404);
    for (const ref of eve) {
      // The worker's delete run removes every item of the session, its own last.
      await expect
        .poll(async () => (await partition(ref)).length, queued(`the items of ${ref} to go`))
        .toBe(0);
    }
    expect((await partition(bob)).length).toBeGreaterThan(0);
    const bobs = await api(sandbox.url, 'GET', '/api/sessions', undefined, { token: 'bob@acme' });
    expect(bobs.json.sessions).toHaveLength(1);
  });

  it('deletes every user of a tenant with --tenant --all-users', async () => {
    const initech = [await say('u1@initech', sid('u1')), await say('u2@initech', sid('u2'))];
    const other = await say('ray@umbrella', sid('ray'));
    const erased = await cli('erase', '--tenant', 'initech', '--all-users', '--yes', '--json');
    expect(erased.code, erased.stderr).toBe(0);
    expect(new Set((erased.json() as Erased).owners.map((o) => o.owner))).toEqual(new Set(['u1', 'u2']));
    for (const ref of initech) {
      await expect
        .poll(async () => (await partition(ref)).length, queued(`the items of ${ref} to go`))
        .toBe(0);
    }
    expect((await partition(other)).length).toBeGreaterThan(0);
  });
});
