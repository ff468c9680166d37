import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { describe, expect, it } from 'vitest';
import { changedFiles, gitInfo } from '../../../src/git/index.js';
import { UsageError } from '../../../src/errors.js';

async function repo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-git-'));
  const git = simpleGit({ baseDir: dir });
  await git.init();
  await git.addConfig('user.email', 'ci@example.com').addConfig('user.name', 'CI').addConfig('commit.gpgsign', 'false');
  await mkdir(join(dir, 'monitoring/checks'), { recursive: true });
  await writeFile(join(dir, 'monitoring/mac.config.yaml'), 'project: p\n');
  await writeFile(join(dir, 'monitoring/checks/a.yaml'), 'a\n');
  await writeFile(join(dir, 'monitoring/checks/b.yaml'), 'b\n');
  await writeFile(join(dir, 'README.md'), 'x\n');
  await git.add('.').commit('base');
  await git.addTag('base');
  return dir;
}

describe('src/git', () => {
  it('lists committed, modified and untracked files since a revision, relative to the project dir', async () => {
    const dir = await repo();
    const git = simpleGit({ baseDir: dir });
    await writeFile(join(dir, 'monitoring/checks/a.yaml'), 'a2\n');
    await git.add('.').commit('change a');
    await writeFile(join(dir, 'monitoring/checks/b.yaml'), 'b2\n');
    await writeFile(join(dir, 'monitoring/checks/new.yaml'), 'n\n');
    await writeFile(join(dir, 'README.md'), 'y\n');
    expect(await changedFiles(join(dir, 'monitoring'), 'base')).toEqual(['checks/a.yaml', 'checks/b.yaml', 'checks/new.yaml']);
    const info = await gitInfo(join(dir, 'monitoring'));
    expect(info?.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(info?.branch).toBeTruthy();
  });

  it('refuses an unknown revision and a directory outside git', async () => {
    const dir = await repo();
    await expect(changedFiles(dir, 'no-such-ref')).rejects.toBeInstanceOf(UsageError);
    const plain = await mkdtemp(join(tmpdir(), 'mac-nogit-'));
    expect(await gitInfo(plain)).toBeUndefined();
    await expect(changedFiles(plain, 'HEAD')).rejects.toThrow(/not in one/);
  });

  it('records the commit of HEAD and its branch; a detached HEAD has no branch, a repository without commits nothing', async () => {
    const dir = await repo();
    const git = simpleGit({ baseDir: dir });
    await git.checkoutLocalBranch('feature/x');
    const head = (await git.revparse(['HEAD'])).trim();
    expect(await gitInfo(join(dir, 'monitoring'))).toEqual({ commit: head, branch: 'feature/x' });
    await git.checkout(['--detach', 'HEAD']);
    expect(await gitInfo(dir)).toEqual({ commit: head });
    const empty = await mkdtemp(join(tmpdir(), 'mac-git-empty-'));
    await simpleGit({ baseDir: empty }).init();
    expect(await gitInfo(empty)).toBeUndefined();
    // Inside the .git folder is not a work tree.
    expect(await gitInfo(join(dir, '.git'))).toBeUndefined();
  });
});
