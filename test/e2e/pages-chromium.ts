import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startServe, type Served } from '../helpers/serve.js';
import { startTcpServer, type TcpServer } from '../helpers/tcp-server.js';
import { launchChromium, type TestBrowser } from '../helpers/browser.js';

// The set-up the public pages' browser files share (pages-browser.test.ts: status pages and
// dashboards; pages-pictures-browser.test.ts: charts, check pages, badges): one Chromium, one
// `mac serve` rendering every request afresh, one TCP target for checks; a fresh context per page.

/** Where the pages' screenshots go. */
export const ARTIFACTS = join(process.cwd(), 'artifacts', 'pages');

type ContextOptions = Parameters<TestBrowser['browser']['newContext']>[0];

/** A page opened in a fresh context, with the problems it showed (console errors, page errors, dialogs). */
export interface OpenedPage {
  ctx: BrowserContext;
  page: Page;
  problems: string[];
}

export interface PagesInChromium {
  /** The service (no runs, no rate limit, no page cache: a page read right after a run shows it). */
  s: Served;
  /** A TCP target answering a banner, for checks that pass. */
  tcp: TcpServer;
  /** The browser, or undefined when it could not start (`launchError` says why). */
  chrome: TestBrowser | undefined;
  launchError: unknown;
  /** A fresh context and page; CSP violations, page errors and dialogs are collected in `problems`. */
  open(options?: ContextOptions): Promise<OpenedPage>;
  close(): Promise<void>;
}

/**
 * Starts the browser, the TCP target and the service. A missing browser does not throw here:
 * every test that opens a page fails with the command that installs it (never a skip).
 */
export async function startPagesInChromium(): Promise<PagesInChromium> {
  mkdirSync(ARTIFACTS, { recursive: true });
  let launchError: unknown;
  // Chromium and the service start at once: each is mostly a process start-up.
  const [chrome, tcp, s] = await Promise.all([
    launchChromium().catch((err) => {
      launchError = err;
      return undefined;
    }),
    startTcpServer({ banner: '+OK\r\n' }),
    startServe(['--no-runs', '--rate-limit', '0/60', '--page-cache-seconds', '0']),
  ]);
  return {
    s,
    tcp,
    chrome,
    launchError,
    async open(options = {}) {
      if (!chrome) throw launchError;
      const ctx = await chrome.browser.newContext({ viewport: { width: 1100, height: 900 }, ...options });
      const page = await ctx.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        // Any CSP violation (an inline style or script the policy refuses) is a console error
        // (the browser's own request of /favicon.ico reaches the API: its 401 is not the page's).
        if (m.type() === 'error' && !/status of 40[14]/.test(m.text())) problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('dialog', (d) => {
        problems.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      return { ctx, page, problems };
    },
    async close() {
      await chrome?.close();
      await s.stop();
      await tcp.close();
    },
  };
}
