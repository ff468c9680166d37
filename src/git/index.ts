/** Git facts a plan records or is scoped by (simple-git); never fails a plan when dir is not a repository. */
import { relative, resolve, sep } from 'node:path';
import { simpleGit } from 'simple-git';
import { UsageError } from '../errors.js';

/** Commit and branch of the repository holding `dir`, or undefined outside a repository. */
export async function gitInfo(dir: string): Promise<{ commit?: string; branch?: string } | undefined> {
  const git = simpleGit({ baseDir: dir });
  try {
    if (!(await git.checkIsRepo())) return undefined;
    const commit = (await git.revparse(['HEAD'])).trim();
    const branch = (await git.revparse(['--abbrev-ref', 'HEAD'])).trim();
    return { commit, ...(branch && branch !== 'HEAD' ? { branch } : {}) };
  } catch {
    // A repository without commits has no HEAD yet: nothing to record.
    return undefined;
  }
}

/**
 * Files under `dir` that differ from `ref`: committed since, staged, unstaged, and untracked
 * (not ignored), as paths relative to `dir` with `/` separators.
 */
export async function changedFiles(dir: string, ref: string): Promise<string[]> {
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
