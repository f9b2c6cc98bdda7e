import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { keys, releaseFileBytes, reserveFileBytes } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { sha256Of, testSandbox } from '../support/sandbox.ts';

const QUOTA = 100;
const SESSION_FILES = 2;
const SESSION_BYTES = 50;
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  'alice-globex': { user: 'alice', tenant: 'globex' },
  carol: { user: 'carol', tenant: 'acme' },
  dave: { user: 'dave', tenant: 'acme' },
};
let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({ info: { id: 'echo' }, invoke: async ({ message }) => ({ content: message }) });
  sandbox = await testSandbox({
    app,
    settings: {
      files: {
        quotaBytesPerUser: QUOTA,
        maxFilesPerSession: SESSION_FILES,
        quotaBytesPerSession: SESSION_BYTES,
      },
    },
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
    body: JSON.stringify({ name: 'big.bin', size, sha256: sha256Of('x'.repeat(size)) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The owner's counter of uploaded bytes, as the table holds it. */
async function counted(tenant: string, user: string) {
  const { Item } = await sandbox.runtime.db.send(
    new GetItem({
      TableName: sandbox.runtime.table,
      Key: keys.ownerFiles(tenant, user),
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

async function chat(token: string, sessionId: string, fileIds: string[], id?: string) {
  const res = await fetch(`${sandbox.url}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(id && { id }),
      session_id: sessionId,
      agent_id: 'echo',
      content: 'see attached',
      attachments: fileIds.map((file_id) => ({ kind: 'document', purpose: 'reference', file_id })),
    }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function messagesOf(token: string, sessionId: string) {
  const res = await fetch(`${sandbox.url}/api/sessions/${sessionId}/messages`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, json: (await res.json()) as { messages?: { role: string }[] } };
}

describe('a file quota per session', () => {
  const ids = async (...sizes: number[]) => {
    const files: string[] = [];
    for (const size of sizes) {
      const stored = await upload('dave', size);
      expect(stored.status).toBe(201);
      files.push(stored.json.id as string);
    }
    return files;
  };

  it('refuses a message whose files would pass the session’s file count, and counts a file attached again once', async () => {
    const [a, b, c] = (await ids(5, 5, 5)) as [string, string, string];
    expect((await chat('dave', 'sq-count', [a, b])).status).toBe(202);
    const refused = await chat('dave', 'sq-count', [a, c]);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toMatchObject({
      code: 'file_quota_exceeded',
      issues: [{ path: ['attachments', 1, 'file_id'] }],
    });
    // Nothing of the refused message was stored: the session still has one exchange.
    const { json } = await messagesOf('dave', 'sq-count');
    expect(json.messages?.filter((m) => m.role === 'user')).toHaveLength(1);
    // Files already attached cost nothing, as does the same request sent again.
    expect((await chat('dave', 'sq-count', [b, a], 'sq-again')).status).toBe(202);
    expect((await chat('dave', 'sq-count', [b, a], 'sq-again')).status).toBe(202);
    // Another session counts its own files.
    expect((await chat('dave', 'sq-other', [c, a])).status).toBe(202);
  });

  it('refuses a new session’s first message past the bytes per session without making the session', async () => {
    const [big, small] = (await ids(SESSION_BYTES - 4, 5)) as [string, string];
    const refused = await chat('dave', 'sq-bytes', [big, small]);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toMatchObject({
      code: 'file_quota_exceeded',
      issues: [{ path: ['attachments', 0, 'file_id'] }],
    });
    expect((await messagesOf('dave', 'sq-bytes')).status).toBe(404);
    expect((await chat('dave', 'sq-bytes', [big])).status).toBe(202);
    expect((await chat('dave', 'sq-bytes', [small])).status).toBe(413);
  });
});
