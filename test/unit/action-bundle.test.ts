import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMITTED = join(ROOT, 'dist-action');
const out = mkdtempSync(join(tmpdir(), 'mac-action-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('committed action bundle', () => {
  it('matches a fresh build of the sources byte for byte (run `node scripts/build-action.mjs` after changing src/)', () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build-action.mjs'), out], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    const fresh = readdirSync(out).sort();
    expect(readdirSync(COMMITTED).sort()).toEqual(fresh);
    for (const name of fresh) {
      const same = readFileSync(join(out, name)).equals(readFileSync(join(COMMITTED, name)));
      expect(same, `dist-action/${name} is stale`).toBe(true);
    }
  });

  it('is the file action.yml runs, on node24', () => {
    const yml = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    expect(yml).toMatch(/^\s+using: node24$/m);
    expect(yml).toMatch(/^\s+main: dist-action\/index\.mjs$/m);
    expect(readdirSync(COMMITTED)).toContain('index.mjs');
  });
});
