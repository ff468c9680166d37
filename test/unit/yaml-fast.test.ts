import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreScalar, fastYamlData } from '../../src/config/yaml-fast.js';
import { fullYamlData, parseYamlData } from '../../src/config/yaml-source.js';
// @ts-expect-error: the bench's project generator is plain JavaScript without types.
import { writeProject } from '../../bench/definitions.mjs';

// The fast reader must return exactly what the `yaml` package's parse returns (data, document
// indexes, `kind:` positions, no diagnostics) for every text it accepts, and decline the rest.

const ROOT = join(import.meta.dirname, '..', '..');

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry)) out.push(path);
  }
  return out;
}

/** Asserts that the fast reader either declines `text` or agrees with the full parse; returns whether it accepted. */
function agrees(text: string, label: string): boolean {
  const fast = fastYamlData(text, 'f.yaml');
  if (fast === undefined) return false;
  const full = fullYamlData(text, 'f.yaml');
  expect(full.diagnostics, `${label}: accepted a text the full parse finds problems in\n${text}`).toEqual([]);
  expect(fast, `${label}\n${text}`).toEqual(full);
  return true;
}

describe('fast YAML reader', () => {
  it('agrees with the full parse on every example and fixture, and reads the plain ones', () => {
    const files = [...yamlFiles(join(ROOT, 'examples')), ...yamlFiles(join(ROOT, 'test', 'fixtures'))];
    let accepted = 0;
    for (const file of files) if (agrees(readFileSync(file, 'utf8'), file)) accepted++;
    expect(files.length).toBeGreaterThan(50);
    // Most definition files are plain YAML: the fast reader takes them.
    expect(accepted / files.length).toBeGreaterThan(0.8);
  });

  it('reads every file of the bench project, as the full parse does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mac-yaml-fast-'));
    try {
      await writeProject(dir, { checks: 120, snippets: 10, dashboards: 10, variables: 10 });
      for (const file of yamlFiles(dir)) expect(agrees(readFileSync(file, 'utf8'), file), file).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const ACCEPTED: Record<string, string> = {
    'scalars of every core type': 'kind: X\na: 1\nb: -2\nc: +3\nd: 0o17\ne: 0x1F\nf: 1.5\ng: .5\nh: 3e3\ni: -.inf\nj: .NaN\nk: ~\nl: null\nm: True\nn: FALSE\no: 1.2.3\np: 2025-04-01\nq: "007"\nr: \'x y\'\ns: 007\nt: 1.\nu: yes\nv: .inf\nw:\n',
    'comments everywhere': '# head\nkind: X # trailing\n  # indented comment\nlist: # after key\n  - a # c\n  # between\n  - b\n',
    'documents and markers': '---\nkind: A\n---\n# only a comment\n---\nkind: B\n---\n',
    'comment before the first marker': '# c\n---\nkind: A\n---\nkind: B\n',
    'an empty stream': '# nothing\n\n',
    'nesting and compact mappings': 'kind: X\nreq:\n  asserts:\n    - source: A\n      target: "1"\n    - { source: B, nested: [1, [2, 3], { a: b }] }\nseq:\n- a\n- b:\n  - c\nz: 1\n',
    'literal scalars': 'kind: X\na: |\n  line 1\n\n    indented\n  # not a comment\n\n\nb: |-\n  stripped\nc: |\nd: |\n\n  after a blank\n# trailing comment\ne: x\nlist:\n  - |\n    in a list\n  - z\n',
    'kind not first, and no kind': 'id: a\nkind: X\n---\nid: b\n',
    'plain text with indicators inside': 'kind: X\nurl: https://example.com/a?b=c#frag\ncmd: a - b\nx: ${{ env.HOST }}\ny: a[0]{1}\nz: -5\nw: a #b\n',
    'non-ASCII text': 'kind: X\nname: Caf\u00e9 \u2713 \u65e5\u672c\n',
    'empty flow collections': 'kind: X\na: []\nb: {}\nc: [ ]\n',
  };
  for (const [name, text] of Object.entries(ACCEPTED)) {
    it(`reads ${name}`, () => expect(agrees(text, name)).toBe(true));
  }

  const DECLINED: Record<string, string> = {
    'an anchor and alias': 'kind: X\na: &x 1\nb: *x\n',
    'a tag': 'kind: X\na: !!str 1\n',
    'an escape': 'kind: X\na: "a\\nb"\n',
    'a doubled quote': "kind: X\na: 'it''s'\n",
    'a multi-line plain scalar': 'kind: X\na: one\n  two\n',
    'a multi-line flow collection': 'kind: X\na: [1,\n  2]\n',
    'a tab': 'kind: X\na:\t1\n',
    'a carriage return': 'kind: X\r\na: 1\r\n',
    'a trailing space': 'kind: X \n',
    'no final line feed': 'kind: X',
    'a duplicate key': 'kind: X\na: 1\na: 2\n',
    'a reserved key': 'kind: X\n__proto__: 1\n',
    'a key that is not a string': 'kind: X\ntrue: 1\n',
    'a quoted key': 'kind: X\n"a": 1\n',
    'a folded scalar': 'kind: X\na: >\n  b\n',
    'a keep chomping': 'kind: X\na: |+\n  b\n',
    'a directive': '%YAML 1.2\n---\nkind: X\n',
    'a document end marker': 'kind: X\n...\n',
    'a top-level sequence': '- a\n',
    'a top-level scalar': 'hello\n',
    'a syntax error': 'kind: X\na: [1, 2\n',
    'a bad indentation': 'kind: X\na: 1\n  b: 2\n',
    'a nested mapping on one line': 'kind: X\na: b: c\n',
    'a trailing comma': 'kind: X\na: [1, 2, ]\n',
    'a colon in a flow scalar': 'kind: X\na: [http://x]\n',
    'a BOM': '\ufeffkind: X\n',
    'a NBSP': 'kind: X\na: b\u00a0\n',
    'deep nesting': `kind: X\na: ${'['.repeat(70)}${']'.repeat(70)}\n`,
  };
  for (const [name, text] of Object.entries(DECLINED)) {
    it(`declines ${name}`, () => {
      expect(fastYamlData(text, 'f.yaml')).toBeUndefined();
      // What it declines is still read, by the full parse.
      expect(parseYamlData(text, 'f.yaml')).toEqual(fullYamlData(text, 'f.yaml'));
    });
  }

  it('resolves plain scalars as the core schema does', () => {
    const doc = (s: string) => (fullYamlData(`v: ${s}\n`, 'f.yaml').documents[0]!.data as { v: unknown }).v;
    for (const s of ['0', '-0', '+0', '12', '0012', '1e3', '1E-3', '.5', '5.', '-.5e+2', '0o7', '0o8', '0x0', '0xfF', '0xG', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', 'nan', 'Null', 'NULL', 'nULL', '~', 'True', 'tRUE', 'false', 'yes', 'on', '1_000', '1,000', '12:30', '2025-01-01', '9007199254740993', '1e400', 'e3', '+', '.', '..5', '-x']) {
      expect(coreScalar(s), s).toEqual(doc(s));
    }
  });

  it('agrees with the full parse on randomly mutated texts (declining is always allowed)', () => {
    const seeds = [...Object.values(ACCEPTED), readFileSync(join(ROOT, 'examples', 'mac.config.yaml'), 'utf8')];
    const pieces = [' ', '  ', '\n', '- ', ': ', ':', '#', ' #', '"', "'", '|', '|-', '[', ']', '{', '}', ', ', '&a ', '*a', '!', '0', '.', 'e', 'x', '---\n', '\t', '-', '~', 'null', 'true', '1.5', '\u00e9', 'kind', 'key: v\n'];
    let state = 0x2545f491;
    const random = (n: number) => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    let accepted = 0;
    for (let round = 0; round < 4000; round++) {
      let text = seeds[random(seeds.length)]!;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length + 1);
        const op = random(4);
        if (op === 0) text = text.slice(0, at) + pieces[random(pieces.length)] + text.slice(at);
        else if (op === 1) text = text.slice(0, at) + text.slice(at + 1 + random(3));
        else if (op === 2) {
          // Re-indent the line holding `at`.
          const start = text.lastIndexOf('\n', at - 1) + 1;
          text = text.slice(0, start) + ' '.repeat(random(5)) + text.slice(start).replace(/^ */, '');
        } else {
          // Duplicate a line.
          const start = text.lastIndexOf('\n', at - 1) + 1;
          const end = text.indexOf('\n', at);
          const line = text.slice(start, end === -1 ? text.length : end + 1);
          text = text.slice(0, start) + line + text.slice(start);
        }
      }
      if (agrees(text, `round ${round}`)) accepted++;
    }
    // The mutations leave many texts readable: the comparison is not vacuous.
    expect(accepted).toBeGreaterThan(500);
  });
});
