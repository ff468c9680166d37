import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/schema/kinds.js';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { docExamples, type DocExample } from '../helpers/doc-examples.js';

const page = fileURLToPath(new URL('../../docs/definitions.md', import.meta.url));
const examples = docExamples(page);
const projects = new Map<string, DocExample[]>();
for (const e of examples) projects.set(e.project, [...(projects.get(e.project) ?? []), e]);

const work = mkdtempSync(join(tmpdir(), 'mac-doc-examples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('examples of docs/definitions.md', () => {
  it('has a YAML example of every kind', () => {
    const kinds = new Set(examples.flatMap((e) => [...e.text.matchAll(/^kind: (\w+)/gm)].map((m) => m[1])));
    expect(KINDS.filter((k) => !kinds.has(k))).toEqual([]);
    expect(projects.size).toBeGreaterThanOrEqual(KINDS.length);
  });

  it.each([...projects.keys()])('project %s validates with mac validate', async (name) => {
    const dir = join(work, name);
    const files = projects.get(name)!;
    for (const e of files) {
      mkdirSync(dirname(join(dir, e.path)), { recursive: true });
      writeFileSync(join(dir, e.path), e.text);
    }
    if (!files.some((e) => e.path === 'mac.config.yaml')) writeFileSync(join(dir, 'mac.config.yaml'), 'project: docs\n');
    const r = await runMacIn(['validate', dir], { timeoutMs: 90_000 });
    const where = files.map((e) => `docs/definitions.md:${e.line}`).join(', ');
    expect(r.stderr, `${where}\n${r.stderr}`).not.toMatch(/error/i);
    expect(r.code, `${where}\n${r.stderr}`).toBe(0);
  }, 120_000);

  it('a broken example fails validation (the check can fail)', async () => {
    const dir = join(work, 'broken-probe');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mac.config.yaml'), 'project: docs\n');
    writeFileSync(join(dir, 'x.yaml'), 'kind: TcpCheck\nid: x\nname: x\nrequest: { hostnmae: a, port: 1 }\n');
    const r = await runMacIn(['validate', dir], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
  }, 120_000);
});
