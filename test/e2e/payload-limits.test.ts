import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../lib/files/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { ensureSession, messageId, putMessage } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';

let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent(demoAgent());
  sandbox = await testSandbox({ app });
});
afterAll(() => sandbox?.close());

const upload = (bytes: number) =>
  fetch(`${sandbox.url}/api/files?name=scan.bin`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.alloc(bytes, 1),
  });

describe('a file sent as the request body, within the Lambda event it travels in', () => {
  it('stores a file of exactly the direct-upload maximum (4 MiB)', async () => {
    const res = await upload(DIRECT_UPLOAD_MAX_BYTES);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ size: DIRECT_UPLOAD_MAX_BYTES, status: 'stored' });
  });

  it('refuses one byte more with 413 file_too_large at body, pointing at the upload URL', async () => {
    const res = await upload(DIRECT_UPLOAD_MAX_BYTES + 1);
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as { error: { code: string; message: string; issues: unknown[] } };
    expect(error.code).toBe('file_too_large');
    expect(error.issues).toEqual([expect.objectContaining({ path: ['body'] })]);
    expect(error.message).toContain('"media_type"');
  });

  it('cannot take a 5 MB body at all: its base64 event is over 6 MB, so API Gateway answers 500', async () => {
    const res = await upload(5 * 1024 * 1024);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
  });
});

describe('GET /api/sessions/{id}/messages in pages that fit a Lambda response', () => {
  const runId = 'run_01J00000000000000000000000';

  /** A session with `count` assistant messages of `content` each, stored directly. */
  async function seed(sessionId: string, count: number, content: (i: number) => string): Promise<string[]> {
    const createdAt = new Date().toISOString();
    const ref = refOf(sessionId);
    await ensureSession(sandbox.runtime, { sessionId: ref, owner: 'anonymous', agentId: 'demo', createdAt });
    const ids = Array.from({ length: count }, (_, i) => messageId(runId, i));
    for (const [i, id] of ids.entries()) {
      await putMessage(sandbox.runtime, {
        messageId: id,
        sessionId: ref,
        runId,
        role: 'assistant',
        content: content(i),
        createdAt,
      });
    }
    return ids;
  }

  /** Every page, following `next_after`, with the status of each answer. */
  async function readAll(sessionId: string, limit?: number) {
    const pages: { status: number; ids: string[]; hasMore: boolean }[] = [];
    let after: string | null = null;
    do {
      const query: URLSearchParams = new URLSearchParams({
        ...(after && { after }),
        ...(limit && { limit: String(limit) }),
      });
      const res = await api<Record<string, unknown>>(
        sandbox.url,
        'GET',
        `/api/sessions/${sessionId}/messages?${query}`,
      );
      const messages = (res.json.messages ?? []) as { id: string }[];
      pages.push({ status: res.status, ids: messages.map((m) => m.id), hasMore: res.json.has_more === true });
      after = (res.json.next_after as string | null | undefined) ?? null;
    } while (after && pages.length < 20);
    return pages;
  }

  it('pages 8 MB of messages under 6 MB each, the cursor leading through all of them once', async () => {
    // Each just under the size past which a page lists a message by reference (1 MiB).
    const ids = await seed('paged-big', 9, (i) => `${i}`.padEnd(900 * 1024, 'x'));
    const pages = await readAll('paged-big');
    expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((p) => p.ids)).toEqual(ids);
    expect(pages.map((p) => p.hasMore)).toEqual(pages.map((_, i) => i < pages.length - 1));
  });

  it('counts the escaping a response body adds, so quote-heavy messages still fit', async () => {
    const ids = await seed('paged-quotes', 6, () => '"\\'.repeat(400 * 1024));
    const pages = await readAll('paged-quotes');
    expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
    expect(pages.flatMap((p) => p.ids)).toEqual(ids);
  });

  it('honours limit and starts after the cursor', async () => {
    const ids = await seed('paged-small', 5, (i) => `message ${i}`);
    const pages = await readAll('paged-small', 2);
    expect(pages.map((p) => p.ids)).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    const bad = await api(sandbox.url, 'GET', '/api/sessions/paged-small/messages?after=nope');
    expect(bad.status).toBe(422);
  });
});
