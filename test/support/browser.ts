import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Chromium from Debian's package (`apt-get install chromium`; .ci/run installs it), or CHROMIUM_PATH.
 * As root (CI, containers) Chromium refuses to start without `--no-sandbox`: see docs/testing.md.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser tests can run here; they are skipped, with a warning, when not. */
export const haveChromium = existsSync(CHROMIUM_PATH);
if (!haveChromium) {
  console.warn(`browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install it or set CHROMIUM_PATH)`);
}

/** A laptop and a phone: the widths the browser tests run at. */
export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];
export type Viewport = (typeof VIEWPORTS)[number];

/** Headless Chromium, with nothing of its own on the network (updates, sync, QUIC). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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
}

/** axe-core's browser build, injected into a page to scan it. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The axe-core rules a scan runs: WCAG 2.1 A and AA (colour contrast among them), and best practice. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/**
 * Scans the page as it is now with axe-core and answers its serious and critical violations, each as
 * `rule: the elements it names` (empty when there are none).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async (tags) => {
    type Result = { id: string; impact?: string | null; nodes: { target: unknown[] }[] };
    const { axe } = globalThis as unknown as {
      axe: { run(options: object): Promise<{ violations: Result[] }> };
    };
    const { violations } = await axe.run({
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  }, AXE_TAGS);
}

/** The page is no wider than the screen: nothing to scroll sideways, nothing cut off. */
export async function expectFits(page: Page, viewport: Viewport) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const { documentElement } = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document;
    return { scrollWidth: documentElement.scrollWidth, clientWidth: documentElement.clientWidth };
  });
  expect(clientWidth).toBeLessThanOrEqual(viewport.width);
  expect(scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(clientWidth);
}

type Box = { top: number; bottom: number; left: number; right: number };
type BoxedWindow = typeof globalThis & {
  innerHeight: number;
  innerWidth: number;
  document: {
    querySelector(selector: string): { getBoundingClientRect(): Box; lastElementChild: unknown } | null;
    documentElement: { scrollHeight: number };
  };
};

/**
 * What a person sees without scrolling anything: the composer, the status line (the connection and the
 * turn's activity) and the newest thing in the log (its last message, card or controls) all lie
 * within the window, and the newest thing lies within the log's visible part. Polled: the log
 * follows after the render. The page itself is no higher than the window: the log is what scrolls.
 */
/** What stays on the screen of a chat: its composer, its field and Send, its status line, its log. */
const IN_VIEW = ['.sb-composer', '.sb-input', '.sb-send', '.sb-connection', '.sb-activity', '.sb-log'];

export async function expectInView(page: Page, controls = IN_VIEW) {
  const outside = () =>
    page.evaluate((controls) => {
      const w = globalThis as BoxedWindow;
      const boxOf = (selector: string) => w.document.querySelector(selector)?.getBoundingClientRect();
      const within = (box: Box | undefined, frame: Box) =>
        box !== undefined && box.top >= frame.top - 1 && box.bottom <= frame.bottom + 1;
      const screen = { top: 0, bottom: w.innerHeight, left: 0, right: w.innerWidth };
      const log = boxOf('.sb-log')!;
      const newest = (
        w.document.querySelector('.sb-log')!.lastElementChild as { getBoundingClientRect(): Box } | null
      )?.getBoundingClientRect();
      const { scrollHeight } = w.document.documentElement;
      return [
        ...(scrollHeight > w.innerHeight + 1 ? ['the page itself scrolls'] : []),
        ...controls.filter((selector) => !within(boxOf(selector), screen)),
        ...(newest && !within(newest, log) ? ['the newest message in the log'] : []),
      ];
    }, controls);
  await expect.poll(outside, { message: 'out of view' }).toEqual([]);
}
