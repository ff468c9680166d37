import { describe, expect, it } from 'vitest';
import { globMatcher, globToRegExp } from '../../src/config/glob.js';
import { closest, editDistance } from '../../src/config/suggest.js';
import { forbiddenEnvName, interpolateEnv, judgeUnsetEnv } from '../../src/config/interpolate.js';
import { parseYaml } from '../../src/config/yaml-source.js';
import { formatDiagnostic, summarizeDiagnostics } from '../../src/config/format.js';
import { frequencyOffsetIssue, maxFrequencyOffset, checkRuleIssues, apiFields } from '../../src/schema/fields.js';
import type { Diagnostic } from '../../src/config/types.js';

describe('glob', () => {
  it.each([
    ['**/*.yaml', 'a.yaml', true],
    ['**/*.yaml', 'a/b/c.yaml', true],
    ['**/*.yaml', 'a.yml', false],
    ['*.yaml', 'a/b.yaml', false],
    ['checks/**/*.yaml', 'checks/x.yaml', true],
    ['checks/**/*.yaml', 'other/checks/x.yaml', false],
    ['**/*.mac.ts', 'x/y.mac.ts', true],
    ['**/*.mac.ts', 'x/y.ts', false],
    ['notes/{a,b}.yml', 'notes/b.yml', true],
    ['notes/{a,b}.yml', 'notes/c.yml', false],
    ['file?.yaml', 'file1.yaml', true],
    ['file?.yaml', 'file/.yaml', false],
    ['[ab]*.yaml', 'b1.yaml', true],
    ['[!ab]*.yaml', 'b1.yaml', false],
    ['./x.yaml', 'x.yaml', true],
    ['a.b.yaml', 'aXb.yaml', false],
  ])('%s matches %s: %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });
  it('matches any of several globs', () => {
    const m = globMatcher(['*.yml', '**/*.yaml']);
    expect([m('a.yml'), m('d/a.yaml'), m('d/a.yml')]).toEqual([true, true, false]);
  });
});

describe('did you mean', () => {
  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('nmae', 'name')).toBe(1);
    expect(editDistance('hostname', 'hostname')).toBe(0);
  });
  it('suggests close names and nothing for far ones', () => {
    expect(closest('hostnmae', ['hostname', 'port'])).toBe('hostname');
    expect(closest('frequncy', ['frequency', 'frequencyOffset'])).toBe('frequency');
    expect(closest('id', ['kind', 'name'])).toBeUndefined();
    expect(closest('zzzzzz', ['hostname'])).toBeUndefined();
  });
});

function yamlDoc(text: string) {
  const parsed = parseYaml(text, 'f.yaml', '/tmp');
  expect(parsed.diagnostics).toEqual([]);
  return parsed.documents[0];
}

describe('YAML documents and positions', () => {
  const text = 'kind: TcpCheck\nid: a\nrequest:\n  hostname: h\n  assertions:\n    - { source: RESPONSE_DATA, target: x }\n---\n# only a comment\n---\nkind: Snippet\n';
  it('splits multi-document files and skips empty documents', () => {
    const parsed = parseYaml(text, 'f.yaml', '/tmp');
    expect(parsed.documents.map((d) => (d.data as { kind: string }).kind)).toEqual(['TcpCheck', 'Snippet']);
    expect(parsed.documents[1].position()).toEqual({ file: 'f.yaml', line: 10, col: 1 });
  });
  it('locates values, keys, list items, and falls back to the nearest ancestor', () => {
    const doc = yamlDoc(text);
    expect(doc.locate(['request', 'hostname'])).toEqual({ file: 'f.yaml', line: 4, col: 13 });
    expect(doc.locate(['request', 'hostname'], true)).toEqual({ file: 'f.yaml', line: 4, col: 3 });
    expect(doc.locate(['request', 'assertions', 0, 'target'])).toEqual({ file: 'f.yaml', line: 6, col: 40 });
    expect(doc.locate(['request', 'port'])).toEqual({ file: 'f.yaml', line: 4, col: 3 });
  });
  it('reports syntax errors and duplicate keys as diagnostics with positions', () => {
    const dup = parseYaml('kind: A\nid: x\nid: y\n', 'd.yaml', '/tmp');
    expect(dup.documents).toEqual([]);
    expect(dup.diagnostics).toMatchObject([{ file: 'd.yaml', line: 3, col: 1, severity: 'error' }]);
    expect(dup.diagnostics[0].message).toMatch(/duplicate key/);
    const bad = parseYaml('a: [1, 2\nb: 3\n', 'b.yaml', '/tmp');
    expect(bad.diagnostics.length).toBeGreaterThan(0);
  });
});

describe('env interpolation', () => {
  const declared = (...names: string[]) => ({ declared: new Set(names) });
  it('replaces declared references in any string, records whole-value ones and unset names', () => {
    const doc = yamlDoc('a: ${{ env.A }}\nb: "x-${{env.B}}-y"\nc:\n  - ${{ env.MISSING }}\nd: 5\n');
    const diagnostics: Diagnostic[] = [];
    const out = interpolateEnv(doc, { A: 'one', B: 'two' }, declared('A', 'B', 'MISSING'), diagnostics);
    expect(doc.data).toEqual({ a: 'one', b: 'x-two-y', c: ['${{ env.MISSING }}'], d: 5 });
    expect(out.envSources).toEqual({ '/a': 'A', '/c/0': 'MISSING' });
    expect(out.envPaths).toEqual(['/a', '/b', '/c/0']);
    expect(out.unset).toMatchObject([{ pointer: '/c/0', names: ['MISSING'], at: { line: 4, col: 5 } }]);
    expect(diagnostics).toEqual([]);
    judgeUnsetEnv(out.unset, undefined, diagnostics);
    expect(diagnostics).toMatchObject([{ line: 4, col: 5, path: 'c.0', severity: 'error', message: 'environment variable MISSING is not set' }]);
  });
  it('never puts the value of a variable in a diagnostic', () => {
    const doc = yamlDoc('a: ${{ env.TOKEN }}\nb: ${{ vars.X }}\n');
    const diagnostics: Diagnostic[] = [];
    interpolateEnv(doc, { TOKEN: 'super-secret' }, declared('TOKEN'), diagnostics);
    expect(JSON.stringify(diagnostics)).not.toContain('super-secret');
    expect(diagnostics).toHaveLength(1);
  });
  it('reads only names declared under env:, and never mac settings or CI credentials', () => {
    const doc = yamlDoc('a: ${{ env.OTHER }}\nb: ${{ env.MAC_API_KEY }}\nc: ${{ env.GITHUB_TOKEN }}\nd: ${{ env.INPUT_X }}\ne: ${{ env.runner_temp }}\n');
    const diagnostics: Diagnostic[] = [];
    const env = { OTHER: 'o', MAC_API_KEY: 'k-123', GITHUB_TOKEN: 'ghs_1', INPUT_X: 'i', runner_temp: 'r' };
    interpolateEnv(doc, env, declared('MAC_API_KEY', 'GITHUB_TOKEN', 'INPUT_X', 'runner_temp'), diagnostics);
    expect(doc.data).toEqual({ a: '${{ env.OTHER }}', b: '${{ env.MAC_API_KEY }}', c: '${{ env.GITHUB_TOKEN }}', d: '${{ env.INPUT_X }}', e: '${{ env.runner_temp }}' });
    expect(diagnostics.map((d) => [d.line, d.severity])).toEqual([[1, 'error'], [2, 'error'], [3, 'error'], [4, 'error'], [5, 'error']]);
    expect(diagnostics[0]).toMatchObject({ message: 'environment variable OTHER is not declared under env: in mac.config.yaml', hint: 'add OTHER under env: in mac.config.yaml' });
    expect(diagnostics[1].message).toMatch(/MAC_API_KEY is never readable/);
    expect(JSON.stringify(diagnostics)).not.toMatch(/k-123|ghs_1/);
  });
  it('reads only own names of the environment, never what its prototype inherits', () => {
    const doc = yamlDoc('a: ${{ env.constructor }}\nb: x-${{ env.toString }}\n');
    const diagnostics: Diagnostic[] = [];
    const out = interpolateEnv(doc, {}, declared('constructor', 'toString'), diagnostics);
    expect(doc.data).toEqual({ a: '${{ env.constructor }}', b: 'x-${{ env.toString }}' });
    expect(out.unset.map((u) => u.names)).toEqual([['constructor'], ['toString']]);
  });
  it('names forbidden names case-insensitively', () => {
    expect(['MAC_X', 'mac_api_url', 'GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'INPUT_API-KEY', 'RUNNER_TEMP'].map((n) => forbiddenEnvName(n) !== undefined)).toEqual([true, true, true, true, true, true]);
    expect(['SHOP_STRIPE_KEY', 'GITHUB_SHA', 'MACHINE', 'INPUTS'].map((n) => forbiddenEnvName(n))).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('frequencyOffset rule (spec 2.1.6)', () => {
  it('needs 10, 20 or 30 with frequency 0', () => {
    expect(frequencyOffsetIssue(0, undefined)?.path).toBe('frequency');
    expect([10, 20, 30].map((o) => frequencyOffsetIssue(0, o))).toEqual([undefined, undefined, undefined]);
    expect(frequencyOffsetIssue(0, 15)?.path).toBe('frequencyOffset');
  });
  it('bounds by floor(f*10) up to 60 and ceil(f/60) above', () => {
    expect([1, 2, 5, 60, 120, 180, 1440].map(maxFrequencyOffset)).toEqual([10, 20, 50, 600, 2, 3, 24]);
    expect(frequencyOffsetIssue(60, 600)).toBeUndefined();
    expect(frequencyOffsetIssue(60, 601)?.message).toMatch(/between 1 and 600/);
    expect(frequencyOffsetIssue(720, 12)).toBeUndefined();
    expect(frequencyOffsetIssue(720, 13)).toBeDefined();
    expect(frequencyOffsetIssue(undefined, 100)).toBeUndefined();
    expect(frequencyOffsetIssue(undefined, 101)).toBeDefined();
  });
  it('is applied per check type; multi-step bodies have no frequencyOffset', () => {
    expect(checkRuleIssues('DNS', { frequency: 0, frequencyOffset: 20 })).toEqual([]);
    expect(checkRuleIssues('TCP', { frequency: 0 })).toHaveLength(1);
    expect(checkRuleIssues('MULTI_STEP', { frequency: 1 })).toEqual([]);
  });
});

describe('API fields for the service', () => {
  it('strip mode drops unknown keys, strict mode rejects them', () => {
    const body = { hostname: 'h', port: 1, extra: true };
    expect(apiFields('strip').tcpRequest.parse(body)).toEqual({ hostname: 'h', port: 1 });
    expect(apiFields('strict').tcpRequest.safeParse(body).success).toBe(false);
  });
  it('applies no server defaults (PUT merges need omitted fields to stay omitted)', () => {
    expect(apiFields('strip').dnsRequest.parse({ query: 'q', recordType: 'A' })).toEqual({ query: 'q', recordType: 'A' });
  });
});

describe('diagnostic text', () => {
  it('prints file:line:col: error: path: message and a hint line', () => {
    const d: Diagnostic = { file: 'a.yaml', line: 3, col: 5, severity: 'error', path: 'request.port', message: 'must be at most 65535', hint: 'h' };
    expect(formatDiagnostic(d)).toBe('a.yaml:3:5: error: request.port: must be at most 65535\n  hint: h');
    expect(formatDiagnostic({ ...d, path: '', hint: undefined })).toBe('a.yaml:3:5: error: must be at most 65535');
    expect(summarizeDiagnostics([d, { ...d, file: 'b.yaml' }])).toBe('2 errors in 2 files');
  });
});
