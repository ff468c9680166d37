/**
 * What a pull request can put in a project must not leak a file nor run code: files a definition
 * names stay inside the project (absolute paths, `../`, symlinks, FIFOs, oversize files are
 * diagnostics at the field), YAML is bounded (alias bombs), --no-typescript refuses *.mac.ts files
 * before any runs, and `mac import --out` never writes through a symlink leading outside.
 * Every run goes through the built CLI's main() in process (the environment a process inherits,
 * /proc/self/environ, stays in test/e2e/loader-safety.test.ts); "no HTTP request" is proven by a TCP listener that
 * records each connection.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, type Served } from '../helpers/serve.js';
import { outside, snippet, useLoaderSafety, type FileCase } from '../helpers/loader-safety.js';

const s = useLoaderSafety(runMacIn);
const { project, mac } = s;
let counter = 0;

const FILE_CASES: FileCase[] = [
  { name: 'an absolute path (/etc/passwd)', setup: async () => '/etc/passwd', message: outside, secret: 'root:x:0:0' },
  {
    name: 'a ../ path',
    setup: async (dir) => {
      await writeFile(join(dir, '..', 'secret.js'), 'const token = "OUTSIDE_CANARY";\n');
      return '../secret.js';
    },
    message: outside,
    secret: 'OUTSIDE_CANARY',
  },
  {
    name: 'a symlink to a file outside',
    setup: async (dir) => {
      await writeFile(join(dir, '..', 'target.js'), 'const token = "SYMLINK_CANARY";\n');
      await symlink(join(dir, '..', 'target.js'), join(dir, 'innocent.js'));
      return './innocent.js';
    },
    message: outside,
    secret: 'SYMLINK_CANARY',
  },
  {
    name: 'a FIFO',
    setup: async (dir) => {
      execFileSync('mkfifo', [join(dir, 'pipe.js')]);
      return 'pipe.js';
    },
    message: (v) => `"${v}" is not a regular file (a FIFO)`,
  },
  {
    name: 'a script of 1 MiB + 1 byte',
    setup: async (dir) => {
      await writeFile(join(dir, 'big.js'), 'x'.repeat(1024 * 1024 + 1));
      return 'big.js';
    },
    message: (v) => `"${v}" is larger than 1 MiB`,
  },
];

describe('files a definition names stay inside the project', () => {
  it.each(FILE_CASES)('scriptFile at $name: validate and plan exit 1 at the field, plan makes no HTTP request', (c) => s.checkFileCase(c));

  it('a script of exactly 1 MiB inside the project, also through a symlink inside it, is read', async () => {
    const dir = await project('ok');
    await writeFile(join(dir, 'exact.js'), 'x'.repeat(1024 * 1024));
    await mkdir(join(dir, 'scripts'));
    await symlink('../exact.js', join(dir, 'scripts', 'alias.js'));
    await writeFile(join(dir, 'snippet.yaml'), snippet('./scripts/alias.js'));
    const r = await mac(['validate', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('the plan of a valid project does reach the listener (the probe above can see requests)', async () => {
    const dir = await project('probe', { 'ok.js': 'ok();\n' });
    await writeFile(join(dir, 'snippet.yaml'), snippet('ok.js'));
    const before = s.listener.received.length;
    const r = await mac(['plan', dir]);
    expect(r.code).toBe(1);
    expect(s.listener.received.length).toBeGreaterThan(before);
  });

  it('a definition file over 8 MiB is a diagnostic at file:1:1, and plan makes no HTTP request', async () => {
    const dir = await project('huge');
    await writeFile(join(dir, 'huge.yaml'), `kind: Snippet\nid: huge\nname: huge\nscript: ok\n${'#'.repeat(8 * 1024 * 1024)}\n`);
    const before = s.listener.received.length;
    for (const command of ['validate', 'plan']) {
      const r = await mac([command, dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('huge.yaml:1:1: error: "huge.yaml" is larger than 8 MiB');
    }
    expect(s.listener.received.length).toBe(before);
  });

  it('a mac.config.yaml over 8 MiB is a diagnostic too', async () => {
    const dir = await project('hugeconfig');
    await writeFile(join(dir, 'mac.config.yaml'), `project: safety\n${'#'.repeat(8 * 1024 * 1024)}\n`);
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mac.config.yaml:1:1: error: "mac.config.yaml" is larger than 8 MiB');
  });

  it('a definition file reached through a symlink to outside the project is not read', async () => {
    const dir = await project('deflink');
    await writeFile(join(dir, '..', 'elsewhere.yaml'), 'kind: Snippet\nid: ELSEWHERE_CANARY\nname: x\nscript: y\n');
    await symlink(join(dir, '..', 'elsewhere.yaml'), join(dir, 'linked.yaml'));
    await symlink('/etc/passwd', join(dir, 'passwd.yaml'));
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('linked.yaml:1:1: error: "linked.yaml" is outside the project');
    expect(r.stderr).toContain('passwd.yaml:1:1: error: "passwd.yaml" is outside the project');
    expect(r.stderr).not.toContain('ELSEWHERE_CANARY');
    expect(r.stderr).not.toContain('root:x:0:0');
  });

  it('a definition file that is not UTF-8 is a diagnostic at the offending byte', async () => {
    const dir = await project('latin1');
    await writeFile(join(dir, 'latin1.yaml'), Buffer.from('kind: Snippet\nid: cafe\nname: "caf\xe9"\nscript: x\n', 'latin1'));
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('latin1.yaml:3:11: error: "latin1.yaml" is not UTF-8 text (byte 0xe9 at line 3, column 11)');
  });
});

describe('YAML input is bounded', () => {
  it('an alias bomb exits 1 with file:line within a few seconds', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const dir = await project('bomb', { 'bomb.yaml': `kind: Snippet\nid: bomb\nname: bomb\nscript: x\n${levels.join('\n')}\n` });
    const started = Date.now();
    const r = await mac(['validate', dir]);
    const ms = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bomb\.yaml:\d+:\d+: error: YAML: aliases expand to more than 100000 nodes/m);
    expect(r.stderr).not.toContain('internal error');
    expect(ms).toBeLessThan(10_000);
  });

  it('an anchor used across --- documents, and keys such as __proto__ and constructor, are diagnostics, never [object Object]', async () => {
    const dir = await project('yaml', {
      'across.yaml': 'kind: Snippet\nid: a\nname: &n one\nscript: x\n---\nkind: Snippet\nid: b\nname: *n\nscript: y\n',
      'proto.yaml': 'kind: Snippet\nid: p\nname: p\nscript: x\n__proto__: {polluted: true}\n',
      'ctor.yaml': 'kind: Snippet\nid: c\nname: c\nscript: x\nrequest:\n  constructor: 1\n',
    });
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('across.yaml:8:7: error: YAML: alias *n has no anchor &n before it in this document');
    expect(r.stderr).toContain('proto.yaml:5:1: error: key "__proto__" is not allowed');
    expect(r.stderr).toContain('ctor.yaml:6:3: error: key "constructor" is not allowed');
    expect(r.stderr).not.toContain('[object Object]');
    expect(r.stderr).not.toContain('[native code]');
    expect(r.stderr).not.toContain('internal error');
  });

  it('a variable key "." or ".." is a diagnostic at the key', async () => {
    const dir = await project('keys', { 'vars.yaml': 'kind: EnvironmentVariable\nkey: ..\nvalue: x\n---\nkind: EnvironmentVariable\nkey: .\nvalue: y\n' });
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('vars.yaml:2:6: error: key: must be 1..255 characters without / ? # % or whitespace, and not . or ..');
    expect(r.stderr).toContain('vars.yaml:6:6: error: key: must be 1..255 characters without / ? # % or whitespace, and not . or ..');
  });
});

describe('--no-typescript', () => {
  let marker: string;
  const evil = (markerPath: string) =>
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(markerPath)}, 'ran');\nexport default { kind: 'Snippet', id: 'ts', name: 'ts', script: 'x' };\n`;

  beforeAll(() => {
    marker = join(s.work, 'marker');
  });

  it('without it the .mac.ts file runs (the marker proves the probe works)', async () => {
    const dir = await project('ts-allowed', { 'evil.mac.ts': evil(marker) });
    const r = await mac(['validate', dir]);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    await rm(marker);
  });

  it.each([
    ['validate', (dir: string) => ['validate', '--no-typescript', dir]],
    ['plan', (dir: string) => ['plan', '--no-typescript', dir]],
    ['apply', (dir: string) => ['apply', '--no-typescript', '--yes', dir]],
    ['destroy', (dir: string) => ['destroy', '--no-typescript', '--yes', dir]],
    ['test', (dir: string) => ['test', '--no-typescript', dir]],
    ['import', (dir: string) => ['import', '--no-typescript', '--out', dir]],
  ])('mac %s --no-typescript refuses a project with a .mac.ts file before any of it runs', async (_name, args) => {
    const dir = await project('ts', { 'checks/evil.mac.ts': evil(marker), 'ok.yaml': 'kind: Snippet\nid: ok\nname: ok\nscript: x\n' });
    const before = s.listener.received.length;
    const r = await mac(args(dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('checks/evil.mac.ts:1:1: error: TypeScript definitions are refused here (--no-typescript)');
    expect(existsSync(marker)).toBe(false);
    expect(s.listener.received.length).toBe(before);
  });

  it('mac import --no-typescript into a new directory holding a .mac.ts file writes nothing and runs nothing', async () => {
    const dir = join(s.work, `ts-new-${++counter}`);
    await mkdir(join(dir, 'lib'), { recursive: true });
    await writeFile(join(dir, 'lib', 'evil.mac.ts'), evil(marker));
    const before = s.listener.received.length;
    const r = await mac(['import', '--no-typescript', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('lib/evil.mac.ts:1:1: error: TypeScript definitions are refused here (--no-typescript)');
    expect(await readdir(dir)).toEqual(['lib']);
    expect(existsSync(marker)).toBe(false);
    expect(s.listener.received.length).toBe(before);
  });

  it('mac validate --help no longer calls itself offline-safe for TypeScript', async () => {
    const r = await mac(['validate', '--help']);
    expect(r.stdout).toContain('--no-typescript');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('a *.mac.ts file is code and runs');
    expect(r.stdout).not.toMatch(/DIR, offline/);
  });
});

describe('mac import --out never writes through a symlink leading outside it', () => {
  let served: Served;

  beforeAll(async () => {
    served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
    await apiOk(served, 'POST', '/v1/checks/tcp?autoAssignAlerts=false', { name: 'Gateway', request: { hostname: 'gw', port: 443 } });
    await apiOk(served, 'POST', '/v1/snippets', { name: 'login', script: 'login();' });
  });

  afterAll(async () => {
    await served?.stop();
  });

  const importInto = (out: string) => runMacIn(['import', '--out', out], { env: { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey }, timeoutMs: 30_000 });

  it('a symlinked subfolder pointing outside: exit 1, nothing written outside nor inside', async () => {
    const base = join(s.work, `import-${++counter}`);
    const outsideDir = join(base, 'outside');
    const out = join(base, 'mon');
    await mkdir(outsideDir, { recursive: true });
    await mkdir(out);
    await symlink(outsideDir, join(out, 'checks'));
    const r = await importInto(out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(out, 'checks')} leads outside ${out} (a symlink); import writes nothing through it`);
    expect(await readdir(outsideDir)).toEqual([]);
    expect(existsSync(join(out, 'snippets.yaml'))).toBe(false);
  });

  it('a dangling symlink at a file name import would use is never written through: the file goes beside it', async () => {
    const base = join(s.work, `import-${++counter}`);
    const outsideDir = join(base, 'outside');
    const out = join(base, 'mon');
    await mkdir(outsideDir, { recursive: true });
    await mkdir(out);
    await symlink(join(outsideDir, 'planted.yaml'), join(out, 'snippets.yaml'));
    const r = await importInto(out);
    expect(await readdir(outsideDir)).toEqual([]);
    expect((await lstat(join(out, 'snippets.yaml'))).isSymbolicLink()).toBe(true);
    expect(existsSync(join(out, 'snippets-2.yaml'))).toBe(true);
    // The dangling symlink itself is then a diagnostic of the written project (it names no file).
    expect(r.stderr).toContain('snippets.yaml:1:1: error: cannot read "snippets.yaml": no such file');
  });
});
