/** Git facts a plan records or is scoped by; never fails a plan when dir is not a repository. */
import { execFile } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

/** What one `git rev-parse` may print (a commit id, a branch name): more is not an answer. */
const REV_PARSE_MAX_BYTES = 64 * 1024;

/** Runs `git ARGS` in `dir`; resolves to what it printed, rejects when it fails or cannot start. */
function runGit(dir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: REV_PARSE_MAX_BYTES, windowsHide: true }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

/**
 * Commit and branch of the repository holding `dir`, or undefined outside a repository (or
 * without git). Every plan asks, so it runs `git rev-parse` itself: loading simple-git costs
 * more CPU than the three commands.
 */
export async function gitInfo(dir: string): Promise<{ commit?: string; branch?: string } | undefined> {
  try {
    if ((await runGit(dir, ['rev-parse', '--is-inside-work-tree'])).trim() !== 'true') return undefined;
    const commit = (await runGit(dir, ['rev-parse', 'HEAD'])).trim();
    const branch = (await runGit(dir, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
    return { commit, ...(branch && branch !== 'HEAD' ? { branch } : {}) };
  } catch {
    // Not a repository, no git, or a repository without commits (no HEAD yet): nothing to record.
    return undefined;
  }
}

/**
 * Files under `dir` that differ from `ref`: committed since, staged, unstaged, and untracked
 * (not ignored), as paths relative to `dir` with `/` separators.
 */
export async function changedFiles(dir: string, ref: string): Promise<string[]> {
  // Loaded only here: a plan without --changed-since does not need it.
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
