import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, relativeLinks } from '../helpers/doc-examples.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(): string[] {
  const files = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) files.push(p);
    }
  };
  walk(join(root, 'docs'));
  return files;
}

describe('links in README, CONTRIBUTING and docs/', () => {
  it('every relative link names an existing file, and an existing heading when it has an anchor', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const { target, line } of relativeLinks(text)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(root, file)}:${line}: ${target}`;
        if (!existsSync(dest)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor && dest.endsWith('.md') && !anchorsOf(readFileSync(dest, 'utf8')).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the checker sees a broken link and a broken anchor', () => {
    expect(relativeLinks('see [x](nope.md) and `[y](code.md)` and [z](https://a.example)')).toEqual([
      { target: 'nope.md', line: 1 },
    ]);
    expect(anchorsOf('# Environment (`env:`)\n## scriptFile\n## scriptFile\n')).toEqual(
      new Set(['environment-env', 'scriptfile', 'scriptfile-1']),
    );
  });

  it('README links every user page of docs/ and CONTRIBUTING.md, and no page of docs/internals/ but through CONTRIBUTING.md', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks(readme).map((l) => l.target.split('#')[0]));
    const pages = readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md'));
    expect(pages.filter((p) => !linked.has(`docs/${p}`))).toEqual([]);
    expect(linked.has('CONTRIBUTING.md')).toBe(true);
    expect([...linked].filter((t) => t?.startsWith('docs/internals/'))).toEqual([]);
    const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const internals = readdirSync(join(root, 'docs/internals')).filter((n) => n.endsWith('.md'));
    const fromContributing = new Set(relativeLinks(contributing).map((l) => l.target.split('#')[0]));
    expect(internals.filter((p) => !fromContributing.has(`docs/internals/${p}`))).toEqual([]);
  });
});

describe('user pages speak to users', () => {
  // README and docs/*.md (not docs/internals/, which CONTRIBUTING.md links for contributors).
  const userPages = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => join(root, 'docs', n))];
  const RULES: Array<[RegExp, string]> = [
    [/\bissues? ?#?\d+\b|\(#\d+\)/i, 'an issue number'],
    [/\bapi-decisions\b|\bARCHITECTURE\.md\b|\bSTYLE\.md\b/, 'an internal decision document'],
    [/(?:^|[\s`(["'])\.\.\/shared\/|(?:^|[\s`(["'])\/work\/|\bshared\/(?:spec|design|reference)\//, 'a file outside the repository'],
    [/(?:^|[\s`(["'])(?:src|test|bench|scripts)\/[\w./-]+/, 'a source path (they belong in CONTRIBUTING.md or docs/internals/)'],
  ];

  /** The problems of one page; HTML comments (not shown) are left out. */
  function problems(file: string, text: string): string[] {
    const shown = text.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' '));
    const out: string[] = [];
    shown.split('\n').forEach((line, i) => {
      for (const [re, what] of RULES) if (re.test(line)) out.push(`${relative(root, file)}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
    });
    return out;
  }

  it('name no issue, internal decision document, file outside the repository or source path', () => {
    expect(userPages.flatMap((f) => problems(f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the check sees each of them', () => {
    const found = problems(join(root, 'docs', 'x.md'), ['fixed in issue 26', 'see api-decisions §3', 'read ../shared/spec/monitoring-api.md', 'in `src/action/run.ts`', 'the folder src is fine', 'https://github.com/x/y/issues/3 is a link'].join('\n'));
    expect(found.map((p) => p.split(': ')[1])).toEqual(['an issue number', 'an internal decision document', 'a file outside the repository', 'a source path (they belong in CONTRIBUTING.md or docs/internals/)']);
  });
});
