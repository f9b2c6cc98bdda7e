import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteItem, GetItem } from '../../lib/aws/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sha256Of, testSandbox } from '../support/sandbox.ts';

const QUOTA = 1_000;
const URL_SECONDS = 120;
const DAY_MS = 86_400_000;
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  carol: { user: 'carol', tenant: 'acme' },
};
/** The functions' clock: a test moves it on, past an upload URL's life and the orphan sweep's period. */
let offset = 0;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({
    app: createSwitchboard(),
    tokens: (token) => TOKENS[token] ?? null,
    settings: { files: { quotaBytesPerUser: QUOTA, uploadUrlSeconds: URL_SECONDS } },
    clock: () => Date.now() + offset,
  });
});
afterAll(async () => {
  await sandbox?.close();
});

interface Upload {
  url: string;
  method: string;
  headers: Record<string, string>;
}
type Answer = Record<string, unknown> & {
  id: string;
  status: string;
  upload: Upload;
  error: { code: string; issues: { path: unknown[] }[] };
};

const call = (token: string, method: string, path: string, body?: unknown) =>
  api<Answer>(sandbox.url, method, path, body, { token });

/** Asks for an upload URL for `body`, declared as `type`. */
async function create(token: string, body: string, type = 'text/plain') {
  const created = await call(token, 'POST', '/api/files', {
    name: 'notes.txt',
    media_type: type,
    size: Buffer.byteLength(body),
    sha256: sha256Of(body),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json;
}

/** PUTs `body` to an upload URL: its status and S3's error code, if any. */
async function put(upload: Upload, body: string, headers = upload.headers) {
  const res = await fetch(upload.url, { method: upload.method, headers, body });
  return `${res.status} ${/<Code>(\w+)<\/Code>/.exec(await res.text())?.[1] ?? ''}`.trim();
}

/** What the bucket holds at a file's key: its size, or `none`. */
async function held(fileId: string): Promise<number | 'none'> {
  const s3 = await sandbox.runtime.s3();
  const head = await s3
    .send(new HeadObjectCommand({ Bucket: sandbox.runtime.bucket, Key: `files/${fileId}` }))
    .catch(() => undefined);
  return head ? (head.ContentLength ?? 0) : 'none';
}

/** The owner's counted bytes. */
async function counted(user: string): Promise<number> {
  const { Item } = await sandbox.runtime.db.send(
    new GetItem({
      TableName: sandbox.runtime.table,
      Key: keys.ownerFiles('acme', user),
      ConsistentRead: true,
    }),
  );
  return Number(Item?.bytes ?? 0);
}

/** Runs the sweep with the functions' clock moved on by `ms`, and puts it back. */
async function sweepLater(ms: number): Promise<void> {
  offset = ms;
  try {
    await sandbox.sweep();
  } finally {
    offset = 0;
  }
}

describe('an upload URL is bound to its record', () => {
  it('stores nothing once its file is deleted: five create → delete → PUT rounds leave no bytes and the quota whole', async () => {
    const ids: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const body = `${round}`.repeat(QUOTA);
      const file = await create('alice', body);
      expect(await counted('alice')).toBe(QUOTA);
      expect((await call('alice', 'DELETE', `/api/files/${file.id}`)).status).toBe(200);
      expect(await counted('alice')).toBe(0);
      expect(await put(file.upload, body)).toBe('412 PreconditionFailed');
      // Another type, or the URL without its condition, fares no better.
      expect(await put(file.upload, body, { ...file.upload.headers, 'content-type': 'text/html' })).toBe(
        '403 SignatureDoesNotMatch',
      );
      // At most the deletion's empty tombstone: none of the upload's bytes.
      expect(await held(file.id)).toBe(0);
      ids.push(file.id);
    }
    expect(await counted('alice')).toBe(0);
    // The quota is whole: a file of the full quota still fits.
    const full = await create('alice', 'z'.repeat(QUOTA));
    expect(await put(full.upload, 'z'.repeat(QUOTA))).toBe('200');
    expect((await call('alice', 'GET', `/api/files/${full.id}`)).json.status).toBe('stored');
    // Once no URL can use them, the tombstones go too: nothing is left at any of the keys.
    await sweepLater(2 * DAY_MS);
    expect(await Promise.all(ids.map(held))).toEqual(ids.map(() => 'none'));
    expect(await held(full.id)).toBe(QUOTA);
  });

  it('refuses another content type, other bytes than the checksum and a PUT without its signed headers; the file stays pending', async () => {
    const file = await create('bob', 'plain words');
    expect(
      await put(file.upload, 'plain words', { ...file.upload.headers, 'content-type': 'text/html' }),
    ).toBe('403 SignatureDoesNotMatch');
    expect(await put(file.upload, 'PLAIN WORDS')).toBe('400 BadDigest');
    const { 'x-amz-checksum-sha256': _, ...unchecked } = file.upload.headers;
    expect(await put(file.upload, 'PLAIN WORDS', unchecked)).toBe('403 SignatureDoesNotMatch');
    const { 'if-none-match': __, ...unconditional } = file.upload.headers;
    expect(await put(file.upload, 'plain words', unconditional)).toBe('403 SignatureDoesNotMatch');
    expect(await held(file.id)).toBe('none');
    expect((await call('bob', 'GET', `/api/files/${file.id}`)).json.status).toBe('pending');
  });

  it('stores the bytes the record names once (GET says stored); a second PUT over them is refused and changes nothing', async () => {
    const file = await create('bob', '<p>hello</p>', 'text/html');
    expect(file.upload.headers).toEqual({
      'content-type': 'text/html',
      'if-none-match': '*',
      'x-amz-checksum-sha256': sha256Of('<p>hello</p>'),
    });
    expect(await put(file.upload, '<p>hello</p>')).toBe('200');
    expect((await call('bob', 'GET', `/api/files/${file.id}`)).json).toMatchObject({
      status: 'stored',
      size: 12,
      media_type: 'text/html',
    });
    expect(await put(file.upload, '<p>hello</p>')).toBe('412 PreconditionFailed');
    const s3 = await sandbox.runtime.s3();
    const stored = await s3.send(
      new GetObjectCommand({ Bucket: sandbox.runtime.bucket, Key: `files/${file.id}` }),
    );
    expect([stored.ContentType, await stored.Body?.transformToString()]).toEqual([
      'text/html',
      '<p>hello</p>',
    ]);
  });

  it('refuses an upload request without the bytes’ SHA-256 or with one of another form, at sha256, and counts nothing', async () => {
    const base = { name: 'a.bin', size: 3 };
    for (const sha256 of [
      undefined,
      'abc',
      // Hex, not base64.
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      // 32 bytes, but not the one spelling of them S3 compares.
      'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa1=',
      sha256Of('abc').replace('=', ''),
    ]) {
      const res = await call('carol', 'POST', '/api/files', { ...base, sha256 });
      expect(res.status, String(sha256)).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_error', issues: [{ path: ['sha256'] }] });
    }
    expect(await counted('carol')).toBe(0);
  });
});

describe('the orphan sweep', () => {
  it('removes an object no record names once no upload URL can be for it, and keeps stored files and young objects', async () => {
    // Whatever the sweeps before did, a pass is due now.
    await sandbox.runtime.db.send(
      new DeleteItem({ TableName: sandbox.runtime.table, Key: keys.orphanPass() }),
    );
    const s3 = await sandbox.runtime.s3();
    const stray = (key: string) =>
      s3.send(new PutObjectCommand({ Bucket: sandbox.runtime.bucket, Key: `files/${key}`, Body: 'stray' }));
    await stray('file_01M8STRAY0000000000000000A');
    const kept = await create('carol', 'keep me');
    expect(await put(kept.upload, 'keep me')).toBe('200');
    // Young: it may be a write whose record is on its way, or a tombstone that still stops a URL.
    await sweepLater(0);
    expect(await held('file_01M8STRAY0000000000000000A')).toBe(5);
    await sweepLater(2 * DAY_MS);
    expect(await held('file_01M8STRAY0000000000000000A')).toBe('none');
    expect(await held(kept.id)).toBe(7);
    expect((await call('carol', 'GET', `/api/files/${kept.id}`)).json.status).toBe('stored');
    // A pass ran; the next is a period away, so an orphan made now waits for it.
    await stray('file_01M8STRAY0000000000000000B');
    await sweepLater(2 * DAY_MS);
    expect(await held('file_01M8STRAY0000000000000000B')).toBe(5);
    await sweepLater(4 * DAY_MS);
    expect(await held('file_01M8STRAY0000000000000000B')).toBe('none');
  });
});
