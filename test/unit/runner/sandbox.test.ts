import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handOver, runProcess, sandboxCommand, type SandboxLimits } from '../../../src/runner/sandbox.js';
import { requireBwrap } from '../../helpers/sandbox.js';

// Real escapes tried from inside a real bubblewrap sandbox, with plain Node scripts (no Playwright:
// each run takes a Node start). The multi-step runner and the service use the same command.
// Every case has a sandbox and a work dir of its own: they run at once.
let bwrap: string;
let secretDir: string;
const secret = 'host-secret-4242';

beforeAll(async () => {
  bwrap = requireBwrap();
  secretDir = await mkdtemp(join(tmpdir(), 'mac-sandbox-host-'));
  await writeFile(join(secretDir, 'keys.json'), JSON.stringify({ keys: [{ key: secret }] }));
  process.env.MAC_SANDBOX_TEST_SECRET = secret;
});
afterAll(async () => {
  delete process.env.MAC_SANDBOX_TEST_SECRET;
  await rm(secretDir, { recursive: true, force: true });
});

/** Runs `code` with Node in a fresh sandbox; the script prints its findings as JSON on its last line. */
async function sandboxed(code: string, opts: { timeoutMs?: number; limits?: Partial<SandboxLimits>; maxOutputBytes?: number; treeMemoryBytes?: number } = {}) {
  const work = await mkdtemp(join(tmpdir(), 'mac-sandbox-run-'));
  try {
    await writeFile(join(work, 'script.js'), code);
    await handOver(work);
    const plan = sandboxCommand([process.execPath, join(work, 'script.js')], { workDir: work, env: { CHECK_VAR: 'visible' }, limits: opts.limits }, bwrap);
    const began = performance.now();
    const end = await runProcess({ ...plan, cwd: work, killAfterMs: opts.timeoutMs ?? 20_000, maxOutputBytes: opts.maxOutputBytes ?? 64 * 1024, treeMemoryBytes: opts.treeMemoryBytes });
    const last = end.output.trim().split('\n').at(-1) ?? '';
    let json: any = null;
    try {
      json = JSON.parse(last);
    } catch {
      // Not JSON: the test looks at the output.
    }
    return { ...end, json, ms: performance.now() - began, dir: work };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const tryRead = (path: string) => `(() => { try { return require('fs').readFileSync(${JSON.stringify(path)}, 'utf8').slice(0, 200); } catch (e) { return e.code; } })()`;

describe.concurrent('script sandbox', () => {
  it('shows none of the host files, the service working directory, /root or the host environment', async () => {
    const r = await sandboxed(`
      console.log(JSON.stringify({
        keys: ${tryRead(join(secretDir, 'keys.json'))},
        cwdFile: ${tryRead(join(process.cwd(), 'package.json'))},
        root: (() => { try { return require('fs').readdirSync('/root'); } catch (e) { return e.code; } })(),
        top: require('fs').readdirSync('/').sort(),
        env: process.env,
        uid: process.getuid(),
        pids: require('fs').readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).length,
      }));`);
    expect(r.spawnError).toBeNull();
    expect(r.code).toBe(0);
    expect(r.json.keys).toBe('ENOENT');
    expect(r.json.cwdFile).toBe('ENOENT');
    expect(r.json.root).toBe('ENOENT');
    expect(r.json.top).not.toContain('root');
    expect(r.json.env).toEqual({ CHECK_VAR: 'visible', PATH: expect.any(String), HOME: '/tmp', TMPDIR: '/tmp', PWD: r.dir });
    expect(r.output).not.toContain(secret);
    // Only the sandbox's own processes: its init and the script.
    expect(r.json.pids).toBeLessThanOrEqual(3);
    expect(r.json.uid).not.toBe(0);
  });

  it('cannot read /proc/<pid>/environ of the service, nor signal it', async () => {
    const r = await sandboxed(`
      let kill;
      try { process.kill(${process.pid}, 'SIGKILL'); kill = 'sent'; } catch (e) { kill = e.code; }
      console.log(JSON.stringify({ environ: ${tryRead(`/proc/${process.pid}/environ`)}, kill }));`);
    expect(r.json.environ).toBe('ENOENT');
    // Another process of the sandbox may hold the number, but never this one.
    expect(r.output).not.toContain(secret);
    expect(process.kill(process.pid, 0)).toBe(true);
  });

  it('refuses an allocation of 8 GiB', async () => {
    const r = await sandboxed(`
      const chunks = [];
      let error = null;
      try { for (let i = 0; i < 32; i++) chunks.push(Buffer.alloc(256 * 1024 * 1024)); } catch (e) { error = e.message; }
      console.log(JSON.stringify({ mib: chunks.length * 256, error }));`, { limits: { dataBytes: 1024 ** 3 } });
    expect(r.json.error).toMatch(/allocation failed/i);
    expect(r.json.mib).toBeLessThan(1024);
  });

  it('stops the whole tree when its processes together hold more than the tree limit, each under its own data limit', async () => {
    // Four children of 200 MiB each (under the 1 GiB data limit of each process): 800 MiB together, over 512 MiB.
    const r = await sandboxed(`
      const { spawn } = require('child_process');
      const hold = "const b = Buffer.alloc(200 * 1024 * 1024, 1); setInterval(() => b[0]++, 1000);";
      for (let i = 0; i < 4; i++) spawn(process.execPath, ['-e', hold], { stdio: 'ignore', detached: i % 2 === 0 });
      setInterval(() => {}, 1000);`, { timeoutMs: 60_000, limits: { dataBytes: 1024 ** 3 }, treeMemoryBytes: 512 * 1024 ** 2 });
    expect(r.overMemoryBytes).toBeGreaterThan(512 * 1024 ** 2);
    expect(r.overMemoryBytes).toBeLessThan(1024 ** 3);
    expect(r.killed).toBe(false);
    expect(r.ms).toBeLessThan(50_000);
    await expectNoProcessIn(r.dir);
    await expectGone((args) => args.includes('200 * 1024 * 1024'));
  });

  it('leaves a tree under the tree limit alone', async () => {
    const r = await sandboxed(`const b = Buffer.alloc(64 * 1024 * 1024, 1); setTimeout(() => console.log(JSON.stringify({ held: b.length })), 1500);`, { treeMemoryBytes: 512 * 1024 ** 2 });
    expect(r).toMatchObject({ code: 0, overMemoryBytes: null, json: { held: 64 * 1024 * 1024 } });
  });

  it('gives no memory through files: /dev is read-only and /dev/shm is as small as /tmp', async () => {
    const r = await sandboxed(`
      const fs = require('fs');
      const attempt = (path, mib) => { try { for (let i = 0; i < mib; i++) fs.appendFileSync(path + (i % 4), Buffer.alloc(1024 * 1024)); return 'written'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({ dev: attempt('/dev/held', 1), shm: attempt('/dev/shm/held', 16) }));`, { limits: { tmpBytes: 4 * 1024 * 1024 } });
    expect(r.json).toEqual({ dev: 'EROFS', shm: 'ENOSPC' });
  });

  it('bounds a fork bomb by the process count, and the whole tree ends at the time limit', async () => {
    const r = await sandboxed(`
      const { spawn } = require('child_process');
      spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore', detached: true });
      setInterval(() => {}, 1000);`, { timeoutMs: 2000, limits: { processes: 64 } });
    expect(r.killed).toBe(true);
    await expectNoProcessIn(r.dir);
  });

  it('kills a detached child when the script ends', async () => {
    const marker = String(900000 + Math.floor(Math.random() * 99999));
    const r = await sandboxed(`
      const { spawn } = require('child_process');
      const c = spawn('/bin/sleep', ['${marker}'], { stdio: 'ignore', detached: true });
      c.unref();
      console.log(JSON.stringify({ child: c.pid }));`);
    expect(r.code).toBe(0);
    expect(r.json.child).toBeGreaterThan(0);
    await expectGone((args) => args.includes(`sleep ${marker}`));
  });

  it('keeps a bounded part of 1 GiB of output, and stops an endless loop at the time limit', async () => {
    // Two sandboxes of their own, at once: each waits out its time limit.
    const [r, loop] = await Promise.all([
      sandboxed(`const line = 'x'.repeat(1023) + '\\n'; for (;;) process.stdout.write(line);`, { timeoutMs: 2000, maxOutputBytes: 4096 }),
      sandboxed('for (;;) {}', { timeoutMs: 1500 }),
    ]);
    expect(r.killed).toBe(true);
    expect(r.output.length).toBeLessThanOrEqual(4096);
    expect(loop.killed).toBe(true);
    expect(loop.ms).toBeLessThan(5000);
  });

  it('bounds the files a script writes', async () => {
    const r = await sandboxed(`
      let error = null;
      try { require('fs').writeFileSync('big.bin', Buffer.alloc(8 * 1024 * 1024)); } catch (e) { error = e.code; }
      let tmp = null;
      try { require('fs').writeFileSync('/tmp/big.bin', Buffer.alloc(8 * 1024 * 1024)); } catch (e) { tmp = e.code; }
      console.log(JSON.stringify({ error, tmp }));`, { limits: { fileBytes: 1024 * 1024, tmpBytes: 4 * 1024 * 1024 } });
    // RLIMIT_FSIZE ends the writer with SIGXFSZ unless it ignores it; either way no 8 MiB file.
    expect(r.code === 0 ? r.json.error : 'killed').toMatch(/EFBIG|killed/);
  });
});

/** Every process whose arguments name `dir` is gone within a few seconds. */
async function expectNoProcessIn(dir: string): Promise<void> {
  await expectGone((args) => args.includes(dir));
}

async function expectGone(match: (args: string) => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  let left: string[] = [];
  do {
    const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
    left = ps.split('\n').filter((l) => match(l) && !l.includes('ps -eo'));
    if (left.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  expect(left).toEqual([]);
}
