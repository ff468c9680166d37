/**
 * A small local web site for browser checks: a home page with a heading, a console error and a
 * missing image, a second page, and a page painted a moment after its text is there.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    // Its text is in the document at once but painted only 1 s after the load.
    '/late': html('<h1 style="visibility:hidden">Late</h1><script>addEventListener("load", () => setTimeout(() => { document.querySelector("h1").style.visibility = "visible"; }, 1000))</script>'),
  });
}

/** A browser check script: a Playwright Test file requiring @playwright/test. */
export const browserScript = (body: string) => `const { test, expect } = require('@playwright/test');\n${body}\n`;

/** A scratch project `shop` in a new directory (pushed to `dirs`, which the file removes) holding `files`. */
export async function scriptProject(dirs: string[], prefix: string, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  await writeFile(join(dir, 'mac.config.yaml'), 'project: shop\n');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** A BrowserCheck definition running `scriptFile`, the site's address in its SHOP_URL variable. */
export const browserCheckYaml = (id: string, scriptFile: string, shopUrl: string | undefined) => `kind: BrowserCheck
id: ${id}
name: ${id}
doubleCheck: false
environmentVariables:
  - { key: SHOP_URL, value: "${shopUrl}" }
scriptFile: ${scriptFile}
`;
