import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { PlannedChange } from '../plan/types.js';
import type { RunContext } from './event.js';

/** The project dir relative to the repository root, with `/` separators ('.' for the root). */
export function projectDirInRepo(workspace: string, dir: string): string {
  const rel = relative(workspace, resolve(workspace, dir)).split(sep).join('/');
  return rel === '' ? '.' : rel;
}

/** Maps a project-relative definition file to its path from the repository root. */
export function repoPathOf(projectDir: string): (file: string) => string {
  return (file) => {
    if (isAbsolute(file)) return file;
    return projectDir === '.' ? file : `${projectDir}/${file}`;
  };
}

/** `file:line` of the definition, from the repository root; undefined for a pruned resource. */
export function placeOf(change: PlannedChange, repoPath: (file: string) => string): string | undefined {
  if (!change.file) return undefined;
  return change.line ? `${repoPath(change.file)}:${change.line}` : repoPath(change.file);
}

/** https://github.com/<owner>/<repo>/blob/<sha>/<file>#L<line>: a repository file at the head commit. */
export function fileUrl(ctx: RunContext, repoFile: string, line?: number): string | undefined {
  if (!ctx.headSha) return undefined;
  const path = repoFile.split('/').map(encodeURIComponent).join('/');
  return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/blob/${ctx.headSha}/${path}${line ? `#L${line}` : ''}`;
}

/** The link to the file and line that define a change, at the head commit. */
export function blobUrl(ctx: RunContext, change: PlannedChange, repoPath: (file: string) => string): string | undefined {
  return change.file ? fileUrl(ctx, repoPath(change.file), change.line) : undefined;
}

/** The commit's checks page: a stable link (the same for every run of a commit) to its job summaries. */
export function checksUrl(ctx: RunContext): string {
  return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/commit/${ctx.headSha}/checks`;
}
