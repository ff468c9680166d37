import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../../src/plan/types.js';
import { describe, expect, it } from 'vitest';
import { macIn, serveInForFile } from '../helpers/mac-inprocess.js';
import { listAllOf, writeProject } from '../e2e/apply-fixtures.js';
import { applied, everyKind, planJsonOk as planJson, projectFiles, type Live } from './owned-fixtures.js';

// Every kind is owned: removed from the project, it is orphaned in every plan format and
// --prune deletes it. (A new display name is an update: every-kind-renamed; destroy: the same file
// and test/e2e/destroy-tty; saved plans verified again at apply: saved-plans.)

const file = serveInForFile(['--no-runs', '--rate-limit', '0/60']);

describe('every kind is owned', () => {
  it('each definition removed in turn is orphaned in every format, pruned by --prune under the guards, then no change', async () => {
    const p = 'evk';
    const dir = writeProject(projectFiles(p));
    await applied(file.served, dir);
    expect((await planJson(file.served, dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 17, orphaned: 0 });
    const defs = everyKind(p);
    for (const [i, d] of defs.entries()) {
      rmSync(join(dir, d.file));
      const last = i === defs.length - 1;
      // Markdown on stdout and the JSON document in --out, in one run; the exit code is unchanged (0).
      const out = join(dir, '..', `${p}-${i}.plan.json`);
      const md = await macIn(file.served, ['plan', dir, '--format', 'markdown', '--out', out, '--detailed-exitcode']);
      expect(md.code, `${d.ref}: ${md.stderr}`).toBe(0);
      expect(md.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
      expect(md.stdout).toContain(d.ref);
      const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
      // Nothing else differs: the previous removal was pruned and left no change behind.
      expect(saved.summary, d.ref).toEqual({ create: 0, update: 0, delete: 0, noop: defs.length - 1 - i, orphaned: 1 });
      expect(saved.orphaned?.map((o) => `${o.kind}/${o.id}`)).toEqual([d.ref]);
      const text = await macIn(file.served, ['plan', dir, '--detailed-exitcode']);
      expect(text.code, `${d.ref}: ${text.stderr}`).toBe(0);
      expect(text.stdout).toContain(`? ${d.ref}`);
      expect(text.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
      if (i === 0) {
        const guard = await macIn(file.served, ['apply', dir, '--yes', '--prune', '--max-deletes', '0']);
        expect(guard.code).toBe(1);
        expect(guard.stderr).toContain(`the plan deletes 1 resources, more than --max-deletes 0: ${d.ref}`);
      }
      const pruned = await macIn(file.served, ['apply', dir, '--yes', '--prune']);
      if (last) {
        // Pruning never empties a project: the last one stays until tombstoned or destroyed.
        expect(pruned.code).toBe(1);
        expect(pruned.stderr).toContain('keeps none');
        break;
      }
      expect(pruned.code, `${d.ref}: ${pruned.stderr}${pruned.stdout}`).toBe(0);
      expect(pruned.stderr).toContain(`- delete ${d.ref}`);
      expect(pruned.stdout).toMatch(new RegExp(`applied {2}delete {2}${d.ref}`));
    }
    // After the last prune, a second plan shows no change (the last orphan stays: never emptied).
    const second = await planJson(file.served, dir);
    expect(second.r.code).toBe(0);
    expect(second.plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 0, orphaned: 1 });
    const destroyed = await macIn(file.served, ['destroy', dir, '--yes']);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect((await listAllOf<Live>(file.served, '/v1/variables')).map((v) => v.key)).not.toContain('MAC_OWNED_EVK');
  }, 1_800_000);

});
