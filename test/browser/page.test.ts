import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import {
  expectFits,
  expectInView,
  haveChromium,
  launchChromium,
  seriousViolations,
  VIEWPORTS,
  type Viewport,
} from '../support/browser.ts';
import { sha256Of } from '../support/sandbox.ts';

// The type check has no DOM lib, so the in-page functions see the page through this narrow view.
type PageNode = {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageNode>;
};
type PageWindow = typeof globalThis & {
  document: {
    querySelector(selector: string): PageNode | null;
    documentElement: { scrollWidth: number; clientWidth: number };
    activeElement?: { id: string } | null;
  };
  sessionStorage: { getItem(key: string): string | null };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: PageNode, options: Record<string, unknown>): void };
  answerTexts: string[];
  connectionStates: string[];
};

type StoredMessage = { role: string; content: string };

/** The story the demo tells for "Tell me a long story", as its chunks add up. */
const STORY_START = 'Once upon a time, a switchboard operator named Ada';
const STORY_END = 'The town called it the night nothing was lost.';

/**
 * Where the screenshots go: docs/images with SCREENSHOTS=1 (`SCREENSHOTS=1 npx vitest run
 * test/browser`), for the README; else a temporary folder, so a test run changes no file of the repository.
 */
const screenshotPath = (name: string) =>
  process.env.SCREENSHOTS === '1'
    ? fileURLToPath(new URL(`../../docs/images/${name}.png`, import.meta.url))
    : join(tmpdir(), `switchboard-${name}.png`);

let sandbox: Sandbox;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function openAt(viewport: Viewport, url: string): Promise<Page> {
  // Every test gets its own profile, so its sessionStorage (its session and its issue list) starts empty.
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(url);
  await connected(page);
  return page;
}

const connected = (page: Page) => page.locator('.sb-connection[data-status="open"]').waitFor();

/** Waits until no turn runs: the page clears its activity line when the session is idle. */
const idle = (page: Page) => page.locator('.sb-cancel[disabled]').waitFor();

const sessionIdOf = async (page: Page) =>
  (await page.evaluate(() => (globalThis as PageWindow).sessionStorage.getItem('switchboard-session')))!;

async function storedMessages(sessionId: string): Promise<StoredMessage[]> {
  const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(sessionId)}/messages`);
  if (res.status !== 200) return [];
  return ((await res.json()) as { messages: StoredMessage[] }).messages.map(({ role, content }) => ({
    role,
    content,
  }));
}

/** The stored conversation, once it equals `expected` (the worker stores the answer as the turn ends). */
const expectStored = (sessionId: string, expected: StoredMessage[]) =>
  expect
    .poll(() => storedMessages(sessionId), {
      timeout: 15_000,
      message: 'waiting for the stored conversation',
    })
    .toEqual(expected);

/**
 * Records, in the page, every text the newest answer bubble takes on and every state of the
 * connection indicator, as they happen, so that no intermediate state is missed.
 */
function record(page: Page) {
  return page.evaluate(() => {
    const w = globalThis as PageWindow;
    w.answerTexts = [];
    w.connectionStates = [];
    const answers = () => w.document.querySelector('.sb-log')!.querySelectorAll('.msg.assistant .text');
    new w.MutationObserver(() => {
      const all = answers();
      const text = all.length > 0 ? (all[all.length - 1]!.textContent ?? '') : '';
      if (text !== '' && text !== w.answerTexts.at(-1)) w.answerTexts.push(text);
    }).observe(w.document.querySelector('.sb-log')!, { childList: true, subtree: true, characterData: true });
    const indicator = w.document.querySelector('.sb-connection')!;
    new w.MutationObserver(() => {
      const state = indicator.getAttribute('data-status') ?? '';
      if (state !== w.connectionStates.at(-1)) w.connectionStates.push(state);
    }).observe(indicator, { attributes: true, attributeFilter: ['data-status'] });
  });
}

const recorded = (page: Page) =>
  page.evaluate(() => {
    const w = globalThis as PageWindow;
    return { texts: w.answerTexts, states: w.connectionStates };
  });

/** Every text grows the one before it: streamed, never repeated or rewound. */
function expectGrowing(texts: string[]) {
  for (const [i, text] of texts.entries()) {
    if (i > 0) expect(text.startsWith(texts[i - 1]!) && text.length > texts[i - 1]!.length, text).toBe(true);
  }
}

const suggest = (page: Page, text: string) =>
  page.locator('.sb-suggestions button', { hasText: text }).click();

beforeAll(async () => {
  if (!haveChromium) return;
  const app = createSwitchboard();
  // Its chunks take longer than a few flush windows (stream.coalesceMs), so the page renders the
  // reply in steps; the story's 22 chunks take over 5 s, time to reload or lose the connection.
  app.registerHostAgent(demoAgent({ chunkDelayMs: 150, storyDelayMs: 250 }));
  sandbox = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
  browser = await launchChromium();
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!haveChromium).each(VIEWPORTS)(
  'the demo host page in a real browser, $name ($width px)',
  (viewport) => {
    const openPage = () => openAt(viewport, `${sandbox.url}/`);
    // Flows whose layout is the same at any width (the paced story's reload, lost connection and
    // cancel, a rating read back after a reload, a question card, an attached file, a client tool with
    // no UI, the upload's CORS) take seconds each: they run at the narrow width, where the layout is
    // tightest. At 1280 px the first test checks the page's own controls in view; the question card
    // and an attached file are not drawn there.
    const atPhone = viewport.name === 'phone' ? it : () => undefined;

    it('shows the demo agent by its name, offers its suggestions, and shows the issue list beside the chat', async () => {
      const page = await openPage();
      expect(await page.locator('.sb-title').textContent()).toBe('Demo assistant');
      expect(await page.locator('.sb-suggestions button').allTextContents()).toEqual(
        demoAgent().info.suggestions,
      );
      expect(await page.locator('#app').isVisible()).toBe(true);
      expect(await page.locator('#issues li').count()).toBe(6);
      // Every control of the chat is on screen, not clipped or pushed off it.
      for (const control of [
        '.sb-input',
        '.sb-send',
        '.sb-cancel',
        'label:has(.sb-file)',
        '#new-conversation',
        '#to-use-chat',
        '#toggle-threads',
        'select',
      ])
        expect(await page.locator(control).first().isVisible(), control).toBe(true);
      // The sandbox's inspector is a link away on a laptop; a phone's bar keeps to the chat's controls.
      expect(await page.getByRole('link', { name: 'Inspector' }).isVisible()).toBe(
        viewport.name === 'desktop',
      );
      await expectFits(page, viewport);
      await expectInView(page);
    });

    it('a person types a message and watches the reply stream in, with the tool call shown as it happens', async () => {
      const page = await openPage();
      await record(page);
      const message = 'please count these few words';
      await page.locator('.sb-input').pressSequentially(message);
      await page.locator('.sb-send').click();
      await page.locator('.msg.assistant', { hasText: 'by a host-backed agent.' }).waitFor();
      await idle(page);

      expect(await page.locator('.msg.user').allTextContents()).toEqual([message]);
      const answer = (await page.locator('.msg.assistant').textContent()) ?? '';
      expect(answer).toMatch(/^You wrote 5 words \(28 characters\); the longest is "please"\. /);
      // The call and its result, each labelled by the tool's name.
      const tools = await page.locator('.tool').allTextContents();
      expect(tools).toHaveLength(2);
      expect(tools[0]).toMatch(/^→ text_stats\(/);
      expect(tools[1]).toMatch(/^← text_stats: \{/);

      // Streaming: the bubble went through partial states, each extending the one before.
      const { texts } = await recorded(page);
      expect(texts.at(-1)).toBe(answer);
      expect(texts.length).toBeGreaterThanOrEqual(3);
      expectGrowing(texts);
      await expectStored(await sessionIdOf(page), [
        { role: 'user', content: message },
        { role: 'assistant', content: answer },
      ]);
      await expectFits(page, viewport);
      await expectInView(page);
      await page.screenshot({
        path: screenshotPath(viewport.name === 'desktop' ? 'demo-page' : 'demo-page-phone'),
      });
    });

    it('an approval card: arguments edited beyond the schema are refused in the page, valid ones approved', async () => {
      const page = await openPage();
      await suggest(page, 'Refund order 1042');
      const card = page.locator('.card.tool_approval');
      await card.waitFor();
      expect(await card.locator('strong').textContent()).toBe('Refund $25 on order 1042?');
      await idle(page);
      await expectInView(page);
      // The lead-in text comes before the card; an answer that waits on a card has no ratings yet.
      expect(
        await page
          .locator('.sb-log > *')
          .evaluateAll((nodes) => nodes.map((n) => (n as unknown as PageNode).getAttribute('class'))),
      ).toEqual(['msg user', 'controls user-controls', 'msg assistant', 'card tool_approval']);
      expect(await page.locator('.controls.answer').count()).toBe(0);

      // Over the schema's maximum: the client checks argsSchema and sends nothing.
      await card.locator('textarea').fill('{"order": 1042, "amount": 500}');
      await card.locator('.approve').click();
      await expect
        .poll(() => card.locator('.problem').textContent())
        .toBe('approved_args.amount: must be <= 100');
      expect(await card.getAttribute('class')).not.toContain('settled');
      // No serious or critical accessibility violation (axe-core, contrast included), with a card open
      // and its refusal shown, at this width.
      expect(await seriousViolations(page)).toEqual([]);

      await card.locator('textarea').fill('{"order": 1042, "amount": 40}');
      await card.locator('.approve').click();
      await page.locator('.msg.assistant', { hasText: 'Refunded $40 on order 1042.' }).waitFor();
      await card.locator('.outcome', { hasText: 'Approved' }).waitFor();
      expect(await card.locator('.approve').isDisabled()).toBe(true);
      // The card shows what was approved: the edited amount, not the one asked for.
      const approved = async () => ({
        outcome: await card.locator('.outcome').textContent(),
        args: JSON.parse(await card.locator('textarea').inputValue()),
      });
      const shown = {
        outcome: 'Approved with {"order":1042,"amount":40}',
        args: { order: 1042, amount: 40 },
      };
      expect(await approved()).toEqual(shown);
      // The answer has ended: its controls show, under its last part, in view.
      await page.locator('.controls.answer').last().waitFor();
      await idle(page);
      await expectInView(page);
      await expectStored(await sessionIdOf(page), [
        { role: 'user', content: 'Refund order 1042' },
        {
          role: 'assistant',
          content:
            'I can refund order 1042 for $25. It needs your approval; you may change the amount (at most $100).',
        },
        { role: 'assistant', content: 'Refunded $40 on order 1042.' },
      ]);
      await expectFits(page, viewport);
      // Read back from the log after a reload, the card still shows the approved arguments.
      await page.reload();
      await connected(page);
      await card.locator('.outcome').waitFor();
      expect(await approved()).toEqual(shown);
    });

    it('a host action: the agent changes the page’s filter and closes an issue through the page’s own handlers', async () => {
      const page = await openPage();
      expect(await page.locator('#issues li').count()).toBe(6);
      await suggest(page, 'Show only closed issues');
      await page
        .locator('.msg.assistant', { hasText: 'Done: your page now shows 2 closed issues.' })
        .waitFor();
      expect(await page.locator('#filters [aria-pressed="true"]').textContent()).toBe('Closed');
      // What changed is said where it shows, even with the list folded away on a phone.
      await page
        .locator('#issue-change', { hasText: 'The agent set the filter to closed: 2 shown.' })
        .waitFor();
      expect(
        await Promise.all(
          (await page.locator('#issues li').all()).map((li) => li.getAttribute('data-status')),
        ),
      ).toEqual(['closed', 'closed']);
      await idle(page);

      await suggest(page, 'Close issue #2');
      await page.locator('.msg.assistant', { hasText: 'Done: issue #2 is closed.' }).waitFor();
      expect(await page.locator('#issues li[data-number="2"]').getAttribute('data-status')).toBe('closed');
      expect(await page.locator('#issues li').count()).toBe(3);
      await page.locator('#issue-change', { hasText: 'The agent closed issue #2.' }).waitFor();
      expect(await page.locator('#issue-change').isVisible()).toBe(true);
      await idle(page);
      await expectInView(page);
      // The calls are shown where they happened, each once.
      expect(await page.locator('.tool.host').allTextContents()).toEqual([
        '⇢ set_filter({"status":"closed"}) on this page',
        '⇢ close_issue({"number":2}) on this page',
      ]);
      await expectFits(page, viewport);
    });

    atPhone(
      'a reload in the middle of a streamed answer resumes where it was: nothing lost, nothing twice',
      async () => {
        const page = await openPage();
        await suggest(page, 'Tell me a long story');
        const bubble = page.locator('.msg.assistant .text');
        await page.waitForFunction(
          (start) =>
            (
              (globalThis as PageWindow).document.querySelector('.msg.assistant .text')?.textContent ?? ''
            ).startsWith(start),
          STORY_START,
        );
        const before = (await bubble.textContent()) ?? '';
        const sessionId = await sessionIdOf(page);

        await page.reload();
        // The page renders once it knows its agent: then it records.
        await connected(page);
        await record(page);
        expect(await sessionIdOf(page)).toBe(sessionId);
        await page.locator('.msg.assistant', { hasText: STORY_END }).waitFor();
        await idle(page);

        const story = (await bubble.textContent()) ?? '';
        // The reload came mid-stream, and the page went on from there to the end.
        expect(before.length).toBeLessThan(story.length);
        expect(story.startsWith(before)).toBe(true);
        expect(await page.locator('.msg.user').allTextContents()).toEqual(['Tell me a long story']);
        expect(await page.locator('.msg.assistant').count()).toBe(1);
        expectGrowing((await recorded(page)).texts);
        await expectStored(sessionId, [
          { role: 'user', content: 'Tell me a long story' },
          { role: 'assistant', content: story },
        ]);
      },
    );

    atPhone(
      'a connection lost mid-stream comes back: the indicator says so and the answer completes without a gap',
      async () => {
        const page = await openPage();
        await record(page);
        await suggest(page, 'Tell me a long story');
        await page.waitForFunction(
          (start) =>
            (
              (globalThis as PageWindow).document.querySelector('.msg.assistant .text')?.textContent ?? ''
            ).startsWith(start),
          STORY_START,
        );
        // The server side cuts the page's socket, as API Gateway does at its limits.
        const ids = sandbox.connections();
        expect(ids.length).toBeGreaterThan(0);
        for (const id of ids)
          await (await sandbox.runtime.connections!()).send(
            new DeleteConnectionCommand({ ConnectionId: id }),
          );

        await page.locator('.msg.assistant', { hasText: STORY_END }).waitFor();
        await idle(page);
        await connected(page);
        const { texts, states } = await recorded(page);
        // The indicator showed the loss, then the connection back.
        expect(states).toContain('reconnecting');
        expect(states.slice(states.indexOf('reconnecting')).at(-1)).toBe('open');
        const story = texts.at(-1)!;
        expectGrowing(texts);
        await expectStored(await sessionIdOf(page), [
          { role: 'user', content: 'Tell me a long story' },
          { role: 'assistant', content: story },
        ]);
      },
    );

    atPhone('a question card: a person picks an option and the turn goes on with it', async () => {
      const page = await openPage();
      await suggest(page, 'Help me choose a plan');
      const card = page.locator('.card.user_question');
      await card.waitFor();
      await page.locator('.msg.assistant', { hasText: 'Happy to help. One question first.' }).waitFor();
      await idle(page);
      // The lead-in text comes before the card it leads into, both in view.
      expect(
        await page
          .locator('.sb-log > *')
          .evaluateAll((nodes) => nodes.map((n) => (n as unknown as PageNode).getAttribute('class'))),
      ).toEqual(['msg user', 'controls user-controls', 'msg assistant', 'card user_question']);
      await expectInView(page);
      expect(await seriousViolations(page)).toEqual([]);
      await card.locator('.option', { hasText: 'Team' }).click();
      await page.locator('.msg.assistant', { hasText: 'Team it is: a fine choice.' }).waitFor();
      await card.locator('.outcome', { hasText: 'Answered: Team' }).waitFor();
      await idle(page);
      await expectFits(page, viewport);
      await expectInView(page);
    });

    atPhone('a client tool: the page answers it with its own handler, nobody is asked', async () => {
      const page = await openPage();
      await suggest(page, 'What time is it here?');
      await page.locator('.msg.assistant', { hasText: 'On your device it is' }).waitFor();
      expect(await page.locator('.card.client_tool .handled').textContent()).toBe(
        'Answered by this page (local_time).',
      );
    });

    atPhone('a rating stays after a reload: the page reads it back from the stored messages', async () => {
      const page = await openPage();
      await suggest(page, 'Count the words in this sentence');
      // The controls come with the final answer.
      const good = page.locator('.controls.answer [data-rating="up"]');
      await good.waitFor();
      await idle(page);
      await good.click();
      await page.locator('.controls.answer [data-rating="up"][aria-pressed="true"]').waitFor();
      const sessionId = await sessionIdOf(page);
      await expect
        .poll(async () => {
          const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(sessionId)}/messages`);
          const { messages } = (await res.json()) as { messages: { feedback?: { rating?: string } }[] };
          return messages.map((message) => message.feedback?.rating ?? null);
        })
        .toEqual([null, 'up']);

      await page.reload();
      await connected(page);
      await page.locator('.controls.answer [data-rating="up"][aria-pressed="true"]').waitFor();
      expect(await page.locator('.controls.answer [data-rating="down"]').getAttribute('aria-pressed')).toBe(
        'false',
      );
    });

    atPhone('an attached file shows in the sent bubble, and after a reload; the agent reads it', async () => {
      const page = await openPage();
      await page.locator('.sb-file').setInputFiles({
        name: 'note.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('the quick brown fox jumps over the lazy dog'),
      });
      await page.locator('.sb-pending-files .file', { hasText: 'File: note.txt' }).waitFor();
      await page.locator('.sb-send').click();
      await page.locator('.msg.user .file', { hasText: 'note.txt' }).waitFor();
      expect(await page.locator('.sb-pending-files .file').count()).toBe(0);
      await page.locator('.msg.assistant', { hasText: 'note.txt has 9 words' }).waitFor();
      expect(await page.locator('.tool').first().textContent()).toMatch(/^→ read_file\(/);
      await expectFits(page, viewport);
      // The log does not repeat a message's files: the page reads them back from the stored message.
      await page.reload();
      await connected(page);
      await page.locator('.msg.assistant', { hasText: 'note.txt has 9 words' }).waitFor();
      await page.locator('.msg.user .file', { hasText: 'note.txt' }).waitFor();
    });

    atPhone(
      'an edit: its buttons are readable, Cancel leaves the message as it was, a file stays on the edited message',
      async () => {
        const page = await openPage();
        await page.locator('.sb-file').setInputFiles({
          name: 'note.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('the quick brown fox jumps over the lazy dog'),
        });
        await page.locator('.sb-pending-files .file', { hasText: 'File: note.txt' }).waitFor();
        await page.locator('.sb-input').fill('What is in this file?');
        await page.locator('.sb-send').click();
        await page.locator('.msg.assistant', { hasText: 'note.txt has 9 words' }).waitFor();
        await idle(page);

        await page.locator('.user-controls .edit').click();
        const form = page.locator('form.msg.user');
        // Each button's text stands out from its own background.
        for (const button of ['.resend', '.cancel-edit']) {
          const { color, background } = await form.locator(button).evaluate((node) => {
            const style = (
              globalThis as unknown as {
                getComputedStyle(n: unknown): { color: string; backgroundColor: string };
              }
            ).getComputedStyle(node);
            return { color: style.color, background: style.backgroundColor };
          });
          expect(color, button).not.toBe(background);
        }
        await page.locator('.edit-field').fill('something else');
        await form.locator('.cancel-edit').click();
        await page.locator('.msg.user', { hasText: 'What is in this file?' }).waitFor();
        expect(await form.count()).toBe(0);
        expect(await page.locator('.msg.user .file').allTextContents()).toEqual(['📎 note.txt']);
        // Escape backs out too, and the focus goes back to Edit.
        await page.locator('.user-controls .edit').click();
        await page.locator('.edit-field').press('Escape');
        await page.locator('.user-controls .edit:focus').waitFor();

        await page.locator('.user-controls .edit').click();
        expect(await form.locator('.keep-file input').isChecked()).toBe(true);
        await page.locator('.edit-field').fill('Count the words in the file');
        await form.locator('.resend').click();
        await page.locator('.msg.user', { hasText: 'Count the words in the file' }).waitFor();
        await page.locator('.msg.assistant', { hasText: 'note.txt has 9 words' }).waitFor();
        await idle(page);
        expect(await page.locator('.msg.user .file').allTextContents()).toEqual(['📎 note.txt']);
        expect(await page.locator('.msg.user').count()).toBe(1);
        await expectInView(page);
      },
    );

    atPhone(
      'edit, regenerate and cancel: an edited message runs again, an answer is asked for again, a story is stopped',
      async () => {
        const page = await openPage();
        await page.locator('.sb-input').fill('one two three');
        await page.locator('.sb-send').click();
        await page.locator('.msg.assistant', { hasText: 'You wrote 3 words' }).waitFor();
        await idle(page);

        await page.locator('.user-controls .edit').click();
        await page.locator('.edit-field').fill('one two three four');
        await page.locator('form.msg.user button[type="submit"]').click();
        await page.locator('.msg.assistant', { hasText: 'You wrote 4 words' }).waitFor();
        await idle(page);
        expect(await page.locator('.msg.user').allTextContents()).toEqual(['one two three four']);
        expect(await page.locator('.msg.assistant').count()).toBe(1);

        const first = await page.locator('.msg.assistant').getAttribute('data-message-id');
        await page.locator('.regenerate').click();
        await page.waitForFunction((id) => {
          const answer = (globalThis as PageWindow).document.querySelector('.msg.assistant');
          return answer !== null && answer.getAttribute('data-message-id') !== id;
        }, first);
        await page.locator('.msg.assistant', { hasText: 'You wrote 4 words' }).waitFor();
        await idle(page);
        expect(await page.locator('.msg.assistant').count()).toBe(1);

        await suggest(page, 'Tell me a long story');
        await page.locator('.msg.assistant', { hasText: STORY_START }).waitFor();
        await page.locator('.sb-cancel').click();
        await page.locator('.note', { hasText: 'Stopped.' }).waitFor();
        await idle(page);
        const story = (await page.locator('.msg.assistant').last().textContent()) ?? '';
        expect(story).not.toContain(STORY_END);
        await expectFits(page, viewport);
      },
    );

    it('the useChat view is a link away, on the same session, and back', async () => {
      const page = await openPage();
      await page.locator('.sb-input').fill('one two');
      await page.locator('.sb-send').click();
      await page.locator('.msg.assistant', { hasText: 'You wrote 2 words' }).waitFor();
      await idle(page);
      await page.locator('#to-use-chat').click();
      await page.locator('#chat[data-status="ready"]').waitFor();
      expect(await page.locator('#chat .msg.user .text').allTextContents()).toEqual(['one two']);
      await page.locator('#chat .msg.assistant .text', { hasText: 'You wrote 2 words' }).waitFor();
      await expectFits(page, viewport);
      await page.screenshot({
        path: screenshotPath(viewport.name === 'desktop' ? 'use-chat-view' : 'use-chat-view-phone'),
      });
      await page.locator('#to-hook').click();
      await connected(page);
      await page.locator('.msg.assistant', { hasText: 'You wrote 2 words' }).waitFor();
      expect(await page.locator('.msg.user').allTextContents()).toEqual(['one two']);
    });

    atPhone(
      'the page uploads a file straight to the bucket with a presigned URL, across origins, as the bucket’s CORS allows',
      async () => {
        const page = await openPage();
        const body = 'hello from a browser';
        const created = await fetch(`${sandbox.url}/api/files`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'note.txt',
            media_type: 'text/plain',
            size: body.length,
            sha256: sha256Of(body),
          }),
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
      },
    );
  },
);

/** A team's own agents: the page knows nothing of them but what GET /api/agents says. */
describe.skipIf(!haveChromium).each(VIEWPORTS)(
  'the demo host page with a team’s own agents, $name',
  (viewport) => {
    let team: Sandbox;
    /** The host context each turn of the refunds agent received. */
    const received: unknown[] = [];

    beforeAll(async () => {
      const app = createSwitchboard();
      app.registerHostAgent({
        info: {
          id: 'refunds',
          name: 'Refunds',
          description: 'Refunds an order once you approve.',
          suggestions: ['What can you refund?', 'Refund order 7'],
        },
        async invoke({ message, hostContext }) {
          received.push(hostContext);
          return { content: `Refunds here: ${message}` };
        },
      });
      app.registerHostAgent({ info: { id: 'plain' }, invoke: async () => ({ content: 'plain' }) });
      team = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
    });
    afterAll(async () => {
      await team?.close();
    });

    const open = (path: string) => openAt(viewport, `${team.url}${path}`);

    it('shows the agent’s own name and suggestions, and no issue list; a suggestion goes to that agent', async () => {
      const page = await open('/');
      expect(await page.locator('.sb-title').textContent()).toBe('Refunds');
      expect(await page.locator('.sb-title').getAttribute('title')).toBe(
        'Refunds an order once you approve.',
      );
      expect(await page.title()).toBe('Refunds · Switchboard');
      expect(await page.locator('.sb-suggestions button').allTextContents()).toEqual([
        'What can you refund?',
        'Refund order 7',
      ]);
      expect(await page.locator('#app').count()).toBe(0);
      expect(await page.locator('#issues li').count()).toBe(0);

      await suggest(page, 'Refund order 7');
      await page.locator('.msg.assistant', { hasText: 'Refunds here: Refund order 7' }).waitFor();
      // The issue list is the demo agent's: this agent is told only who the host is.
      expect(received).toEqual([{ version: 1, host: { name: 'Switchboard demo page', kind: 'browser' } }]);
      await expectFits(page, viewport);
    });

    it('the agent picker lists the agents by name; a pick starts a new conversation with that agent, kept in the address', async () => {
      const page = await open('/?agent=refunds');
      const picker = page.getByLabel('Agent', { exact: true });
      expect(await picker.locator('option').allTextContents()).toEqual(['Refunds', 'plain']);
      expect(await picker.inputValue()).toBe('refunds');
      const before = await sessionIdOf(page);
      await picker.selectOption('plain');
      await page.locator('.sb-title', { hasText: 'plain' }).waitFor();
      expect(new URL(page.url()).searchParams.get('agent')).toBe('plain');
      expect(await sessionIdOf(page)).not.toBe(before);
      await page.locator('.sb-input').fill('picked');
      await page.locator('.sb-send').click();
      await page.locator('.msg.assistant', { hasText: 'plain' }).waitFor();
      await expectFits(page, viewport);
      // The picker and the conversations' button stay on the screen at this width.
      for (const control of [picker, page.locator('#toggle-threads')]) {
        const box = (await control.boundingBox())!;
        expect(box.x >= 0 && box.x + box.width <= viewport.width, 'in view sideways').toBe(true);
      }
    });

    // The panel's logic is the same at any width: at the narrow one, where it lies over the chat.
    (viewport.name === 'phone' ? it : () => undefined)(
      'the conversations: each is listed by its first message, newest first, and opens again with its agent',
      async () => {
        const page = await open('/?agent=refunds');
        const marker = `refund ${crypto.randomUUID().slice(0, 8)}`;
        await page.locator('.sb-input').fill(marker);
        await page.locator('.sb-send').click();
        await page.locator('.msg.assistant', { hasText: `Refunds here: ${marker}` }).waitFor();
        const first = await sessionIdOf(page);
        await page.getByLabel('Agent', { exact: true }).selectOption('plain');
        await page.locator('.sb-input').fill(`${marker} again`);
        await page.locator('.sb-send').click();
        await page.locator('.msg.assistant', { hasText: 'plain' }).waitFor();
        const second = await sessionIdOf(page);

        await page.locator('#toggle-threads').click();
        const threads = page.getByRole('navigation', { name: 'Conversations' });
        await threads.locator(`[data-session-id="${first}"]`).waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        const ids = await threads
          .locator('.thread')
          .evaluateAll((nodes) =>
            nodes.map((n) => (n as unknown as PageNode).getAttribute('data-session-id')),
          );
        // Newest first; the one shown is marked.
        expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
        expect(await threads.locator(`[data-session-id="${second}"]`).getAttribute('aria-current')).toBe(
          'true',
        );
        expect(await threads.locator(`[data-session-id="${first}"] .thread-title`).textContent()).toBe(
          marker,
        );
        expect(await threads.locator(`[data-session-id="${first}"] .thread-meta`).textContent()).toContain(
          'refunds',
        );

        await threads.locator(`[data-session-id="${first}"]`).click();
        await page.locator('.msg.assistant', { hasText: `Refunds here: ${marker}` }).waitFor();
        expect(await page.locator('.sb-title').textContent()).toBe('Refunds');
        expect(await sessionIdOf(page)).toBe(first);
        expect(await threads.count()).toBe(0);
        // Escape closes the panel too, and the focus goes back to its button.
        await page.locator('#toggle-threads').click();
        await threads.waitFor();
        await page.keyboard.press('Escape');
        expect(await threads.count()).toBe(0);
        expect(await page.evaluate(() => (globalThis as PageWindow).document.activeElement?.id)).toBe(
          'toggle-threads',
        );
      },
    );

    it('picks an agent with ?agent=ID: one without a name is shown by its id, with no suggestions', async () => {
      const page = await open('/?agent=plain');
      expect(await page.locator('.sb-title').textContent()).toBe('plain');
      expect(await page.locator('.sb-suggestions button').count()).toBe(0);
      await page.locator('.sb-input').fill('hello');
      await page.locator('.sb-send').click();
      await page.locator('.msg.assistant', { hasText: 'plain' }).waitFor();
      expect(await page.locator('#app').count()).toBe(0);
    });
  },
);
