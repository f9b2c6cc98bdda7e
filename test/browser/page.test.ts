import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) {
  console.warn(`browser tests skipped: no Chromium at ${chromiumPath} (install it or set CHROMIUM_PATH)`);
}

// The type check has no DOM lib, so the in-page functions see the page through this narrow view.
type PageNode = { textContent: string | null };
type PageWindow = typeof globalThis & {
  document: { querySelector(selector: string): PageNode | null };
  sessionStorage: { getItem(key: string): string | null };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: PageNode, options: Record<string, boolean>): void };
  assistantTexts: string[];
};

type StoredMessage = { role: string; content: string };

let sandbox: Sandbox;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function openPage(): Promise<Page> {
  // Every test gets its own profile, so its sessionStorage (and so its session) starts empty.
  const context = await browser.newContext({ viewport: { width: 900, height: 640 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${sandbox.url}/`);
  await waitUntilConnected(page);
  return page;
}

async function waitUntilConnected(page: Page) {
  await page.locator('#status', { hasText: /^connected$/ }).waitFor();
  await page.locator('#send:not([disabled])').waitFor();
}

const sessionIdOf = (page: Page) =>
  page.evaluate(() => (globalThis as PageWindow).sessionStorage.getItem('switchboard-session'));

async function storedMessages(sessionId: string): Promise<StoredMessage[]> {
  const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(sessionId)}/messages`);
  if (res.status !== 200) return [];
  return ((await res.json()) as { messages: StoredMessage[] }).messages;
}

/** Types a message like a person would, sends it, and returns once the streamed reply is complete. */
async function converse(page: Page, message: string): Promise<{ sessionId: string; answer: string }> {
  // Every text the assistant bubble takes on is recorded in the page, as it happens, so that no
  // intermediate state can be missed the way polling from here could miss it.
  await page.evaluate(() => {
    const w = globalThis as PageWindow;
    w.assistantTexts = [];
    const log = w.document.querySelector('#log')!;
    new w.MutationObserver(() => {
      const text = w.document.querySelector('.msg.assistant')?.textContent ?? '';
      if (text !== '' && text !== w.assistantTexts.at(-1)) w.assistantTexts.push(text);
    }).observe(log, { childList: true, subtree: true, characterData: true });
  });
  await page.locator('#input').pressSequentially(message);
  await page.locator('#send').click();

  // The demo agent's reply always ends this way; the status goes back once the run is idle.
  await page.waitForFunction(() =>
    (globalThis as PageWindow).document
      .querySelector('.msg.assistant')
      ?.textContent?.endsWith('by a host-backed agent.'),
  );
  await waitUntilConnected(page);
  const sessionId = await sessionIdOf(page);
  expect(sessionId).toMatch(/^web-/);
  const answer = (await page.locator('.msg.assistant').textContent()) ?? '';
  return { sessionId: sessionId!, answer };
}

beforeAll(async () => {
  if (!haveChromium) return;
  const app = createSwitchboard();
  // Its six chunks take longer than a few flush windows (stream.coalesceMs), so the page renders the
  // reply in steps.
  app.registerHostAgent(demoAgent({ chunkDelayMs: 150 }));
  sandbox = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!haveChromium)('the demo host page in a real browser', () => {
  it('a person types a message on the demo page and watches the reply stream in', async () => {
    const page = await openPage();
    const message = 'please count these few words';
    const { sessionId, answer } = await converse(page, message);

    expect(await page.locator('.msg.user').allTextContents()).toEqual([message]);
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(answer).toMatch(/^You wrote 5 words \(28 characters\); the longest is "please"\. /);
    // The tool call and its result are shown as they happen, before the reply.
    const tools = await page.locator('.tool').allTextContents();
    expect(tools).toHaveLength(2);
    expect(tools[0]).toContain('text_stats');

    // Streaming: the bubble went through partial states, each extending the one before, and
    // ended on the full answer.
    const texts = await page.evaluate(() => (globalThis as PageWindow).assistantTexts);
    expect(texts.at(-1)).toBe(answer);
    const partials = texts.slice(0, -1);
    expect(partials.length).toBeGreaterThanOrEqual(2);
    for (const [i, text] of texts.entries()) {
      if (i > 0) expect(text.startsWith(texts[i - 1]!) && text.length > texts[i - 1]!.length).toBe(true);
    }

    // What the page shows is what the runtime stored.
    await expect
      .poll(async () => (await storedMessages(sessionId)).map(({ role, content }) => ({ role, content })), {
        timeout: 15_000,
        message: 'waiting for the stored conversation',
      })
      .toEqual([
        { role: 'user', content: message },
        { role: 'assistant', content: answer },
      ]);

    await page.screenshot({ path: join(tmpdir(), 'switchboard-page.png'), fullPage: true });
  });

  it('after a reload, the page re-joins its session and shows the conversation again', async () => {
    const page = await openPage();
    const message = 'remember this one';
    const { sessionId, answer } = await converse(page, message);

    await page.reload();
    await waitUntilConnected(page);
    expect(await sessionIdOf(page)).toBe(sessionId);
    // The replayed log rebuilds the same bubbles, once each.
    await page.locator('.msg.assistant', { hasText: 'by a host-backed agent.' }).waitFor();
    expect(await page.locator('.msg.user').allTextContents()).toEqual([message]);
    expect(await page.locator('.msg.assistant').allTextContents()).toEqual([answer]);
    expect(await page.locator('.tool').count()).toBe(2);
  });

  it('the page uploads a file straight to the bucket with a presigned URL, across origins, as the bucket’s CORS allows', async () => {
    const page = await openPage();
    const body = 'hello from a browser';
    const created = await fetch(`${sandbox.url}/api/files`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'note.txt', media_type: 'text/plain', size: body.length }),
    });
    expect(created.status).toBe(201);
    const file = (await created.json()) as {
      id: string;
      upload: { url: string; headers: Record<string, string> };
    };
    expect(new URL(file.upload.url).origin).not.toBe(new URL(sandbox.url).origin);
    // In the page: a cross-origin PUT with a content type, so the browser asks the bucket first.
    const put = (method: string) =>
      page.evaluate(
        async ({ url, headers, body, method }) => {
          try {
            return String(
              (await fetch(url, { method, headers, body: method === 'PUT' ? body : undefined })).status,
            );
          } catch (error) {
            return `refused: ${String(error)}`;
          }
        },
        { ...file.upload, body, method },
      );
    expect(await put('DELETE')).toMatch(/^refused: TypeError/);
    expect(await put('PUT')).toBe('200');
    const stored = await fetch(`${sandbox.url}/api/files/${file.id}`);
    expect(await stored.json()).toMatchObject({ id: file.id, status: 'stored', size: body.length });
  });
});
