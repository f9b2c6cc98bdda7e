import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import { haveChromium, launchChromium, VIEWPORTS } from '../support/browser.ts';
import { gatedAgent } from '../support/gated-agent.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { sessionIds } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

const agent = gatedAgent();
const { gate, aborted } = agent;

let sandbox: Sandbox;
let browser: Browser;
const contexts: BrowserContext[] = [];
const sid = sessionIds('usechat');

/** The demo page's `useChat` view (web/use-chat-view.tsx), as the sandbox serves it. */
async function openPage(
  viewport: { width: number; height: number },
  chat: string,
  agent: string,
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${sandbox.url}/?view=use-chat&chat=${encodeURIComponent(chat)}&agent=${agent}`);
  await page.locator('#chat').waitFor();
  return page;
}

/** Nothing to scroll sideways. */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const { documentElement } = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document;
    return documentElement.scrollWidth - documentElement.clientWidth;
  });

const ready = (page: Page) => page.locator('#chat[data-status="ready"]').waitFor();
const answers = (page: Page) => page.locator('.msg.assistant .text').allTextContents();

async function lastRunStatus(id: string) {
  const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(id)}`);
  return ((await res.json()) as { last_run?: { status?: string } }).last_run?.status;
}

beforeAll(async () => {
  if (!haveChromium) return;
  const app = createSwitchboard();
  app.registerHostAgent(agent.definition);
  for (const definition of pauseAgents().definitions) app.registerHostAgent(definition);
  app.registerHostAgent(demoAgent({ chunkDelayMs: 0 }));
  sandbox = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!haveChromium).each(VIEWPORTS)(
  'useChat with SwitchboardChatTransport in a real browser, $name',
  (viewport) => {
    // The gates are keyed by message: each width sends its own.
    const say = (text: string) => `${text} ${viewport.name}`;

    it('streams an answer: the first half shows while the agent waits, then the whole answer', async () => {
      const page = await openPage(viewport, sid('stream'), 'gated');
      const open = gate(say('stream me'));
      await page.locator('#message').fill(say('stream me'));
      await page.locator('#send').click();
      await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
      expect(await answers(page)).toEqual(['Hello ']);
      expect(await page.locator('#chat').getAttribute('data-status')).toBe('streaming');
      open();
      await page.locator('.msg.assistant .text', { hasText: 'Hello world.' }).waitFor();
      await ready(page);
      expect(await page.locator('.msg.user').allTextContents()).toEqual([say('stream me')]);
      expect(await answers(page)).toEqual(['Hello world.']);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
    });

    it('a tool approval: the buttons answer it through addToolApprovalResponse and the turn goes on', async () => {
      const page = await openPage(viewport, sid('approve'), 'pauser');
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
      expect(await sideways(page)).toBeLessThanOrEqual(0);
    });

    it('a reload in the middle of an answer resumes it from the stored log: the answer once', async () => {
      const chat = sid('reload');
      const page = await openPage(viewport, chat, 'gated');
      const open = gate(say('reload me'));
      await page.locator('#message').fill(say('reload me'));
      await page.locator('#send').click();
      await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();

      await page.reload();
      await page.locator('#chat').waitFor();
      // The stored user message, and the running turn replayed up to where it is.
      await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
      expect(await page.locator('.msg.user').allTextContents()).toEqual([say('reload me')]);
      open();
      await page.locator('.msg.assistant .text', { hasText: 'Hello world.' }).waitFor();
      await ready(page);
      expect(await answers(page)).toEqual(['Hello world.']);
      expect(await page.locator('.msg.assistant').count()).toBe(1);
    });

    it('Stop cancels the running turn', async () => {
      const chat = sid('stop');
      const page = await openPage(viewport, chat, 'gated');
      gate(say('stop me'));
      await page.locator('#message').fill(say('stop me'));
      await page.locator('#send').click();
      await page.locator('.msg.assistant .text', { hasText: 'Hello' }).waitFor();
      await page.locator('#stop').click();
      await ready(page);
      await expect.poll(() => aborted.has(say('stop me')), queued('the agent to be stopped')).toBe(true);
      await expect.poll(() => lastRunStatus(chat), queued('the run to be cancelled')).toBe('cancelled');
      expect(await answers(page)).toEqual(['Hello ']);
    });
  },
);

describe.skipIf(!haveChromium)('the useChat view at parity with the demo’s hook view', () => {
  /** A new chat of the demo agent, as the page's link opens one: no `chat` in the address. */
  async function newChat() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    // This sandbox serves anonymous callers, so the page's probe for a sandbox token is answered 404
    // (under `npm start` it gets one): every other failed request or console error counts.
    const probe = (url: string) => url.endsWith('/sandbox/token');
    page.on('console', (m) => m.type() === 'error' && !probe(m.location().url) && problems.push(m.text()));
    page.on(
      'response',
      (r) => r.status() >= 400 && !probe(r.url()) && problems.push(`${r.status()} ${r.url()}`),
    );
    await page.goto(`${sandbox.url}/?view=use-chat&agent=demo`);
    await page.locator('#chat[data-status="ready"]').waitFor();
    return { page, problems };
  }

  it('opens a new chat without a failed request, with the agent’s name and prompts; a question is answered with its options', async () => {
    const { page, problems } = await newChat();
    await page.locator('h1', { hasText: 'Demo assistant' }).waitFor();
    await page.locator('.suggestion', { hasText: 'Help me choose a plan' }).click();
    const question = page.locator('.card.user_question');
    await question.locator('.option', { hasText: 'Team' }).click();
    await page.locator('.msg.assistant .text', { hasText: 'Team it is: a fine choice.' }).waitFor();
    await question.filter({ hasText: 'Answered: Team' }).waitFor();
    await ready(page);
    expect(problems).toEqual([]);
  });

  it('answers the page’s client tool (local_time) itself, and the agent goes on with its output', async () => {
    const { page, problems } = await newChat();
    await page.locator('.suggestion', { hasText: 'What time is it here?' }).click();
    await page.locator('.tool[data-tool="local_time"][data-state="output-available"]').waitFor();
    await page.locator('.msg.assistant .text', { hasText: 'On your device it is' }).waitFor();
    await ready(page);
    // The answer ended: it can be asked for again.
    await page.locator('.regenerate').waitFor();
    expect(problems).toEqual([]);
  });
});
