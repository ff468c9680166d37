import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run demo` as a new user runs it (after the build): a local shop on 127.0.0.1, examples/
// applied, every check run once against the shop; with --keep, the public pages are then there
// to look at, and they show results, not "No data".

const ROOT = join(import.meta.dirname, '..', '..');
let demo: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;

afterAll(async () => {
  if (demo && demo.exitCode === null && demo.signalCode === null) demo.kill('SIGTERM');
  await exited;
});

describe('npm run demo', () => {
  it('runs the examples\' checks against its local shop; the dashboard and the status page show their results', async () => {
    demo = spawn(process.execPath, [join(ROOT, 'scripts', 'demo.mjs'), '--keep'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    exited = new Promise((resolve) => demo!.once('exit', (code) => resolve(code)));
    let out = '';
    demo.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    demo.stderr!.setEncoding('utf8').on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /keeps running on (http:\/\/\S+),/.exec(out);
        if (m) {
          clearInterval(timer);
          resolve(m[1]);
        }
      }, 200);
      void exited!.then((code) => {
        clearInterval(timer);
        reject(new Error(`the demo exited with ${code}:\n${out}`));
      });
    });
    expect(out).toContain('No changes. The account matches the definitions.');
    expect(out).toMatch(/demo done: .*the 12 checks that run got their answers from the demo shop/);
    // Every target was moved to the local shop before the service ran anything.
    expect(out).toContain('started mac serve');
    expect(out).toMatch(/Shop home page answers -> http:\/\/127\.0\.0\.1:\d+\//);

    const dashboard = await (await fetch(`${url}/dashboards/shop-status`)).text();
    const cards = [...dashboard.matchAll(/<h3><a [^>]*>([^<]+)<\/a><\/h3>\s*<p class="state s-([a-z-]+)">/g)].map((m) => ({ name: m[1], state: m[2] }));
    expect(cards.length).toBeGreaterThanOrEqual(12);
    // Passing, degraded, or failing for its time on a busy machine: never without data; the
    // heartbeat's card shows no run results (a ping is not a run).
    expect(cards.filter((c) => c.state === 'no-data' && c.name !== 'Nightly database backup finished')).toEqual([]);
    expect(cards.filter((c) => c.state === 'passing').length).toBeGreaterThanOrEqual(6);

    const status = await (await fetch(`${url}/status/shop`)).text();
    expect(status).not.toContain('No data yet');
    expect(status).toMatch(/\d+\.\d\d % uptime/);
  }, 600_000);
});
