// The sandbox's probe: the one `mac serve` runs while it starts (probeSandbox, a process of its
// own) tells what the synchronous one (bwrapAvailable) tells, and bwrapAvailable answers from it.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapAvailable, bwrapPath, probeSandbox } from '../../../src/runner/sandbox.js';

let dir: string;

/** An executable that stands for bwrap: it writes `stderr` and exits with `code`. */
async function fakeBwrap(name: string, stderr: string, code: number): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\nprintf '%s' '${stderr}' >&2\nexit ${code}\n`);
  await chmod(file, 0o755);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mac-probe-'));
  // As root the probe runs as an unprivileged user (SANDBOX_UID), who must reach the fakes.
  await chmod(dir, 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox probe', () => {
  it('a bwrap that fails: the same reason from both probes, the first line of its stderr', async () => {
    const [a, b] = await Promise.all([fakeBwrap('bwrap-a', 'no user namespaces\nsecond line', 1), fakeBwrap('bwrap-b', 'no user namespaces\nsecond line', 1)]);
    const probed = await probeSandbox({ ...process.env, MAC_BWRAP: a });
    expect(probed).toEqual({ ok: false, reason: `${a} cannot start a sandbox: no user namespaces` });
    expect(bwrapAvailable({ ...process.env, MAC_BWRAP: b })).toEqual({ ok: false, reason: `${b} cannot start a sandbox: no user namespaces` });
  });

  it('a bwrap that fails without a word: its exit code', async () => {
    const silent = await fakeBwrap('bwrap-silent', '', 3);
    expect(await probeSandbox({ ...process.env, MAC_BWRAP: silent })).toEqual({ ok: false, reason: `${silent} cannot start a sandbox: exit code 3` });
  });

  it('no bwrap: the reason without starting anything', async () => {
    expect(await probeSandbox({ ...process.env, MAC_BWRAP: '' })).toEqual({ ok: false, reason: 'bwrap is not installed' });
    expect(await probeSandbox({ ...process.env, MAC_BWRAP: join(dir, 'none') })).toEqual({ ok: false, reason: `MAC_BWRAP=${join(dir, 'none')} is not an executable` });
  });

  it('probes once: calls while it runs share it, and bwrapAvailable answers from it without a process', async () => {
    const counted = join(dir, 'bwrap-counted');
    const log = join(dir, 'starts');
    await writeFile(counted, `#!/bin/sh\necho start >> '${log}'\nexit 0\n`);
    await chmod(counted, 0o755);
    await writeFile(log, '');
    await chmod(log, 0o666);
    const env = { ...process.env, MAC_BWRAP: counted };
    const [first, second] = await Promise.all([probeSandbox(env), probeSandbox(env)]);
    expect(first).toEqual({ ok: true, bwrap: counted });
    expect(second).toBe(first);
    expect(bwrapAvailable(env)).toBe(first);
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['start']);
  });

  it('the bubblewrap of this machine: a sandbox started, or the reason it cannot be', async () => {
    const bwrap = bwrapPath();
    const probed = await probeSandbox();
    if (bwrap === null) expect(probed).toEqual({ ok: false, reason: 'bwrap is not installed' });
    else expect(probed.ok ? probed.bwrap : probed.reason).toMatch(probed.ok ? bwrap : `${bwrap} cannot start a sandbox: `);
    expect(bwrapAvailable()).toBe(probed);
  });
});
