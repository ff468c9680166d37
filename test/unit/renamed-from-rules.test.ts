import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/load.js';

async function load(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'mac-renamed-'));
  for (const [name, text] of Object.entries({ 'mac.config.yaml': 'project: shop\n', ...files })) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text, 'utf8');
  }
  return loadProject(dir, { env: {} });
}
const show = (p: Awaited<ReturnType<typeof load>>) => p.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.severity}: ${d.path}: ${d.message}`);
const tcp = (id: string, extra = '') => `kind: TcpCheck\nid: ${id}\nname: ${id}\nrequest: { hostname: h.example, port: 1 }\n${extra}`;

describe('renamedFrom', () => {
  it('accepts one old id or a list, kept on the definition', async () => {
    const p = await load({ 'a.yaml': tcp('a', 'renamedFrom: old-a\n'), 'b.yaml': tcp('b', 'renamedFrom: [old-b, older-b]\n') });
    expect(show(p)).toEqual([]);
    expect(p.definitions.map((d) => d.renamedFrom)).toEqual([['old-a'], ['old-b', 'older-b']]);
    expect(p.definitions[0]!.spec).not.toHaveProperty('renamedFrom');
  });

  it('is an error at file:line:col when the old id is still defined (by any check kind), its own id, or claimed twice', async () => {
    const p = await load({
      'checks.yaml': [
        tcp('a', 'renamedFrom: [b]\n'),
        tcp('b'),
        tcp('c', 'renamedFrom: c\n'),
        tcp('d', 'renamedFrom: [gone]\n'),
        tcp('e', 'renamedFrom: [gone]\n'),
        'kind: HeartbeatCheck\nid: hb\nname: hb\nheartbeat: { period: 1, periodUnit: hours, grace: 1, graceUnit: minutes }\n',
        tcp('f', 'renamedFrom: hb\n'),
      ].join('---\n'),
    });
    expect(show(p)).toEqual([
      'checks.yaml:5:15: error: renamedFrom.0: "b" is still defined as a check; a check can be renamed only from an id that is no longer defined',
      'checks.yaml:16:14: error: renamedFrom: renames the check from its own id "c"',
      'checks.yaml:28:15: error: renamedFrom.0: "gone" is already renamed to TcpCheck/d (checks.yaml:18)',
      'checks.yaml:39:14: error: renamedFrom: "hb" is still defined as a check; a check can be renamed only from an id that is no longer defined',
    ]);
  });

  it('is an error on a variable (keys never change) and a warning elsewhere (matched by natural key)', async () => {
    const p = await load({
      'v.yaml': 'kind: EnvironmentVariable\nkey: NEW_KEY\nvalue: x\nrenamedFrom: OLD_KEY\n',
      's.yaml': 'kind: Snippet\nid: s\nname: n\nscript: "1"\nrenamedFrom: old-s\n',
    });
    expect(show(p)).toEqual([
      "s.yaml:5:1: warning: renamedFrom: has no effect: live Snippet resources are matched by name, not by logical id, so a new id alone keeps the live object",
      "v.yaml:4:1: error: renamedFrom: a variable's key cannot change (the API refuses it)",
    ]);
  });
});
