import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startHttpServer, json, type HttpServer } from '../helpers/http-server.js';
import { requireBwrap } from '../helpers/sandbox.js';

// What the script sandbox's e2e files share (sandbox.test.ts: with `mac test`;
// sandbox-serve.test.ts and sandbox-serve-accounts.test.ts: with `mac serve`): the escapes, the
// errors they must come to, and a target server. Every run is Node plus Playwright in
// bubblewrap: seconds each on a busy 2-core machine, so the files run in parallel.

/** An API key that must appear in no result. */
export const SECRET = 'sk-account-a-very-secret';

/** The target the scripts call: /health, /started?who= (recorded in `started`), /private (needs x-token). */
export interface EscapeTarget {
  http: HttpServer;
  started: string[];
  dirs: string[];
  tempDir(prefix: string): Promise<string>;
  close(): Promise<void>;
}

export async function startEscapeTarget(): Promise<EscapeTarget> {
  requireBwrap();
  const started: string[] = [];
  const dirs: string[] = [];
  const http = await startHttpServer({
    '/health': json(200, { ok: true }),
    '/started': (req, res) => {
      started.push(new URL(req.url ?? '/', 'http://x').searchParams.get('who') ?? '?');
      res.end('ok');
    },
    '/private': (req, res) => {
      const allowed = req.headers['x-token'] === 'tok-setup';
      res.writeHead(allowed ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(allowed ? 'secret page' : '');
    },
  });
  return {
    http,
    started,
    dirs,
    async tempDir(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async close() {
      await http.close();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

const header = "const { test, expect } = require('@playwright/test');\nconst fs = require('node:fs');";
export const script = (title: string, body: string, timeoutMs = 8000) => `${header}
test('${title}', async ({ request }) => {
  test.setTimeout(${timeoutMs});
${body}
});`;

/**
 * The escapes, by check id: each reads, kills or exhausts something it must not. The four reads
 * are one script of four tests (each fails on its own, with its own error; a run costs a Node and
 * Playwright start, seconds on a busy machine, and the runner takes two at a time). The ones that
 * end at the script's own time limit have short limits (1 s): the limit firing is what they test.
 */
export function escapes(t: { keysFile: string; dbFile: string; pid: number; cwdFile: string }): Record<string, string> {
  const read = (title: string, path: string, end = '') => `test('${title}', async () => {\n  test.setTimeout(8000);\n  console.log(fs.readFileSync(${JSON.stringify(path)}, 'utf8')${end});\n});`;
  return {
    'read-files': `${header}\n${[
      read('keys', t.keysFile),
      read('db', t.dbFile, '.slice(0, 100)'),
      read('environ', `/proc/${t.pid}/environ`),
      read('cwd', t.cwdFile),
    ].join('\n')}`,
    'kill-service': script('kill', `  process.kill(${t.pid}, 'SIGKILL');\n  process.kill(-1, 'SIGKILL');`),
    'fork-bomb': script('bomb', `  require('node:child_process').spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore', detached: true });\n  await new Promise((r) => setTimeout(r, 60_000));`, 1000),
    // Zero-filled buffers: the data limit refuses the mappings themselves, at the same count as
    // buffers written through, without the seconds of CPU that faulting in 2.5 GiB of pages costs
    // (the tree's resident-memory limit has its case in test/unit/runner/sandbox.test.ts).
    'allocate-8gib': script('alloc', `  const kept = [];\n  for (let i = 0; i < 32; i++) kept.push(Buffer.alloc(256 * 1024 * 1024));\n  console.log('allocated ' + kept.length * 256 + ' MiB');`, 60_000),
    'print-1gib': script('print', `  const line = 'x'.repeat(1023);\n  for (let i = 0; i < 1024 * 1024; i++) console.log(line);`, 2500),
    // A loop that never ends but yields: the script's own time limit ends it (a loop that never
    // yields is killed at the run's limit plus grace: test/unit/runner/sandbox.test.ts).
    'endless-loop': script('loop', `  for (;;) await new Promise((r) => setImmediate(r));`, 1000),
  };
}

/**
 * What each escape's run must come to: failed, with the errors that say why (the run's errors, one
 * per failed test, in the order of these; the first is the run's message).
 */
export const expected: Record<string, RegExp[]> = {
  'read-files': [/^test "keys" failed: Error: ENOENT/, /^test "db" failed: Error: ENOENT/, /^test "environ" failed: Error: ENOENT/, /^test "cwd" failed: Error: ENOENT/],
  'kill-service': [/ESRCH|EPERM|Playwright exited|worker process exited|SIGKILL/],
  'fork-bomb': [/timeout|Test timeout|worker process exited|EAGAIN|Playwright exited/i],
  'allocate-8gib': [/allocation failed|out of memory|worker process exited|Playwright exited/i],
  'print-1gib': [/the script printed more than 16 MiB; output is limited to 16 MiB/],
  'endless-loop': [/Test timeout of 1000ms exceeded/],
};

/** The run's errors match `patterns`, one by one (a script's tests run in the order written). */
export function expectErrors(errors: string[], patterns: RegExp[], name: string): void {
  expect(errors.length, `${name}: ${errors.join(' | ')}`).toBeGreaterThanOrEqual(patterns.length);
  patterns.forEach((p, i) => expect(errors[i], name).toMatch(p));
}

export const indent = (s: string) => s.replace(/^/gm, '  ');
