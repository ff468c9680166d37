import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { FIXTURES, expectedDefect } from '../helpers/fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');

describe('mac validate (built CLI, in process)', () => {
  it('accepts examples/ and prints counts per kind on stdout', async () => {
    const r = await runMacIn(['validate', EXAMPLES], { env: { SHOP_STRIPE_KEY: 'sk_test_do_not_print' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^shop: \d+ definitions in \d+ files, valid/);
    for (const kind of ['TcpCheck', 'DnsCheck', 'MultiStepCheck', 'HeartbeatCheck', 'IcmpMonitor', 'Snippet', 'Dashboard', 'EnvironmentVariable', 'AlertChannel', 'PrivateLocation', 'CheckGroup']) {
      expect(r.stdout).toContain(kind);
    }
    expect(r.stdout + r.stderr).not.toContain('sk_test_do_not_print');
  });

  it('accepts examples/ with a warning when the secret it reads from the environment is unset', async () => {
    const r = await runMacIn(['validate', EXAMPLES]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('variables.yaml:10:8: warning: value: environment variable SHOP_STRIPE_KEY is not set');
    expect(r.stdout).toMatch(/^shop: \d+ definitions in \d+ files, valid/);
  });

  it('refuses a directory without mac.config.yaml with one message, not a diagnostic per file below it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mac-noconfig-'));
    try {
      await writeFile(join(dir, 'stray.yaml'), 'kind: Nope\n');
      const r = await runMacIn(['validate', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error: no mac.config.yaml in ${dir}`);
      expect(r.stderr).not.toContain('stray.yaml');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each(['unknown-field-hint', 'frequency-zero-offset-15', 'duplicate-key', 'unknown-alert-channel-ref', 'config-defaults-bad-value', 'ts-invalid-value'])(
    'exits 1 and names file:line of the defect in %s',
    async (name) => {
      const dir = join(FIXTURES, 'invalid', name);
      const expected = expectedDefect(dir);
      const r = await runMacIn(['validate', dir]);
      expect(r.code).toBe(1);
      const first = r.stderr.split('\n')[0];
      expect(first.startsWith(`${expected.file}:${expected.line}:`)).toBe(true);
      expect(first).toMatch(new RegExp(`^[^:]+:\\d+:\\d+: error: ${expected.path ? `${expected.path.replace(/\./g, '\\.')}: ` : ''}`));
    },
  );

  it('prints every diagnostic of a run together, sorted by file and line, then a summary', async () => {
    const r = await runMacIn(['validate', join(FIXTURES, 'multi-defect')]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => / error: /.test(l)).map((l) => l.split(': error: ')[0])).toEqual(['a.yaml:4:1', 'b.yaml:4:31', 'b.yaml:9:12']);
    expect(r.stderr).toContain('a.yaml:4:1: error: scirpt: unknown field "scirpt" of Snippet\n  hint: did you mean "script"?');
    expect(lines.at(-1)).toBe('validation failed: 3 errors in 2 files');
  });

  it('fails with a usage error for a missing directory', async () => {
    const r = await runMacIn(['validate', join(ROOT, 'no-such-dir')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not a directory/);
  });
});

describe('mac schemas (built CLI, in process)', () => {
  let out: string | undefined;
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });
  it('writes the same files as the committed schemas/', async () => {
    out = await mkdtemp(join(tmpdir(), 'mac-schemas-'));
    const r = await runMacIn(['schemas', '--out', out]);
    expect(r.code).toBe(0);
    const written = (await readdir(out)).sort();
    expect(written).toEqual((await readdir(join(ROOT, 'schemas'))).sort());
    for (const name of written) expect(await readFile(join(out, name), 'utf8')).toBe(await readFile(join(ROOT, 'schemas', name), 'utf8'));
  });
});
