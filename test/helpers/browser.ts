/**
 * One real Chromium for the browser tests (Debian's `chromium`, driven by playwright-core; no
 * browser download). A missing browser fails the tests with the command that installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/runner/multistep/run.js';

/** Where the browser is looked for (MAC_CHROMIUM overrides). */
export const CHROMIUM_PATH = process.env.MAC_CHROMIUM ?? '/usr/bin/chromium';

/** The message of a missing browser. */
export const INSTALL_CHROMIUM = 'install Chromium: apt-get install -y chromium';

/** A launched browser and how to close it. */
export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium; throws INSTALL_CHROMIUM when it is missing. playwright-core gives
 * every launch a fresh temporary --user-data-dir of its own (and refuses one in `args`).
 */
export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${INSTALL_CHROMIUM} (no browser at ${CHROMIUM_PATH})`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 60_000,
    // The runner's flags: what the product's browser checks run with, and as cheap to start.
    args: [...CHROMIUM_ARGS],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
