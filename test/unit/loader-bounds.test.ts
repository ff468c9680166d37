/** The loader's bounds: YAML (aliases, anchors, reserved keys, depth), file reads, key syntax. */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ALIASES, MAX_DEPTH, parseYaml } from '../../src/config/yaml-source.js';
import { describeProblem, firstInvalidUtf8, isInside, readProjectFile } from '../../src/config/files.js';
import { isReservedKey, plainDataProblem, type SourceDocument } from '../../src/config/source.js';
import { checkStructure } from '../../src/config/structure.js';
import { loadProject } from '../../src/config/load.js';
import { VARIABLE_KEY } from '../../src/schema/fields.js';
import type { Diagnostic } from '../../src/config/types.js';

const SNIPPET = 'kind: Snippet\nid: s\nname: s\nscript: x\n';

function errorsOf(text: string): Diagnostic[] {
  return parseYaml(text, 'f.yaml', '/tmp').diagnostics;
}

/** A billion-laughs document: `levels` anchors, each aliasing the previous one `fan` times. */
function bomb(levels: number, fan: number): string {
  const lines = [`l0: &l0 [${Array(fan).fill('"lol"').join(', ')}]`];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(fan).fill(`*l${i - 1}`).join(', ')}]`);
  return SNIPPET + lines.join('\n') + '\n';
}

describe('YAML bounds', () => {
  it.each([
    [9, 10],
    [30, 2],
    [5, 100],
  ])('an alias bomb of %i levels of %i aliases is one diagnostic at an alias, in well under a second', (levels, fan) => {
    const started = performance.now();
    const diagnostics = errorsOf(bomb(levels, fan));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ file: 'f.yaml', message: 'YAML: aliases expand to more than 100000 nodes' });
    expect(diagnostics[0].line).toBeGreaterThan(5);
    expect(diagnostics[0].hint).toContain('alias bomb');
  });

  it('more aliases in one document than the bound is a diagnostic (each would cost a scan of the anchors)', () => {
    const text = `${SNIPPET}a: &a x\nl: [${Array(MAX_ALIASES + 1).fill('*a').join(', ')}]\n`;
    const started = performance.now();
    expect(errorsOf(text).map((d) => d.message)).toEqual([`YAML: more than ${MAX_ALIASES} aliases in one document`]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('keeps ordinary anchors and aliases working', () => {
    const parsed = parseYaml(`${SNIPPET}tags: &t [a, b]\nother: *t\nm: &m {k: v}\nn: [*m, *m]\n`, 'f.yaml', '/tmp');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.documents[0].data).toMatchObject({ tags: ['a', 'b'], other: ['a', 'b'], n: [{ k: 'v' }, { k: 'v' }] });
  });

  it('an anchor used across --- documents is a diagnostic at the alias, not an internal error', () => {
    const parsed = parseYaml('kind: Snippet\nid: a\nname: &n x\n---\nkind: Snippet\nid: b\nname: *n\n', 'f.yaml', '/tmp');
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({ line: 7, col: 7, message: 'YAML: alias *n has no anchor &n before it in this document', hint: 'anchors do not carry across --- documents' }),
    ]);
    expect(parsed.documents).toHaveLength(1);
  });

  it('an alias inside the node it refers to (a cycle) is a diagnostic', () => {
    expect(errorsOf(`${SNIPPET}m: &m {self: *m}\n`)).toEqual([expect.objectContaining({ line: 5, col: 14, message: 'YAML: alias *m is inside the node it refers to' })]);
  });

  it('nesting deeper than the bound is a diagnostic', () => {
    const deep = `${SNIPPET}d: ${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}\n`;
    expect(errorsOf(deep).map((d) => d.message)).toEqual([`YAML: nested deeper than ${MAX_DEPTH} levels`]);
    // Far deeper nesting overflows the yaml parser itself: still a diagnostic, never a throw.
    const deeper = `d: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    expect(errorsOf(deeper)).toHaveLength(1);
  });

  it.each(['__proto__', 'constructor', 'toString', 'prototype', 'hasOwnProperty', 'valueOf'])('a key "%s" anywhere is a diagnostic at the key', (key) => {
    expect(errorsOf(`${SNIPPET}request:\n  list:\n    - ${key}: 1\n`)).toEqual([
      expect.objectContaining({ line: 7, col: 7, message: `key "${key}" is not allowed` }),
    ]);
    expect(errorsOf(`${key}: {polluted: true}\n`)).toEqual([expect.objectContaining({ line: 1, col: 1, message: `key "${key}" is not allowed` })]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a key that is a mapping, list or alias is a diagnostic (no "[object Object]" key)', () => {
    expect(errorsOf('? [a, b]\n: x\n').map((d) => d.message)).toEqual(['YAML: a key must be a plain string, not a mapping, list or alias']);
    expect(errorsOf('a: &k x\n*k : y\n').map((d) => d.message)).toEqual(['YAML: a key must be a plain string, not a mapping, list or alias']);
  });

  it('<< is an ordinary key, not a merge', () => {
    const parsed = parseYaml('base: &b {x: 1}\nc:\n  <<: *b\n', 'f.yaml', '/tmp');
    expect(parsed.documents[0].data).toEqual({ base: { x: 1 }, c: { '<<': { x: 1 } } });
  });
});

describe('reserved keys and hints', () => {
  it('knows the names every object has', () => {
    for (const k of ['__proto__', 'constructor', 'toString', 'prototype', '__defineGetter__']) expect(isReservedKey(k)).toBe(true);
    for (const k of ['name', 'proto', 'script', 'key']) expect(isReservedKey(k)).toBe(false);
  });

  it('finds reserved keys, cycles and depth in data that did not come from YAML', () => {
    expect(plainDataProblem(JSON.parse('{"kind":"Snippet","request":{"__proto__":{"x":1}}}'))).toEqual({ path: ['request', '__proto__'], message: 'key "__proto__" is not allowed' });
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic.a as unknown[]).push(cyclic);
    expect(plainDataProblem(cyclic)).toEqual({ path: ['a', 1], message: 'refers to itself (a cycle)' });
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(plainDataProblem(deep)?.message).toBe('is nested deeper than 64 levels');
    expect(plainDataProblem({ kind: 'Snippet', tags: ['a', { b: null }] })).toBeUndefined();
  });

  const source = (data: unknown): SourceDocument => ({
    file: 'f.yaml',
    dir: '/tmp',
    data,
    position: () => ({ file: 'f.yaml', line: 1, col: 1 }),
    locate: () => ({ file: 'f.yaml', line: 2, col: 3 }),
  });

  it.each(['constructor', 'toString', '__proto__', 'valueOf'])('an unknown field "%s" gets a hint that is never an inherited value', (key) => {
    const data: Record<string, unknown> = { kind: 'Snippet', id: 's', name: 's', script: 'x' };
    Object.defineProperty(data, key, { value: 1, enumerable: true, writable: true, configurable: true });
    const diagnostics: Diagnostic[] = [];
    expect(checkStructure(source(data), diagnostics)).toBeUndefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].message).toBe(`unknown field "${key}" of Snippet`);
    expect(typeof diagnostics[0].hint).toBe('string');
    expect(diagnostics[0].hint).not.toMatch(/\[object Object\]|native code|function/);
  });

  it('a kind that is not a string says so instead of printing [object Object]', () => {
    const diagnostics: Diagnostic[] = [];
    checkStructure(source({ kind: { a: 1 }, id: 'x' }), diagnostics);
    expect(diagnostics.map((d) => d.message)).toEqual(['must be a string, not a mapping']);
  });
});

describe('variable key syntax', () => {
  it.each(['.', '..', '', 'a/b', 'a b', 'a%2e', 'a?b', 'a#b', 'x'.repeat(256)])('refuses %j', (key) => {
    expect(VARIABLE_KEY.test(key)).toBe(false);
  });
  it.each(['API_URL', '.env', '...', 'a..b', 'a.b', 'x'.repeat(255)])('accepts %j', (key) => {
    expect(VARIABLE_KEY.test(key)).toBe(true);
  });
});

describe('UTF-8 positions', () => {
  it.each([
    ['a latin-1 byte', Buffer.from('ab\ncaf\xe9\n', 'latin1'), { line: 2, col: 4, byte: 0xe9 }],
    ['an overlong NUL', Buffer.from([0x61, 0xc0, 0x80]), { line: 1, col: 2, byte: 0xc0 }],
    ['a surrogate', Buffer.from([0x0a, 0xed, 0xa0, 0x80]), { line: 2, col: 1, byte: 0xed }],
    ['a sequence cut at the end', Buffer.from([0xc3, 0xa9, 0xe2, 0x82]), { line: 1, col: 2, byte: 0xe2 }],
    ['a byte after multi-byte characters', Buffer.concat([Buffer.from('ééé€', 'utf8'), Buffer.from([0xff])]), { line: 1, col: 5, byte: 0xff }],
  ])('finds %s', (_name, bytes, expected) => {
    expect(firstInvalidUtf8(bytes)).toEqual(expected);
  });
});

describe('readProjectFile', () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'mac-files-')));
    root = join(base, 'project');
    await mkdir(join(root, 'sub'), { recursive: true });
    await writeFile(join(base, 'outside.js'), 'OUTSIDE');
    await writeFile(join(root, 'inside.js'), 'inside');
    await writeFile(join(root, 'ten.js'), '0123456789');
    await writeFile(join(root, 'eleven.js'), '0123456789x');
    await writeFile(join(root, 'latin1.js'), Buffer.from('x = "\xe9"', 'latin1'));
    await symlink(join(base, 'outside.js'), join(root, 'out-link.js'));
    await symlink('../inside.js', join(root, 'sub', 'in-link.js'));
    await symlink(base, join(root, 'up'));
    await symlink(join(root, 'nowhere.js'), join(root, 'dangling.js'));
    execFileSync('mkfifo', [join(root, 'fifo.js')]);
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const read = (path: string, limit = 10) => readProjectFile(root, join(root, path), limit);

  it('reads regular files inside the project, also through symlinks that stay inside', async () => {
    expect(await read('inside.js')).toEqual({ ok: true, text: 'inside' });
    expect(await read('sub/in-link.js')).toEqual({ ok: true, text: 'inside' });
  });

  it('refuses what lies outside with symlinks followed', async () => {
    for (const p of ['../outside.js', 'out-link.js', 'up/outside.js', '/etc/passwd']) {
      expect(await readProjectFile(root, p.startsWith('/') ? p : join(root, p), 100)).toEqual({ ok: false, problem: { kind: 'outside' } });
    }
  });

  it('refuses a FIFO without blocking, a directory, and a missing or dangling file', async () => {
    expect(await read('fifo.js')).toEqual({ ok: false, problem: { kind: 'not-regular', what: 'a FIFO' } });
    expect(await read('sub')).toEqual({ ok: false, problem: { kind: 'not-regular', what: 'a directory' } });
    expect(await read('.')).toEqual({ ok: false, problem: { kind: 'not-regular', what: 'a directory' } });
    expect(isInside(root, `${root}-sibling/x.js`)).toBe(false);
    expect(await read('missing.js')).toEqual({ ok: false, problem: { kind: 'missing' } });
    expect(await read('dangling.js')).toEqual({ ok: false, problem: { kind: 'missing' } });
  });

  it('reads exactly the limit and refuses one byte more', async () => {
    expect(await read('ten.js', 10)).toEqual({ ok: true, text: '0123456789' });
    expect(await read('eleven.js', 10)).toEqual({ ok: false, problem: { kind: 'too-large', limit: 10 } });
  });

  it('refuses text that is not UTF-8 with the position of the first bad byte', async () => {
    expect(await read('latin1.js', 100)).toEqual({ ok: false, problem: { kind: 'not-utf8', line: 1, col: 6, byte: 0xe9 } });
  });

  it('refuses a pseudo-filesystem file even when the root would contain it', async () => {
    expect(isInside('/', '/proc/self/environ')).toBe(true);
    const r = await readProjectFile('/', '/proc/self/environ', 1024 * 1024);
    expect(r).toEqual({ ok: false, problem: { kind: 'not-regular', what: 'a file of a system pseudo filesystem' } });
  });

  it('words each problem with the name the definition wrote', () => {
    expect(describeProblem('/etc/passwd', { kind: 'outside' })).toBe('"/etc/passwd" is outside the project');
    expect(describeProblem('big.js', { kind: 'too-large', limit: 1024 * 1024 })).toBe('"big.js" is larger than 1 MiB');
    expect(describeProblem('p', { kind: 'not-regular', what: 'a FIFO' })).toBe('"p" is not a regular file (a FIFO)');
  });
});

describe('loadProject with typescript: false', () => {
  it('refuses every *.mac.ts file, even one include does not select, without importing any', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mac-nots-'));
    try {
      const marker = join(dir, 'marker');
      await writeFile(join(dir, 'mac.config.yaml'), 'project: p\ninclude: ["**/*.yaml", "defs/*.ts"]\n');
      await mkdir(join(dir, 'defs'));
      await mkdir(join(dir, 'other'));
      const code = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport default [];\n`;
      await writeFile(join(dir, 'defs', 'plain.ts'), code);
      await writeFile(join(dir, 'other', 'unlisted.mac.ts'), code);
      const project = await loadProject(dir, { env: {}, typescript: false });
      expect(project.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}`)).toEqual(['defs/plain.ts:1:1', 'other/unlisted.mac.ts:1:1']);
      expect(project.diagnostics[0].message).toContain('a *.mac.ts file is code and would run when loaded');
      expect(project.definitions).toEqual([]);
      const { existsSync } = await import('node:fs');
      expect(existsSync(marker)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('YAML cost stays linear', () => {
  it('duplicate keys are found with a set: 40000 keys and a repeat in well under the quadratic time', () => {
    let text = '';
    let list = '';
    for (let k = 0; k < 40_000; k++) {
      text += `k${k}: v\n`;
      list += `- k${k}v\n`;
    }
    const timed = (source: string, then: (d: unknown[]) => void = () => undefined) => {
      const started = performance.now();
      then(errorsOf(source));
      return performance.now() - started;
    };
    let diagnostics: unknown[] = [];
    const map = timed(`${text}k7: again\n`, (d) => (diagnostics = d));
    expect(diagnostics).toEqual([expect.objectContaining({ line: 40_001, col: 1, message: 'duplicate key "k7" (map keys must be unique)' })]);
    // Against a list of as many items (no keys to compare), parsed right after: about as long with
    // a set; the yaml package's own uniqueKeys check (each key against every earlier one) takes
    // over 20 s for this map, many times the list. A ratio, not a time: load slows both alike.
    const items = timed(list);
    expect(map / items, `map ${map.toFixed(0)} ms, list ${items.toFixed(0)} ms`).toBeLessThan(6);
  });

  it('1 and "1" are the same key', () => {
    expect(errorsOf('1: a\n"1": b\n').map((d) => d.message)).toEqual(['duplicate key "1" (map keys must be unique)']);
  });

  it('more anchors in one document than the bound is a diagnostic', async () => {
    const { MAX_ANCHORS } = await import('../../src/config/yaml-source.js');
    let text = '';
    for (let k = 0; k <= MAX_ANCHORS; k++) text += `a${k}: &a${k} x\n`;
    expect(errorsOf(text).map((d) => d.message)).toEqual([`YAML: more than ${MAX_ANCHORS} anchors in one document`]);
  });
});
