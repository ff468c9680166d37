import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * The escapes, by name: each reads, kills or exhausts something it must not. The ones that end at
 * the script's own time limit have short limits (2 s): the limit firing is what they test.
 */
export function escapes(t: { keysFile: string; dbFile: string; pid: number; cwdFile: string }): Record<string, string> {
  return {
    'read-keys': script('keys', `  console.log(fs.readFileSync(${JSON.stringify(t.keysFile)}, 'utf8'));`),
    'read-db': script('db', `  console.log(fs.readFileSync(${JSON.stringify(t.dbFile)}, 'utf8').slice(0, 100));`),
    'read-environ': script('environ', `  console.log(fs.readFileSync('/proc/${t.pid}/environ', 'utf8'));`),
    'read-cwd': script('cwd', `  console.log(fs.readFileSync(${JSON.stringify(t.cwdFile)}, 'utf8'));`),
    'kill-service': script('kill', `  process.kill(${t.pid}, 'SIGKILL');\n  process.kill(-1, 'SIGKILL');`),
    'fork-bomb': script('bomb', `  require('node:child_process').spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore', detached: true });\n  await new Promise((r) => setTimeout(r, 60_000));`, 2000),
    // Zero-filled buffers: the data limit refuses the mappings themselves, at the same count as
    // buffers written through, without the seconds of CPU that faulting in 2.5 GiB of pages costs
    // (the tree's resident-memory limit has its case in test/unit/runner/sandbox.test.ts).
    'allocate-8gib': script('alloc', `  const kept = [];\n  for (let i = 0; i < 32; i++) kept.push(Buffer.alloc(256 * 1024 * 1024));\n  console.log('allocated ' + kept.length * 256 + ' MiB');`, 60_000),
    'print-1gib': script('print', `  const line = 'x'.repeat(1023);\n  for (let i = 0; i < 1024 * 1024; i++) console.log(line);`, 2500),
    // A loop that never ends but yields: the script's own time limit ends it (a loop that never
    // yields is killed at the run's limit plus grace: test/unit/runner/sandbox.test.ts).
    'endless-loop': script('loop', `  for (;;) await new Promise((r) => setImmediate(r));`, 2000),
  };
}

/** What each escape's run must come to: failed, with the error that says why. */
export const expected: Record<string, RegExp> = {
  'read-keys': /ENOENT/,
  'read-db': /ENOENT/,
  'read-environ': /ENOENT/,
  'read-cwd': /ENOENT/,
  'kill-service': /ESRCH|EPERM|Playwright exited|worker process exited|SIGKILL/,
  'fork-bomb': /timeout|Test timeout|worker process exited|EAGAIN|Playwright exited/i,
  'allocate-8gib': /allocation failed|out of memory|worker process exited|Playwright exited/i,
  'print-1gib': /the script printed more than 16 MiB; output is limited to 16 MiB/,
  'endless-loop': /Test timeout of 2000ms exceeded/,
};

export const indent = (s: string) => s.replace(/^/gm, '  ');
