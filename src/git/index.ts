/**
 * Git facts a plan records or is scoped by; never fails a plan when dir is not a repository.
 * gitInfo, which every plan and destroy asks, is one `git` process; changedFiles (--changed-since)
 * loads simple-git when it is asked.
 */
import { execFile } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

/** Commit and branch of the repository holding `dir`, or undefined outside a repository. */
export async function gitInfo(dir: string): Promise<{ commit?: string; branch?: string } | undefined> {
  // Three answers of one process: inside a work tree, the commit of HEAD, its branch ("HEAD" when
  // detached). Outside a repository, and in one without commits yet (no HEAD), git fails: nothing
  // to record.
  const out = await new Promise<string | undefined>((done) => {
    execFile('git', ['rev-parse', '--is-inside-work-tree', 'HEAD', '--abbrev-ref', 'HEAD'], { cwd: dir, timeout: 30_000, maxBuffer: 64 * 1024, encoding: 'utf8' }, (err, stdout) => done(err ? undefined : stdout));
  });
  const [inside, commit, branch] = (out ?? '').split('\n').map((l) => l.trim());
  if (inside !== 'true' || !commit) return undefined;
  return { commit, ...(branch && branch !== 'HEAD' ? { branch } : {}) };
}

/**
 * Files under `dir` that differ from `ref`: committed since, staged, unstaged, and untracked
 * (not ignored), as paths relative to `dir` with `/` separators.
 */
export async function changedFiles(dir: string, ref: string): Promise<string[]> {
  const { simpleGit } = await import('simple-git');
  const git = simpleGit({ baseDir: dir });
  if (!(await git.checkIsRepo().catch(() => false))) {
    throw new UsageError(`--changed-since needs a git repository, and ${dir} is not in one`);
  }
  // `rev-parse --verify --quiet` prints nothing (and simple-git may not throw) for an unknown revision.
  const commit = await git.revparse(['--verify', '--quiet', `${ref}^{commit}`]).catch((cause: unknown) => ({ cause }));
  if (typeof commit !== 'string' || commit.trim() === '') {
    throw new UsageError(`--changed-since: unknown git revision "${ref}"`, {
      cause: typeof commit === 'string' ? undefined : commit.cause,
      hint: 'give a branch, tag or commit, e.g. origin/main (fetch it first in CI)',
    });
  }
  const root = (await git.revparse(['--show-toplevel'])).trim();
  const diff = await git.raw(['diff', '--name-only', '--no-renames', ref, '--', '.']);
  const untracked = await git.raw(['ls-files', '--others', '--exclude-standard', '--full-name', '--', '.']);
  const absDir = resolve(dir);
  const files = new Set<string>();
  for (const line of [...diff.split('\n'), ...untracked.split('\n')]) {
    const name = line.trim();
    if (name === '') continue;
    const rel = relative(absDir, resolve(root, name));
    if (!rel.startsWith('..')) files.add(rel.split(sep).join('/'));
  }
  return [...files].sort();
}
