import { readFileSync } from 'node:fs';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem } from '../../lib/aws/index.ts';
import { createSwitchboard, type HostAgentFile } from '../../lib/index.ts';
import { keys } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, sessionIds, sha256Of, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  bob: { user: 'bob', tenant: 'acme' },
  carol: { user: 'carol', tenant: 'acme' },
};
const DAY_MS = 86_400_000;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/files/${name}`, import.meta.url));

/** What one turn of the reader agent saw: its message's files, the session's, and each probed file's bytes and text. */
interface Seen {
  files: HostAgentFile[];
  listed: HostAgentFile[];
  /** Each probed file's size, null, or the name of the error its read rejected with. */
  bytes: Record<string, number | string | null>;
  texts: Record<string, string | null>;
}
const seen = new Map<string, Seen>();
let offset = 0;
let sandbox: Sandbox;
const sid = sessionIds('files');

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'reader' },
    // The message names the turn; metadata.probe the file ids to read; metadata.produce files to return.
    async invoke({ message, files, metadata }, io) {
      const probe = (metadata.probe as string[] | undefined) ?? [];
      const record: Seen = { files, listed: await io.files.list(), bytes: {}, texts: {} };
      const refused = (error: Error) => `refused: ${error.name}`;
      for (const id of probe) {
        record.bytes[id] = await io.files.read(id).then((bytes) => bytes?.length ?? null, refused);
        record.texts[id] = await io.files.text(id).catch(refused);
      }
      seen.set(message, record);
      if (metadata.stop) io.emit({ type: 'stop', stopReason: 'end_turn', detail: metadata.stop });
      const produce = metadata.produce as HostAgentFile[] | undefined;
      return produce
        ? { content: 'made', files: produce, metadata: { made: produce.length } }
        : { content: 'ok' };
    },
  });
  app.registerHostAgent({
    info: { id: 'picky' },
    files: { maxBytes: 64, mediaTypes: ['text/*', 'application/pdf'] },
    async invoke({ message, files }) {
      seen.set(message, { files, listed: [], bytes: {}, texts: {} });
      return { content: 'ok' };
    },
  });
  sandbox = await testSandbox({
    app,
    tokens: (token) => TOKENS[token] ?? null,
    settings: { files: { retentionDays: 1, textMaxChars: 40 } },
    clock: () => Date.now() + offset,
    // Every S3 call fails (a 5xx, past the SDK's retries) while a test turns the faults on.
    faults: { seed: 1, rates: { s3: { error: 1 } } },
  });
  faultsOf().enabled = false;
});
afterAll(async () => {
  await sandbox?.close();
});

/** An answer's JSON, as far as these tests read it. */
type Answer = Record<string, unknown> & {
  error: { code: string; issues: { path: unknown[] }[] };
  messages: Record<string, unknown>[];
};

const faultsOf = () => {
  if (!sandbox.faults) throw new Error('the sandbox was started without faults');
  return sandbox.faults;
};

const call = (token: string, method: string, path: string, body?: unknown) =>
  api<Answer>(sandbox.url, method, path, body, { token });

async function upload(token: string, name: string, type: string, body: string | Buffer): Promise<string> {
  const res = await fetch(`${sandbox.url}/api/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Stores a file through an upload URL (the way JSON files go: a JSON body asks for the URL). */
async function presigned(token: string, name: string, type: string, body: string): Promise<string> {
  const created = await call(token, 'POST', '/api/files', {
    name,
    media_type: type,
    size: Buffer.byteLength(body),
    sha256: sha256Of(body),
  });
  expect(created.status).toBe(201);
  const upload = created.json.upload as { url: string; headers: Record<string, string> };
  expect((await fetch(upload.url, { method: 'PUT', headers: upload.headers, body })).status).toBe(200);
  return String(created.json.id);
}

/** Sends a message over HTTP and waits for the agent to have seen it. */
async function turn(token: string, body: Record<string, unknown>): Promise<Seen> {
  const sent = await call(token, 'POST', '/api/chat', { agent_id: 'reader', ...body });
  expect(sent.status, JSON.stringify(sent.json)).toBe(202);
  const content = String(body.content);
  await expect.poll(() => seen.has(content), queued(`the turn "${content}"`)).toBe(true);
  return seen.get(content) as Seen;
}

const attach = (...ids: string[]) => ids.map((file_id) => ({ kind: 'document', file_id }));

describe('io.files: the session’s files, and only those', () => {
  it('gives input.files the files of this message only, and io.files every file of the session, oldest first', async () => {
    const session = sid('own');
    const first = await upload('alice', 'a.txt', 'text/plain', 'first file');
    const second = await upload('alice', 'b.md', 'text/markdown', '# Second\n\nfile');
    const one = await turn('alice', { session_id: session, content: 'own-1', attachments: attach(first) });
    expect(one.files.map((f) => f.id)).toEqual([first]);
    const two = await turn('alice', {
      session_id: session,
      content: 'own-2',
      attachments: attach(second),
      metadata: { probe: [first, second] },
    });
    expect(two.files).toEqual([{ id: second, name: 'b.md', mimeType: 'text/markdown', size: 14 }]);
    expect(two.listed.map((f) => f.id)).toEqual([first, second]);
    expect(two.texts).toEqual({ [first]: 'first file', [second]: '# Second\n\nfile' });
    expect(two.bytes).toEqual({ [first]: 10, [second]: 14 });
    const three = await turn('alice', { session_id: session, content: 'own-3' });
    expect(three.files).toEqual([]);
    expect(three.listed.map((f) => f.id)).toEqual([first, second]);
  });

  it('answers null for a file of another session, of another user, and for an unknown id', async () => {
    const elsewhere = await upload('alice', 'other.txt', 'text/plain', 'not here');
    await turn('alice', { session_id: sid('other-a'), content: 'other-1', attachments: attach(elsewhere) });
    const bobs = await upload('bob', 'bob.txt', 'text/plain', 'bob only');
    const probe = [elsewhere, bobs, 'file_01M8RAS1W7VB7WP6N35XNWNRQG'];
    const seenThere = await turn('alice', {
      session_id: sid('other-b'),
      content: 'other-2',
      metadata: { probe },
    });
    expect(seenThere.listed).toEqual([]);
    expect(seenThere.bytes).toEqual(Object.fromEntries(probe.map((id) => [id, null])));
    expect(seenThere.texts).toEqual(Object.fromEntries(probe.map((id) => [id, null])));
  });

  it('reads the text of HTML without tags, JSON and CSV as they are, a PDF and a DOCX; null for an image; cut at textMaxChars', async () => {
    const files = {
      html: await upload(
        'alice',
        'page.html',
        'text/html',
        '<html><head><style>p{}</style></head><body><h1>Title</h1><p>Fish &amp; chips<script>x()</script></p></body></html>',
      ),
      json: await presigned('alice', 'data.json', 'application/json', '{"a":1}'),
      csv: await upload('alice', 'rows.csv', 'text/csv', 'a,b\n1,2'),
      pdf: await upload('alice', 'report.pdf', 'application/pdf', fixture('report.pdf')),
      docx: await upload(
        'alice',
        'notes.docx',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        fixture('notes.docx'),
      ),
      // Sent without a useful type: the name's extension says it is Markdown.
      markdown: await upload('alice', 'readme.md', 'application/octet-stream', '*hello*'),
      image: await upload('alice', 'dot.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47])),
      long: await upload('alice', 'long.txt', 'text/plain', 'x'.repeat(100)),
    };
    const ids = Object.values(files);
    const read = await turn('alice', {
      session_id: sid('text'),
      content: 'text-1',
      attachments: attach(...ids),
      metadata: { probe: ids },
    });
    expect(read.texts[files.html]).toBe('Title\nFish & chips');
    expect(read.texts[files.json]).toBe('{"a":1}');
    expect(read.texts[files.csv]).toBe('a,b\n1,2');
    expect(read.texts[files.pdf]).toBe('Quarterly report: revenue up');
    expect(read.texts[files.docx]).toBe('Meeting notes\n\nShip on Friday.');
    expect(read.texts[files.markdown]).toBe('*hello*');
    expect(read.texts[files.image]).toBeNull();
    expect(read.bytes[files.image]).toBe(4);
    expect(read.texts[files.long]).toBe('x'.repeat(40));
  });

  it('answers null, 404 and a refused attachment for a file past its expiry; the sweep deletes it and gives its bytes back', async () => {
    const session = sid('expiry');
    const file = await upload('carol', 'old.txt', 'text/plain', 'old news');
    await turn('carol', { session_id: session, content: 'expiry-1', attachments: attach(file) });
    const counted = async () =>
      (
        await sandbox.runtime.db.send(
          new GetItem({
            TableName: sandbox.runtime.table,
            Key: keys.ownerFiles('acme', 'carol'),
            ConsistentRead: true,
          }),
        )
      ).Item?.bytes as number;
    const before = await counted();
    offset = DAY_MS + 60_000;
    try {
      const later = await turn('carol', {
        session_id: session,
        content: 'expiry-2',
        metadata: { probe: [file] },
      });
      expect(later.listed).toEqual([]);
      expect(later.bytes[file]).toBeNull();
      expect(later.texts[file]).toBeNull();
      expect((await call('carol', 'GET', `/api/files/${file}`)).json.error.code).toBe('file_not_found');
      const refused = await call('carol', 'POST', '/api/chat', {
        session_id: session,
        content: 'expiry-3',
        attachments: attach(file),
      });
      expect(refused.status).toBe(422);
      expect(refused.json.error.issues[0]?.path).toEqual(['attachments', 0, 'file_id']);
      await sandbox.sweep();
      expect(before).toBe(8);
      expect(await counted()).toBe(0);
      expect((await call('carol', 'DELETE', `/api/files/${file}`)).status).toBe(404);
    } finally {
      offset = 0;
    }
  });
});

describe('io.files when the bucket fails', () => {
  it('rejects a read the bucket failed, instead of answering null as for a missing file; null once the bytes are gone', async () => {
    const session = sid('bucket-down');
    const file = await upload('alice', 'note.txt', 'text/plain', 'still here');
    faultsOf().enabled = true;
    const failed = await turn('alice', {
      session_id: session,
      content: 'bucket-down-1',
      attachments: attach(file),
      metadata: { probe: [file] },
    }).finally(() => {
      faultsOf().enabled = false;
    });
    expect(failed.bytes[file]).toMatch(/^refused: /);
    expect(failed.texts[file]).toMatch(/^refused: /);
    // The bucket back: the same file reads again.
    const back = await turn('alice', {
      session_id: session,
      content: 'bucket-down-2',
      metadata: { probe: [file] },
    });
    expect(back.texts[file]).toBe('still here');
    // Its bytes deleted behind its record: missing, so null.
    const record = await sandbox.runtime.db.send(
      new GetItem({ TableName: sandbox.runtime.table, Key: keys.file(file), ConsistentRead: true }),
    );
    await (await sandbox.runtime.s3()).send(
      new DeleteObjectCommand({ Bucket: sandbox.runtime.bucket, Key: String(record.Item?.s3Key) }),
    );
    const gone = await turn('alice', {
      session_id: session,
      content: 'bucket-down-3',
      metadata: { probe: [file] },
    });
    expect(gone.bytes[file]).toBeNull();
    expect(gone.texts[file]).toBeNull();
  });

  it('answers a message naming a file it could not check with a 5xx for a retry, not a 422 on the file', async () => {
    const session = sid('bucket-head');
    const created = await call('alice', 'POST', '/api/files', {
      name: 'later.json',
      media_type: 'application/json',
      size: 2,
      sha256: sha256Of('{}'),
    });
    expect(created.status).toBe(201);
    faultsOf().enabled = true;
    const sent = await call('alice', 'POST', '/api/chat', {
      agent_id: 'reader',
      session_id: session,
      content: 'bucket-head-1',
      attachments: attach(String(created.json.id)),
    }).finally(() => {
      faultsOf().enabled = false;
    });
    expect(sent.status, JSON.stringify(sent.json)).toBeGreaterThanOrEqual(500);
    // With the bucket back, the same message is refused for what it is: the file was never uploaded.
    const again = await call('alice', 'POST', '/api/chat', {
      agent_id: 'reader',
      session_id: session,
      content: 'bucket-head-1',
      attachments: attach(String(created.json.id)),
    });
    expect(again.status, JSON.stringify(again.json)).toBe(422);
    expect(again.json.error.issues[0]?.path).toEqual(['attachments', 0, 'file_id']);
  });
});

describe('DELETE /api/files/{id}', () => {
  it('deletes the owner’s file and gives its bytes back; for anyone else, and a second time, it is 404', async () => {
    const file = await upload('alice', 'gone.txt', 'text/plain', 'to be deleted');
    const session = sid('delete');
    await turn('alice', { session_id: session, content: 'delete-1', attachments: attach(file) });
    const foreign = await call('bob', 'DELETE', `/api/files/${file}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('file_not_found');
    expect((await call('alice', 'GET', `/api/files/${file}`)).status).toBe(200);
    const owner = async () =>
      (
        await sandbox.runtime.db.send(
          new GetItem({
            TableName: sandbox.runtime.table,
            Key: keys.ownerFiles('acme', 'alice'),
            ConsistentRead: true,
          }),
        )
      ).Item?.bytes as number;
    const before = await owner();
    const deleted = await call('alice', 'DELETE', `/api/files/${file}`);
    expect(deleted).toMatchObject({ status: 200, json: { id: file, status: 'deleted' } });
    expect(await owner()).toBe(before - 13);
    expect((await call('alice', 'GET', `/api/files/${file}`)).status).toBe(404);
    expect((await call('alice', 'DELETE', `/api/files/${file}`)).status).toBe(404);
    const after = await turn('alice', {
      session_id: session,
      content: 'delete-2',
      metadata: { probe: [file] },
    });
    expect(after.listed).toEqual([]);
    expect(after.bytes[file]).toBeNull();
  });

  it('answers 404 file_not_found, naming id, for an id that breaks the id rule', async () => {
    const res = await call('alice', 'DELETE', `/api/files/${'f'.repeat(200)}`);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'file_not_found', issues: [{ path: ['id'] }] });
  });
});

describe('an agent’s file settings', () => {
  it('refuses a file of a type the agent does not take (415) or over its size (413), over HTTP and WebSocket, and stores nothing', async () => {
    const image = await upload('alice', 'x.png', 'image/png', Buffer.from([1, 2, 3]));
    const big = await upload('alice', 'big.txt', 'text/plain', 'y'.repeat(65));
    const fine = await upload('alice', 'ok.txt', 'text/plain', 'fine');
    const session = sid('picky');
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
    try {
      for (const [file, status, code] of [
        [image, 415, 'unsupported_media_type'],
        [big, 413, 'file_too_large'],
      ] as const) {
        const body = {
          session_id: session,
          agent_id: 'picky',
          content: 'picky',
          attachments: attach(fine, file),
        };
        const http = await call('alice', 'POST', '/api/chat', body);
        expect(http.status).toBe(status);
        expect(http.json.error).toMatchObject({ code, issues: [{ path: ['attachments', 1, 'file_id'] }] });
        const ws = await socket.request({ action: 'assistant_message', ...body });
        expect(ws.type).toBe('assistant:error');
        expect(ws.error).toMatchObject({ code, path: ['attachments', 1, 'file_id'] });
      }
      expect((await call('alice', 'GET', `/api/sessions/${session}`)).status).toBe(404);
      const accepted = await socket.request({
        action: 'assistant_message',
        session_id: session,
        agent_id: 'picky',
        content: 'picky-ok',
        attachments: attach(fine),
      });
      expect(accepted.type).toBe('assistant:accepted');
      await expect
        .poll(() => seen.get('picky-ok')?.files.map((f) => f.id), queued('the picky turn'))
        .toEqual([fine]);
    } finally {
      await socket.close();
    }
  });

  it('throws at registration for settings that cannot work', () => {
    const app = createSwitchboard();
    const invoke = async () => ({});
    expect(() => app.registerHostAgent({ info: { id: 'a' }, invoke, files: { maxBytes: 0 } })).toThrow(
      /maxBytes/,
    );
    expect(() =>
      app.registerHostAgent({ info: { id: 'b' }, invoke, files: { mediaTypes: ['pdf'] } }),
    ).toThrow(/mediaTypes/);
  });
});

describe('what a result returns with its answer', () => {
  it('keeps the result’s files and metadata on the answer and shows them; an emitted stop’s detail is reported', async () => {
    const produced = await upload('alice', 'chart.csv', 'text/csv', 'x,y');
    const session = sid('result');
    const socket = await TestSocket.open(`${sandbox.wsUrl}?token=alice`);
    try {
      const accepted = await socket.request({
        action: 'assistant_message',
        session_id: session,
        agent_id: 'reader',
        content: 'result-1',
        metadata: {
          produce: [{ id: produced, name: 'chart.csv', mimeType: 'text/csv', size: 3 }],
          stop: { why: 'done early' },
        },
      });
      expect(accepted.type).toBe('assistant:accepted');
      const final = await socket.waitFor((f) => f.type === 'final_response', 'final_response');
      expect((final.data as Record<string, unknown>).files).toEqual([
        { id: produced, name: 'chart.csv', media_type: 'text/csv', size: 3 },
      ]);
      const idle = await socket.waitFor((f) => f.type === 'session.status_idle', 'the idle event');
      expect((idle.data as Record<string, unknown>).detail).toEqual({ why: 'done early' });
    } finally {
      await socket.close();
    }
    const messages = await call('alice', 'GET', `/api/sessions/${session}/messages`);
    expect(messages.json.messages[1]).toMatchObject({
      role: 'assistant',
      files: [{ id: produced, name: 'chart.csv', media_type: 'text/csv', size: 3 }],
      metadata: { made: 1 },
    });
    // The answer's files are the session's files from then on.
    const next = await turn('alice', {
      session_id: session,
      content: 'result-2',
      metadata: { probe: [produced] },
    });
    expect(next.listed.map((f) => f.id)).toEqual([produced]);
    expect(next.texts[produced]).toBe('x,y');
  });
});
