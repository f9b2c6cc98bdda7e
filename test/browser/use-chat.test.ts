import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.ts';
import { haveChromium, launchChromium, seriousViolations, VIEWPORTS } from '../support/browser.ts';
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

/** A stored message of `GET /api/sessions/{id}/messages`, as far as these tests read it. */
interface Stored {
  id: string;
  role: string;
  content: string | null;
  attachments?: { file_id?: string; name?: string }[];
  feedback?: { rating?: string | null };
}

async function storedMessages(id: string): Promise<Stored[]> {
  const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(id)}/messages`);
  return ((await res.json()) as { messages: Stored[] }).messages;
}

/** A small text file, as the page's file input takes it. */
const NOTE = {
  name: 'note.txt',
  mimeType: 'text/plain',
  buffer: Buffer.from('the quick brown fox jumps over the lazy dog'),
};

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
    // A reload and a stop do the same at any width: they run at the narrow one.
    const atPhone = viewport.name === 'phone' ? it : () => undefined;

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
      expect(await page.locator('.msg.user .text').allTextContents()).toEqual([say('stream me')]);
      expect(await answers(page)).toEqual(['Hello world.']);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
    });

    it('no serious or critical accessibility violation (axe-core, contrast included): an approval and a question waiting', async () => {
      const page = await openPage(viewport, sid('axe'), 'pauser');
      await page.locator('#message').fill('two');
      await page.locator('#send').click();
      await page.locator('.tool[data-tool="wire_money"] .approve').waitFor();
      await page.locator('.card.user_question .option').first().waitFor();
      await ready(page);
      expect(await seriousViolations(page)).toEqual([]);
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

    atPhone(
      'a reload in the middle of an answer resumes it from the stored log: the answer once',
      async () => {
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
        expect(await page.locator('.msg.user .text').allTextContents()).toEqual([say('reload me')]);
        open();
        await page.locator('.msg.assistant .text', { hasText: 'Hello world.' }).waitFor();
        await ready(page);
        expect(await answers(page)).toEqual(['Hello world.']);
        expect(await page.locator('.msg.assistant').count()).toBe(1);
      },
    );

    atPhone('Stop cancels the running turn', async () => {
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

  /** The chat's id: the page put it in its address. */
  const chatIdOf = (page: Page) => new URL(page.url()).searchParams.get('chat')!;

  /** Attaches note.txt and sends it with `text`; resolves once the answer has ended. */
  async function sendNote(page: Page, text: string) {
    await page.locator('#file').setInputFiles(NOTE);
    await page.locator('#pending-files .file', { hasText: 'File: note.txt' }).waitFor();
    await page.locator('#message').fill(text);
    await page.locator('#send').click();
    await page.locator('.msg.assistant .text', { hasText: 'note.txt has 9 words' }).waitFor();
    await ready(page);
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

  it('attaches a file: it is uploaded, sent by its id with the message, shown on it, and read by the agent', async () => {
    const { page, problems } = await newChat();
    await sendNote(page, 'What is in this file?');
    const sent = page.locator('.msg.user .file');
    expect(await sent.allTextContents()).toEqual(['📎 note.txt']);
    expect(await page.locator('#pending-files .file').count()).toBe(0);
    const fileId = await sent.getAttribute('data-file-id');
    expect(fileId).toMatch(/^file_/);
    // The server holds the message with the file attached by its id.
    const [user] = await storedMessages(chatIdOf(page));
    expect(user?.content).toBe('What is in this file?');
    expect(user?.attachments).toEqual([expect.objectContaining({ file_id: fileId, name: 'note.txt' })]);
    // After a reload the stored message shows its file.
    await page.reload();
    await page.locator(`.msg.user .file[data-file-id="${fileId}"]`, { hasText: '📎 note.txt' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('rates an ended answer with the feedback route, by its Switchboard id; the rating stays after a reload', async () => {
    const { page, problems } = await newChat();
    await page.locator('.suggestion', { hasText: 'Count the words in this sentence' }).click();
    const controls = page.locator('.msg.assistant .controls.answer');
    await controls.waitFor();
    await ready(page);
    await controls.locator('[data-rating="up"]').click();
    await controls.locator('[data-rating="up"][aria-pressed="true"]').waitFor();
    expect(await controls.locator('[data-rating="down"]').getAttribute('aria-pressed')).toBe('false');
    const chat = chatIdOf(page);
    await expect
      .poll(
        async () => (await storedMessages(chat)).map((m) => m.feedback?.rating ?? null),
        queued('the rating'),
      )
      .toEqual([null, 'up']);
    const answer = (await storedMessages(chat))[1];
    expect(await controls.getAttribute('data-message-id')).toBe(answer?.id);

    await page.reload();
    await page.locator('.controls.answer [data-rating="up"][aria-pressed="true"]').waitFor();
    // Pressed again, the rating is withdrawn.
    await page.locator('.controls.answer [data-rating="up"]').click();
    await page.locator('.controls.answer [data-rating="up"][aria-pressed="false"]').waitFor();
    await expect
      .poll(
        async () => (await storedMessages(chat)).map((m) => m.feedback?.rating ?? null),
        queued('no rating'),
      )
      .toEqual([null, null]);
    expect(problems).toEqual([]);
  });

  it('edits a sent message with its file: Cancel and Escape leave it, Resend is Switchboard’s edit and the old answer goes', async () => {
    const { page, problems } = await newChat();
    await sendNote(page, 'What is in this file?');
    const chat = chatIdOf(page);
    const before = await storedMessages(chat);
    expect(before.map((m) => m.role)).toEqual(['user', 'assistant']);
    const fileId = before[0]?.attachments?.[0]?.file_id;

    const form = page.locator('.msg.user.editing form');
    await page.locator('.user-controls .edit').click();
    await page.locator('.edit-field').fill('something else');
    await form.locator('.cancel-edit').click();
    expect(await form.count()).toBe(0);
    expect(await page.locator('.msg.user .text').allTextContents()).toEqual(['What is in this file?']);
    // Escape backs out too, and the focus goes back to Edit.
    await page.locator('.user-controls .edit').click();
    await page.locator('.edit-field').press('Escape');
    await page.locator('.user-controls .edit:focus').waitFor();

    await page.locator('.user-controls .edit').click();
    const keep = form.locator(`.keep-file[data-file-id="${fileId}"] input`);
    expect(await keep.isChecked()).toBe(true);
    await page.locator('.edit-field').fill('Count the words in the file');
    await form.locator('.resend').click();
    await page.locator('.msg.user .text', { hasText: 'Count the words in the file' }).waitFor();
    // The agent read the file the edited message kept.
    await page.locator('.msg.assistant .text', { hasText: 'note.txt has 9 words' }).waitFor();
    await ready(page);
    expect(await page.locator('.msg.user').count()).toBe(1);
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(await page.locator('.msg.user .file').getAttribute('data-file-id')).toBe(fileId);

    // The server cut the conversation at the edited message: its new text with the file, one new answer.
    await expect
      .poll(async () => (await storedMessages(chat)).map((m) => [m.role, m.content]), queued('the edit'))
      .toEqual([
        ['user', 'Count the words in the file'],
        ['assistant', expect.stringContaining('note.txt has 9 words')],
      ]);
    const after = await storedMessages(chat);
    expect(after[0]?.attachments).toEqual([expect.objectContaining({ file_id: fileId })]);
    expect(after.map((m) => m.id)).not.toContain(before[1]?.id);
    expect(after[0]?.id).not.toBe(before[0]?.id);
    expect(problems).toEqual([]);
  });

  it('opens a session of the hook view with its file, its set_filter call and its open question, which it answers; and back', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${sandbox.url}/?agent=demo`);
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    const idle = () => page.locator('.sb-cancel[disabled]').waitFor();
    await page.locator('.sb-file').setInputFiles(NOTE);
    await page.locator('.sb-pending-files .file', { hasText: 'File: note.txt' }).waitFor();
    await page.locator('.sb-input').fill('What is in this file?');
    await page.locator('.sb-send').click();
    await page.locator('.msg.assistant', { hasText: 'note.txt has 9 words' }).waitFor();
    await idle();
    await page.locator('.suggestion', { hasText: 'Show only closed issues' }).click();
    await page.locator('.msg.assistant', { hasText: 'Done: your page now shows' }).waitFor();
    await idle();
    await page.locator('.suggestion', { hasText: 'Help me choose a plan' }).click();
    await page.locator('.card.user_question .option', { hasText: 'Team' }).waitFor();
    const session = await page.evaluate(() =>
      (
        globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }
      ).sessionStorage.getItem('switchboard-session'),
    );
    const fileId = (await storedMessages(session!))[0]?.attachments?.[0]?.file_id;
    expect(fileId).toMatch(/^file_/);

    await page.locator('#to-use-chat').click();
    await page.locator('#chat').waitFor();
    expect(new URL(page.url()).searchParams.get('chat')).toBe(session);
    await page.locator('h1', { hasText: 'Demo assistant' }).waitFor();
    await page.locator(`.msg.user .file[data-file-id="${fileId}"]`, { hasText: '📎 note.txt' }).waitFor();
    const filter = page.locator('.tool[data-tool="set_filter"][data-state="output-available"]');
    expect(await filter.locator('code').textContent()).toBe('set_filter({"status":"closed"})');
    await page.locator('.msg.assistant .text', { hasText: 'Done: your page now shows' }).waitFor();
    const question = page.locator('.card.user_question');
    await question.locator('.option', { hasText: 'Team' }).click();
    await page.locator('.msg.assistant .text', { hasText: 'Team it is: a fine choice.' }).waitFor();
    await question.filter({ hasText: 'Answered: Team' }).waitFor();
    await ready(page);
    expect(await question.count()).toBe(1);

    // Back in the hook view, the same session: the answer given here is there.
    await page.locator('#to-hook').click();
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    await page.locator('.msg.assistant', { hasText: 'Team it is: a fine choice.' }).waitFor();
    await page.locator('.msg.user .file', { hasText: 'note.txt' }).waitFor();
  });

  it('an approval left open in the hook view is approved in the useChat view', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${sandbox.url}/?agent=demo`);
    await page.locator('.sb-connection[data-status="open"]').waitFor();
    await page.locator('.suggestion', { hasText: 'Refund order 1042' }).click();
    await page.locator('.card.tool_approval .approve').waitFor();
    await page.locator('#to-use-chat').click();
    const tool = page.locator('.tool[data-tool="issue_refund"]');
    await tool.locator('.approve').waitFor();
    await tool.locator('.deny').waitFor();
    await ready(page);
    await tool.locator('.approve').click();
    await page.locator('.msg.assistant .text', { hasText: 'Refunded $25 on order 1042.' }).waitFor();
    await ready(page);
    expect(await tool.locator('.outcome').textContent()).toBe('Approved');
  });
});
