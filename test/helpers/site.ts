/**
 * A small local web site for browser checks: a home page with a heading, a console error and a
 * missing image, a second page, and a slow page (for the time limit).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startHttpServer, type HttpServer } from './http-server.js';

const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`);
};

/** Starts the site on 127.0.0.1 port 0. */
export function startSite(): Promise<HttpServer> {
  return startHttpServer({
    '/': html('<h1>Welcome</h1><p>Some text to paint.</p><a id="next" href="/about">About</a><img src="/missing.png" alt=""><script>console.error("widget failed to load")</script>'),
    '/about': html('<h1>About us</h1><p>We sell things.</p>'),
  });
}

/** A browser check script: a Playwright Test file requiring @playwright/test. */
export const browserScript = (body: string) => `const { test, expect } = require('@playwright/test');\n${body}\n`;
