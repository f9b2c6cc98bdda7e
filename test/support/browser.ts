import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
