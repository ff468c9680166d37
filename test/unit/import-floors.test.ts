import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The floors of src/ (CONTRIBUTING.md, "The floors"): each part of the house may import only the
// parts listed for it, all of them below it. The engine (schema, config, plan, apply, import,
// render, cli, action) never imports the service (src/server), with one door: the `mac serve`
// command starts it. A new top-level folder or file of src/ must be placed here first.
const FLOORS: Record<string, readonly string[]> = {
  errors: [],
  json: [],
  html: [],
  schema: ['errors'],
  api: ['errors'],
  git: ['errors'],
  runner: ['errors', 'json', 'schema'],
  kinds: ['errors', 'json', 'schema', 'api'],
  config: ['errors', 'json', 'schema', 'api', 'kinds'],
  plan: ['errors', 'json', 'schema', 'api', 'kinds', 'config'],
  apply: ['errors', 'json', 'schema', 'api', 'kinds', 'config', 'plan'],
  import: ['errors', 'json', 'schema', 'api', 'kinds', 'config', 'plan'],
  render: ['errors', 'json', 'html', 'schema', 'kinds', 'config', 'plan', 'apply'],
  testrun: ['errors', 'json', 'schema', 'config', 'runner'],
  agent: ['errors', 'json', 'runner'],
  action: ['errors', 'json', 'html', 'schema', 'api', 'git', 'kinds', 'config', 'plan', 'apply', 'import', 'render'],
  cli: ['errors', 'json', 'html', 'schema', 'api', 'git', 'kinds', 'config', 'plan', 'apply', 'import', 'render', 'runner', 'testrun', 'agent'],
  server: ['errors', 'json', 'html', 'schema', 'runner'],
  index: ['errors', 'schema'],
};

/** The files above the floors' rule, with what they may import besides: the service's one door. */
const DOORS: Record<string, readonly string[]> = {
  'cli/commands/serve.ts': ['server'],
};

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The relative module specifiers of a file: static imports and re-exports (types too) and dynamic import(). */
export function importsOf(text: string): string[] {
  // Comments go first, so that an example in a comment is not an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[;\n}])\s*(?:import|export)\b(?:[^'";]*?\bfrom\s*)?\s*['"]([^'"]+)['"]/g)) found.push(m[1]);
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
  return found.filter((s) => s.startsWith('.'));
}

/** The floor of a file of src/: its top-level folder, or the file's own name for a file at the top. */
const floorOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.[jt]s$/, '');
};

/** Every import of src/ that crosses the floors against the table, as `from -> to`. */
function violations(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = floorOf(file);
    const allowed = new Set([from, ...(FLOORS[from] ?? []), ...(DOORS[relative(SRC, file)] ?? [])]);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec);
      const to = floorOf(target);
      if (!allowed.has(to)) out.push(`src/${relative(SRC, file)} -> src/${relative(SRC, target)} (${from} may not import ${to})`);
    }
  }
  return out;
}

describe('the floors of src/', () => {
  it('places every top-level folder and file of src/ on a floor', () => {
    const floors = new Set(sourceFiles(SRC).map(floorOf));
    expect([...floors].filter((f) => !(f in FLOORS)), 'add it to FLOORS here and to CONTRIBUTING.md').toEqual([]);
  });

  it('holds: no import against the floors', () => {
    expect(violations()).toEqual([]);
  });

  it('the table is one way: no floor imports one that imports it', () => {
    const cycles = Object.entries(FLOORS).flatMap(([a, below]) => below.filter((b) => FLOORS[b]?.includes(a)).map((b) => `${a} <-> ${b}`));
    expect(cycles).toEqual([]);
  });

  it('reads the imports a file can write', () => {
    const text = [
      "import { a } from '../server/a.js';",
      "import type { B } from './b.js';",
      "export { c } from '../plan/c.js';",
      "export * from '../plan/d.js';",
      "import '../server/side-effect.js';",
      'import {\n  e,\n  f,\n} from "../config/e.js";',
      "const g = await import('../server/g.js');",
      "// import { h } from '../server/h.js';",
      "/* import { i } from '../server/i.js'; */",
      "import { z } from 'zod';",
      "const s = 'see https://example.com/x'; import { j } from './j.js';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['../server/a.js', './b.js', '../plan/c.js', '../plan/d.js', '../server/side-effect.js', '../config/e.js', './j.js', '../server/g.js']);
  });

  it('the service\'s door is the serve command alone: it does import the service', () => {
    const serve = readFileSync(join(SRC, 'cli/commands/serve.ts'), 'utf8');
    expect(importsOf(serve).some((s) => s.startsWith('../../server/'))).toBe(true);
  });
});
