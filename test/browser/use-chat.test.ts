import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostAgentDefinition } from '../../lib/agents/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { sessionIds } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

// Chromium from Debian's package, or CHROMIUM_PATH; as root it needs `--no-sandbox` (docs/testing.md).
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);

/** The gates the test opens: the gated agent streams "Hello ", then waits on its message's gate. */
const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
function gate(message: string) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  gates.set(message, { open, opened });
  return open;
}
/** The messages whose turn was stopped while the agent waited. */
const aborted = new Set<string>();

const gated: HostAgentDefinition = {
  info: { id: 'gated' },
  async invoke({ message }, { emit, signal }) {
    emit({ type: 'text', text: 'Hello ' });
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    await Promise.race([gates.get(message)?.opened, stopped]);
    if (signal.aborted) {
      aborted.add(message);
      return {};
    }
    emit({ type: 'text', text: 'world.' });
    return {};
  },
};

const PAGE = '/use-chat/index.html';
const SCRIPT = '/use-chat/main.js';

let sandbox: Sandbox;
let browser: Browser;
let script: string;
const contexts: BrowserContext[] = [];
const sid = sessionIds('usechat');

/** The `useChat` page (web/react), built for the browser, served at the sandbox's origin. */
async function openPage(chat: string, agent: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  contexts.push(context);
  await context.route(`${sandbox.url}${PAGE}*`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><body><div id="root"></div><script type="module" src="${SCRIPT}"></script></body></html>`,
    }),
  );
  await context.route(`${sandbox.url}${SCRIPT}`, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: script }),
  );
  const page = await context.newPage();
  await page.goto(`${sandbox.url}${PAGE}?chat=${encodeURIComponent(chat)}&agent=${agent}`);
  await page.locator('#chat').waitFor();
  return page;
}

const ready = (page: Page) => page.locator('#chat[data-status="ready"]').waitFor();
const answers = (page: Page) => page.locator('.msg.assistant .text').allTextContents();

async function lastRunStatus(id: string) {
  const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(id)}`);
  return ((await res.json()) as { last_run?: { status?: string } }).last_run?.status;
}

beforeAll(async () => {
  if (!haveChromium) return;
  const app = createSwitchboard();
  app.registerHostAgent(gated);
  for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);
  sandbox = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
  const built = await build({
    entryPoints: [fileURLToPath(new URL('../../web/react/use-chat-main.tsx', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2023',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'silent',
  });
  script = built.outputFiles[0]!.text;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      // The page is a routed response, which Chromium counts as a public origin opening a local
      // socket; the sandbox is local by design.
      '--disable-features=LocalNetworkAccessChecks',
    ],
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!haveChromium)('useChat with SwitchboardChatTransport in a real browser', () => {
  it('streams an answer: the first half shows while the agent waits, then the whole answer', async () => {
    const page = await openPage(sid('stream'), 'gated');
    const open = gate('stream me');
    await page.locator('#message').fill('stream me');
    await page.locator('#send').click();
    await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
    expect(await answers(page)).toEqual(['Hello ']);
    expect(await page.locator('#chat').getAttribute('data-status')).toBe('streaming');
    open();
    await page.locator('.msg.assistant .text', { hasText: 'Hello world.' }).waitFor();
    await ready(page);
    expect(await page.locator('.msg.user').allTextContents()).toEqual(['stream me']);
    expect(await answers(page)).toEqual(['Hello world.']);
  });

  it('a tool approval: the buttons answer it through addToolApprovalResponse and the turn goes on', async () => {
    const page = await openPage(sid('approve'), 'pauser');
    await page.locator('#message').fill('wire');
    await page.locator('#send').click();
    const tool = page.locator('.tool[data-tool="wire_money"]');
    await tool.locator('.approve').waitFor();
    expect(await tool.locator('code').textContent()).toBe('wire_money({"amount":5})');
    await ready(page);
    await tool.locator('.approve').click();
    await page.locator('.msg.assistant .text', { hasText: 'resolved req_wire: "approve"' }).waitFor();
    await ready(page);
    expect(await tool.locator('.outcome').textContent()).toBe('Approved');
    expect(await page.locator('.msg.assistant').count()).toBe(1);
  });

  it('a reload in the middle of an answer resumes it from the stored log: the answer once', async () => {
    const chat = sid('reload');
    const page = await openPage(chat, 'gated');
    const open = gate('reload me');
    await page.locator('#message').fill('reload me');
    await page.locator('#send').click();
    await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();

    await page.reload();
    await page.locator('#chat').waitFor();
    // The stored user message, and the running turn replayed up to where it is.
    await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
    expect(await page.locator('.msg.user').allTextContents()).toEqual(['reload me']);
    open();
    await page.locator('.msg.assistant .text', { hasText: 'Hello world.' }).waitFor();
    await ready(page);
    expect(await answers(page)).toEqual(['Hello world.']);
    expect(await page.locator('.msg.assistant').count()).toBe(1);
  });

  it('Stop cancels the running turn', async () => {
    const chat = sid('stop');
    const page = await openPage(chat, 'gated');
    gate('stop me');
    await page.locator('#message').fill('stop me');
    await page.locator('#send').click();
    await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
    await page.locator('#stop').click();
    await ready(page);
    await expect.poll(() => aborted.has('stop me'), queued('the agent to be stopped')).toBe(true);
    await expect.poll(() => lastRunStatus(chat), queued('the run to be cancelled')).toBe('cancelled');
    expect(await answers(page)).toEqual(['Hello ']);
  });
});
