import type { AnnotationProperties } from '@actions/core';
import type { Diagnostic } from '../config/types.js';
import type { Plan } from '../plan/types.js';

/** One annotation on the workflow run (shown on the pull request's Files tab at file:line). */
export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  properties: AnnotationProperties;
}

/** Maps a project-relative file to its path in the repository (annotations and links need the latter). */
export type RepoPath = (file: string) => string;

// GitHub shows at most 10 error and 10 warning annotations per step; the rest still go to the log.
const PER_LEVEL = 50;

/** Error annotations for validation errors, warning annotations for the rest, at file:line:col. */
export function diagnosticAnnotations(diagnostics: Diagnostic[], repoPath: RepoPath): Annotation[] {
  return diagnostics.map((d) => ({
    level: d.severity === 'error' ? 'error' : 'warning',
    message: `${d.path ? `${d.path}: ` : ''}${d.message}${d.hint ? `\nhint: ${d.hint}` : ''}`,
    properties: { title: `mac: ${d.severity === 'error' ? 'invalid definition' : 'definition warning'}`, file: repoPath(d.file), startLine: d.line, startColumn: d.col },
  }));
}

/**
 * A warning per planned deletion, at the tombstone that asks for it when there is one
 * (a pruned check has no file left to point at), and one per plan warning.
 */
export function planAnnotations(plan: Plan, repoPath: RepoPath): Annotation[] {
  const deletions: Annotation[] = plan.changes
    .filter((c) => c.action === 'delete')
    .map((c) => ({
      level: 'warning',
      message: `${c.kind}/${c.id}${c.name ? ` (${c.name})` : ''} will be deleted from the account`,
      properties: { title: 'mac: planned deletion', ...(c.file ? { file: repoPath(c.file), startLine: c.line } : {}) },
    }));
  const warnings: Annotation[] = plan.warnings.map((w) => ({ level: 'warning', message: w, properties: { title: 'mac: plan warning' } }));
  return [...deletions, ...warnings];
}

/** Keeps the first PER_LEVEL annotations of each level and says how many were dropped. */
export function capAnnotations(all: Annotation[]): { kept: Annotation[]; dropped: number } {
  const seen = { error: 0, warning: 0, notice: 0 };
  const kept = all.filter((a) => ++seen[a.level] <= PER_LEVEL);
  return { kept, dropped: all.length - kept.length };
}
