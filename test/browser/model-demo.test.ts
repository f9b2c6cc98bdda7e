import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_INFO } from '../../demo/demo-agent.ts';
import { startDemoMcpServer } from '../../demo/mcp-server.ts';
import { demoModelAgent, MODEL_DEMO_SUGGESTIONS, UPTIME_PROMPT } from '../../demo/model-agent.ts';
import script from '../../demo/model-script.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { LocalMcpServer } from '../../sandbox/mcp-server.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import { expectFits, expectInView, haveChromium, launchChromium, VIEWPORTS } from '../support/browser.ts';

/**
 * The model demo (`npm run start:model`) in a real browser: the demo agent as a Chat Completions
 * agent on the sandbox's scripted model (demo/model-script.ts), on the demo page as a person meets
 * it. Every suggested prompt reaches its feature, and a turn that fails shows its error under it.
 */
const KEY = 'sk-9f8e7d6c5b4a3210';
/** A prompt the model endpoint refuses: the turn fails with `model_error`. */
const FAILING = 'please fail this turn';

let model: ScriptedModel;
let status: LocalMcpServer;
let sandbox: Sandbox;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  model = await startScriptedModel({
    script: {
      ...script,
      rules: [
        { match: FAILING, on: 'user', error: { status: 400, message: 'the scripted model refuses this' } },
        ...(script.rules ?? []),
      ],
    },
    apiKey: KEY,
  });
  status = await startDemoMcpServer();
  const app = createSwitchboard();
  app.registerChatCompletionsAgent(
    demoModelAgent({ baseURL: model.baseURL, apiKey: KEY, statusUrl: status.url }),
  );
  // Signed in as the page is under `npm run start:model`: it takes its token from /sandbox/token.
  sandbox = await startSandbox({ app, port: 0, logLevel: 'SILENT', jwt: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await sandbox?.close();
  await status?.close();
  await model?.close();
});

async function openAt(viewport: { width: number; height: number }, path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on(
    'console',
    (message) => message.type() === 'error' && errors.push(`${message.text()} (${message.location().url})`),
  );
  page.on('requestfailed', (request) => errors.push(`${request.method()} ${request.url()} failed`));
  (page as Page & { consoleErrors?: string[] }).consoleErrors = errors;
  await page.goto(`${sandbox.url}${path}`);
  return page;
}

const consoleErrors = (page: Page) => (page as Page & { consoleErrors?: string[] }).consoleErrors ?? [];
const idle = (page: Page) => page.locator('.sb-cancel[disabled]').waitFor();
const suggest = (page: Page, text: string) =>
  page.locator('.sb-suggestions button', { hasText: text }).click();
const answer = (page: Page, text: string) => page.locator('.msg.assistant', { hasText: text }).waitFor();

describe.skipIf(!haveChromium).each(VIEWPORTS)('the model demo on the hook view, $name', (viewport) => {
  it('is the same demo: its name, issue list and prompts; every prompt reaches its feature, in view', async () => {
    const page = await openAt(viewport, '/');
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    expect(await page.locator('.sb-title').textContent()).toBe(DEMO_INFO.name);
    expect(await page.locator('.sb-suggestions button').allTextContents()).toEqual(MODEL_DEMO_SUGGESTIONS);
    expect(await page.locator('#issues li').count()).toBe(6);

    // A backend tool.
    await suggest(page, 'Count the words in this sentence');
    await answer(page, 'That sentence has 6 words');
    expect(await page.locator('.tool[data-tool="text_stats"]').count()).toBeGreaterThan(0);
    await idle(page);
    await expectInView(page);

    // A tool of the demo's MCP server.
    await suggest(page, UPTIME_PROMPT);
    await answer(page, 'The issue tracker was up 99.98%');
    expect(await page.locator('.tool[data-tool="status__uptime"]').count()).toBeGreaterThan(0);
    await idle(page);

    // An approval, its arguments edited within the schema: the card shows what was approved.
    await suggest(page, 'Refund order 1042');
    const card = page.locator('.card.tool_approval');
    await card.locator('.approve').waitFor();
    await answer(page, 'I can refund $25 on order 1042 once you approve.');
    await idle(page);
    await expectInView(page);
    await card.locator('textarea').fill(JSON.stringify({ order: 1042, amount: 20 }));
    await card.locator('.approve').click();
    await answer(page, 'The refund is done.');
    await card.locator('.outcome', { hasText: 'Approved with {"order":1042,"amount":20}' }).waitFor();
    expect(JSON.parse(await card.locator('textarea').inputValue())).toEqual({ order: 1042, amount: 20 });
    await idle(page);

    // A question, answered with one of its options.
    await suggest(page, 'Help me choose a plan');
    const question = page.locator('.card.user_question');
    await question.locator('.option', { hasText: 'Team' }).waitFor();
    await idle(page);
    await expectInView(page);
    await question.locator('.option', { hasText: 'Team' }).click();
    await answer(page, 'A fine choice: that plan it is.');
    await question.locator('.outcome', { hasText: 'Answered: Team' }).waitFor();
    await idle(page);

    // A client tool, answered by the page.
    await suggest(page, 'What time is it here?');
    await answer(page, 'That is the time your device gave.');
    expect(await page.locator('.card.client_tool .handled').textContent()).toBe(
      'Answered by this page (local_time).',
    );
    await idle(page);

    // The page's host actions, offered to the model from its host context.
    await suggest(page, 'Show only closed issues');
    await answer(page, 'Done: your page shows the closed issues.');
    await page.locator('#issue-change', { hasText: 'The agent set the filter to closed' }).waitFor();
    expect(await page.locator('#filters [aria-pressed="true"]').textContent()).toBe('Closed');
    await idle(page);
    await suggest(page, 'Close issue #2');
    await answer(page, 'Done: issue #2 is closed.');
    await page.locator('#issue-change', { hasText: 'The agent closed issue #2.' }).waitFor();
    await idle(page);
    await expectInView(page);

    // A long answer, cancelled.
    await suggest(page, 'Tell me a long story');
    await answer(page, 'Once upon a time');
    await page.locator('.sb-cancel').click();
    await page.locator('.note', { hasText: 'Stopped.' }).waitFor();
    await idle(page);
    await expectInView(page);
    await expectFits(page, viewport);
    expect(consoleErrors(page)).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('the model demo on the hook view: files and errors', () => {
  const [, phone] = VIEWPORTS;

  it('an attached file reaches the model; each failed turn shows its own error under it', async () => {
    const page = await openAt(phone!, '/');
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    await page.locator('.sb-file').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('a file for the model'),
    });
    await page.locator('.sb-pending-files .file', { hasText: 'notes.txt' }).waitFor();
    await page.locator('.sb-input').fill('What is in the file?');
    await page.locator('.sb-send').click();
    await answer(page, 'I see your file');
    await page.locator('.msg.user .file', { hasText: 'notes.txt' }).waitFor();
    expect(await page.locator('.tool[data-tool="list_files"]').count()).toBeGreaterThan(0);
    await idle(page);

    // Two failed turns, an answer between them: each error stays under its own turn.
    for (const attempt of ['one', 'two']) {
      await page.locator('.sb-input').fill(`${FAILING} ${attempt}`);
      await page.locator('.sb-send').click();
      await expect.poll(() => page.locator('.turn-error').count()).toBe(attempt === 'one' ? 1 : 2);
      await idle(page);
      if (attempt === 'one') {
        await page.locator('.sb-input').fill('hello');
        await page.locator('.sb-send').click();
        await answer(page, 'Try one of the suggested prompts.');
        await idle(page);
      }
    }
    const order = await page
      .locator('.sb-log > .msg, .sb-log > .turn-error')
      .evaluateAll((nodes) =>
        nodes.map((n) => (n as unknown as { className: string; textContent: string }).className),
      );
    // user, error, user, answer, user, error: each error right after the message that failed.
    const shape = order.slice(-6).map((name) => (name.includes('turn-error') ? 'error' : name));
    expect(shape).toEqual(['msg user', 'error', 'msg user', 'msg assistant', 'msg user', 'error']);
    expect(await page.locator('.turn-error').first().getAttribute('data-code')).toBe('model_error');
    await expectInView(page);

    // A reload shows them in the same places.
    await page.reload();
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    await expect.poll(() => page.locator('.turn-error').count()).toBe(2);
  });
});

describe.skipIf(!haveChromium)('the model demo on the hook view: rate, regenerate, edit, reload', () => {
  const [, phone] = VIEWPORTS;

  it('rates an answer (kept after a reload), regenerates it, edits the message with its file, and resumes a story after a reload', async () => {
    const page = await openAt(phone!, '/');
    const connected = () => page.locator('.sb-connection[data-status="open"]').waitFor();
    await connected();
    await page
      .locator('.sb-file')
      .setInputFiles({ name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('a plan') });
    await page.locator('.sb-pending-files .file', { hasText: 'plan.txt' }).waitFor();
    await page.locator('.sb-input').fill('Read the file');
    await page.locator('.sb-send').click();
    await answer(page, 'I see your file');
    await idle(page);

    // A rating, read back after a reload.
    const stored = page.waitForResponse((res) => res.url().endsWith('/feedback') && res.status() === 200);
    await page.locator('.controls.answer [data-rating="up"]').click();
    await page.locator('.controls.answer [data-rating="up"][aria-pressed="true"]').waitFor();
    await stored;
    await page.reload();
    await connected();
    await page.locator('.controls.answer [data-rating="up"][aria-pressed="true"]').waitFor();

    // Regenerate: the answer is asked for again, in its place.
    const first = await page.locator('.msg.assistant').last().getAttribute('data-message-id');
    await page.locator('.regenerate').click();
    await expect
      .poll(() => page.locator('.msg.assistant').last().getAttribute('data-message-id'))
      .not.toBe(first);
    await answer(page, 'I see your file');
    await idle(page);
    expect(await page.locator('.msg.assistant').count()).toBe(1);

    // An edit keeps the file: the model reads it again with the new words.
    await page.locator('.controls.user-controls .edit').click();
    await page.locator('.edit-field').fill('Read the file again');
    await page.locator('.resend').click();
    await page.locator('.msg.user', { hasText: 'Read the file again' }).waitFor();
    await page.locator('.msg.user .file', { hasText: 'plan.txt' }).waitFor();
    await answer(page, 'I see your file');
    await idle(page);
    expect(await page.locator('.msg.user').count()).toBe(1);

    // A story held open by the model: a reload finds it running, and Cancel stops it.
    await suggest(page, 'Tell me a long story');
    await answer(page, 'Once upon a time');
    await page.reload();
    await connected();
    await answer(page, 'Once upon a time');
    await page.locator('.sb-cancel:not([disabled])').click();
    await page.locator('.note', { hasText: 'Stopped.' }).waitFor();
    await idle(page);
    await expectInView(page);
    expect(consoleErrors(page)).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('the model demo on the useChat view', () => {
  const [, phone] = VIEWPORTS;

  it('is the same demo: the issue list beside it, and every suggested prompt reaches its feature', async () => {
    const page = await openAt(phone!, '/?view=use-chat');
    const ready = () => page.locator('#chat[data-status="ready"]').waitFor();
    await page.locator('h1', { hasText: DEMO_INFO.name }).waitFor();
    expect(await page.locator('#suggestions .suggestion').allTextContents()).toEqual(MODEL_DEMO_SUGGESTIONS);
    expect(await page.locator('#issues li').count()).toBe(6);
    const suggestion = (text: string) => page.locator('#suggestions .suggestion', { hasText: text }).click();
    const tool = (name: string) => page.locator(`.tool[data-tool="${name}"]`).last();

    await suggestion('Count the words in this sentence');
    await answer(page, 'That sentence has 6 words');
    await ready();

    await suggestion(UPTIME_PROMPT);
    await answer(page, 'The issue tracker was up 99.98%');
    await ready();

    // An approval: useChat approves or denies (edited arguments are the hook view's).
    await suggestion('Refund order 1042');
    await tool('issue_refund').locator('.approve').click();
    await answer(page, 'The refund is done.');
    await ready();

    await suggestion('Help me choose a plan');
    await page.locator('.card.user_question .option', { hasText: 'Team' }).click();
    await answer(page, 'A fine choice: that plan it is.');
    await ready();

    await suggestion('What time is it here?');
    await answer(page, 'That is the time your device gave.');
    await ready();

    // The page's actions, answered by this page's handlers: its issue list changes.
    await suggestion('Show only closed issues');
    await answer(page, 'Done: your page shows the closed issues.');
    expect(await page.locator('#filters [aria-pressed="true"]').textContent()).toBe('Closed');
    await ready();
    await suggestion('Close issue #2');
    await answer(page, 'Done: issue #2 is closed.');
    await page.locator('#issue-change', { hasText: 'The agent closed issue #2.' }).waitFor();
    await ready();

    await suggestion('Tell me a long story');
    await answer(page, 'Once upon a time');
    await page.locator('#stop').click();
    await ready();
    // The useChat view has no connection indicator: useChat has no such state.
    await expectInView(page, ['.sb-composer', '.sb-input', '.sb-send', '.sb-activity', '.sb-log']);

    // A failed turn: its error under it, also after a reload.
    await page.locator('#message').fill(`${FAILING} in useChat`);
    await page.locator('#send').click();
    await page.locator('.turn-error[data-code="model_error"]').waitFor();
    expect(await page.locator('#error').count()).toBe(0);
    await page.reload();
    await page.locator('.turn-error[data-code="model_error"]').waitFor();
    expect(consoleErrors(page)).toEqual([]);
  });
});
