import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ImportedDoc } from '../../src/import/convert.js';
import { layout, relativeRef } from '../../src/import/layout.js';

const tcp = (id: string): ImportedDoc => ({ kind: 'TcpCheck', id, doc: { kind: 'TcpCheck', id, name: id }, env: [] });
const ms = (id: string, script: string): ImportedDoc => ({
  kind: 'MultiStepCheck',
  id,
  doc: { kind: 'MultiStepCheck', id, name: id, script, frequency: 5 },
  script: { field: 'script', content: script },
  env: [],
});

describe('layout', () => {
  it('groups documents per kind in multi-document files with a schema line', () => {
    const files = layout([tcp('a'), tcp('b')], { exists: () => false, schemaRef: (k) => `https://schemas.example/${k}.json` });
    expect(files).toHaveLength(1);
    expect(files[0].path).toBe('checks/tcp.yaml');
    expect(files[0].content.split('\n')[0]).toBe('# yaml-language-server: $schema=https://schemas.example/TcpCheck.json');
    const docs = parseAllDocuments(files[0].content).map((d) => d.toJS());
    expect(docs).toEqual([
      { kind: 'TcpCheck', id: 'a', name: 'a' },
      { kind: 'TcpCheck', id: 'b', name: 'b' },
    ]);
  });
  it('writes scripts verbatim to .js files referenced by scriptFile in place of script', () => {
    const files = layout([ms('login', 'await login()')], { exists: () => false });
    const script = files.find((f) => f.path === 'checks/multistep/login.js');
    expect(script?.content).toBe('await login()');
    const yaml = files.find((f) => f.path === 'checks/multistep.yaml')!;
    expect(parseAllDocuments(yaml.content)[0].toJS()).toEqual({
      kind: 'MultiStepCheck',
      id: 'login',
      name: 'login',
      scriptFile: './multistep/login.js',
      frequency: 5,
    });
  });
  it('never reuses a path that exists: numbered siblings instead', () => {
    const onDisk = new Set(['checks/tcp.yaml', 'checks/tcp-2.yaml', 'checks/multistep/login.js']);
    const files = layout([tcp('a'), ms('login', 'x')], { exists: (p) => onDisk.has(p) });
    expect(files.map((f) => f.path).sort()).toEqual(['checks/multistep.yaml', 'checks/multistep/login-2.js', 'checks/tcp-3.yaml']);
    const yaml = files.find((f) => f.path === 'checks/multistep.yaml')!;
    expect(yaml.content).toContain('scriptFile: ./multistep/login-2.js');
  });
  it('keeps multi-line strings readable as block scalars', () => {
    const doc: ImportedDoc = { kind: 'Snippet', id: 's', doc: { kind: 'Snippet', id: 's', name: 's', note: 'a\nb\n' }, env: [] };
    expect(layout([doc], { exists: () => false })[0].content).toContain('note: |\n  a\n  b\n');
  });
});

describe('relativeRef', () => {
  it('names files relative to the referring file', () => {
    expect(relativeRef('snippets.yaml', 'snippets/a.js')).toBe('./snippets/a.js');
    expect(relativeRef('checks/dns.yaml', 'scripts/a.js')).toBe('../scripts/a.js');
  });
});
