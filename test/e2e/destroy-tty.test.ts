import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { macIn } from '../helpers/mac-inprocess.js';
import { startServe, type Served } from '../helpers/serve.js';
import { config, listAllOf, writeProject } from './apply-fixtures.js';

// mac destroy on a terminal: the typed confirmation, which only a process with a TTY reaches.
// The two tests use projects of their own and run concurrently. The applies that set a project up
// and the unattended destroy run in process (macIn): only the runs on a terminal are processes.
// (The rest of the ownership and destroy tests run in process: test/integration/every-kind-*,
// orphans, saved-plans.)

let served: Served;
beforeAll(async () => {
  served = await startServe(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

type Live = Record<string, any>;
/** The two tests and their CLI processes run at once: a test's time limit leaves room for a loaded machine. */
const TEST_TIMEOUT = 600_000;
const applied = async (dir: string) => {
  const r = await macIn(served, ['apply', dir, '--yes']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
};

// `script` (util-linux) gives the CLI a terminal; without it the prompt cannot be reached.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.concurrent('destroy on a terminal', { timeout: TEST_TIMEOUT }, () => {
  it.skipIf(!hasScript)('a 12-resource project goes after the typed confirmation, --max-deletes being for --yes runs only', async () => {
    const files: Record<string, string> = { 'mac.config.yaml': 'project: twelve\n' };
    for (let i = 0; i < 12; i++) files[`s${i}.yaml`] = `kind: Snippet\nid: s${i}\nname: twelve ${i}\nscript: "1"\n`;
    const dir = writeProject(files);
    const bystander = writeProject({ 'mac.config.yaml': 'project: twelve-other\n', 'a.yaml': 'kind: Snippet\nid: a\nname: twelve other\nscript: "1"\n' });
    // Two projects, each under its own lock: applied at once.
    await Promise.all([applied(dir), applied(bystander)]);
    const unattended = await macIn(served, ['destroy', dir, '--yes']);
    expect(unattended.code).toBe(1);
    expect(unattended.stderr).toContain('more than --max-deletes 10');

    const out = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = spawn('script', ['-qec', `"${process.execPath}" "${MAC_BIN}" destroy "${dir}"`, '/dev/null'], { env: cleanEnv({ MAC_API_URL: served.url, MAC_API_KEY: served.apiKey }) });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (text += d.toString('utf8')));
      child.on('close', (code) => resolve({ code: code ?? 1, out: text }));
      child.stdin.end('twelve\n');
    });
    expect(out.code, out.out).toBe(0);
    expect(out.out).toContain('This deletes 12 objects of project "twelve"');
    const names = (await listAllOf<Live>(served, '/v1/snippets')).map((s) => s.name as string);
    expect(names.filter((n) => /^twelve \d+$/.test(n))).toEqual([]);
    expect(names).toContain('twelve other');
    expect((await listAllOf<Live>(served, '/v1/variables')).map((v) => v.key)).not.toContain('MAC_OWNED_TWELVE');
  });

  it.skipIf(!hasScript)('on a terminal, destroy deletes only after the project name is typed', async () => {
    const dir = writeProject({ 'mac.config.yaml': config('tty'), 'snippet.yaml': 'kind: Snippet\nid: s\nname: tty helper\nscript: "1"\n' });
    await applied(dir);
    const onTty = (answer: string) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        const child = spawn('script', ['-qec', `"${process.execPath}" "${MAC_BIN}" destroy "${dir}"`, '/dev/null'], {
          env: cleanEnv({ MAC_API_URL: served.url, MAC_API_KEY: served.apiKey }),
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
        child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
        child.on('close', (code) => resolve({ code: code ?? 1, out }));
        child.stdin.end(`${answer}\n`);
      });
    const snippets = async () => (await listAllOf<Live>(served, '/v1/snippets')).filter((x) => x.name === 'tty helper').length;
    const wrong = await onTty('yes');
    expect(wrong.out).toContain('Type the project name to confirm');
    expect(wrong.out).toContain('destroy cancelled; nothing was deleted');
    expect(wrong.code).toBe(1);
    expect(await snippets()).toBe(1);
    const right = await onTty('tty');
    expect(right.code, right.out).toBe(0);
    expect(await snippets()).toBe(0);
  });

});
