import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { releaseFileBytes, reserveFileBytes } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testSandbox } from '../support/sandbox.ts';

const QUOTA = 100;
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  'alice-globex': { user: 'alice', tenant: 'globex' },
  carol: { user: 'carol', tenant: 'acme' },
};
let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({ info: { id: 'echo' }, invoke: async ({ message }) => ({ content: message }) });
  sandbox = await testSandbox({
    app,
    settings: { files: { quotaBytesPerUser: QUOTA } },
    tokens: (token) => TOKENS[token] ?? null,
  });
});
afterAll(async () => {
  await sandbox?.close();
});

async function upload(token: string, bytes: number) {
  const res = await fetch(`${sandbox.url}/api/files?name=f.txt`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
    body: 'x'.repeat(bytes),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function presign(token: string, size: number) {
  const res = await fetch(`${sandbox.url}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'big.bin', size }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The owner's counter of uploaded bytes, as the table holds it. */
async function counted(tenant: string, user: string) {
  const { Item } = await sandbox.runtime.db.send(
    new GetCommand({
      TableName: sandbox.runtime.table,
      Key: { pk: `OWNER#${tenant}#${user}`, sk: 'FILES' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('a file quota per owner', () => {
  it('refuses an upload past the owner’s quota with 413 file_quota_exceeded, and stores nothing of it', async () => {
    expect((await upload('alice', 60)).status).toBe(201);
    const refused = await upload('alice', 60);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toMatchObject({ code: 'file_quota_exceeded', issues: [{ path: ['body'] }] });
    const late = await presign('alice', 41);
    expect(late.status).toBe(413);
    expect(late.json.error).toMatchObject({ code: 'file_quota_exceeded', issues: [{ path: ['size'] }] });
    expect((await presign('alice', 40)).status).toBe(201);
    expect((await upload('alice', 1)).status).toBe(413);
    // What was refused was not counted: the two files taken fill the quota exactly.
    expect(await counted('acme', 'alice')).toMatchObject({ bytes: QUOTA });
  });

  it('counts each owner on their own: another user, and the same user id in another tenant', async () => {
    expect((await upload('bob', 60)).status).toBe(201);
    expect((await upload('alice-globex', 60)).status).toBe(201);
  });

  it('counts a file once when the same reservation is sent again (the SDK retrying a lost answer), and gives a failed store’s bytes back once', async () => {
    const file = { fileId: 'file_retried', owner: 'carol', tenant: 'acme', size: 10 };
    expect(await reserveFileBytes(sandbox.runtimes.http, file, QUOTA)).toBe(true);
    expect(await reserveFileBytes(sandbox.runtimes.http, file, QUOTA)).toBe(true);
    expect(await counted('acme', 'carol')).toMatchObject({ bytes: 10, lastFile: 'file_retried' });
    const big = { ...file, fileId: 'file_big', size: QUOTA - 9 };
    expect(await reserveFileBytes(sandbox.runtimes.http, big, QUOTA)).toBe(false);
    // A failed store gives its bytes back, once even when the release is sent again.
    const failed = { ...file, fileId: 'file_failed', size: 20 };
    expect(await reserveFileBytes(sandbox.runtimes.http, failed, QUOTA)).toBe(true);
    await releaseFileBytes(sandbox.runtimes.http, failed);
    await releaseFileBytes(sandbox.runtimes.http, failed);
    expect(await counted('acme', 'carol')).toMatchObject({ bytes: 10 });
  });
});
