import type { Plan, PlannedChange } from '../plan/types.js';

/** A commit sha reads better short; branch and tag names stay whole. */
export function shortRef(ref: string): string {
  return /^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 7) : ref;
}

/**
 * A plan narrowed with --only-changed-since says so first, with what it left out:
 * `Plan narrowed to files changed since main: 3 other changes left out.`
 * Undefined for a plan of the whole project.
 */
export function narrowedLine(plan: Plan, ref: (r: string) => string = shortRef): string | undefined {
  const since = plan.changedSince;
  if (!since?.only) return undefined;
  const n = since.leftOut ?? 0;
  return `Plan narrowed to files changed since ${ref(since.ref)}: ${n} other change${n === 1 ? '' : 's'} left out.`;
}

/**
 * With --changed-since (not narrowed): the changes of definitions in the changed files first,
 * then the rest (drift or changes of files the range did not touch). Undefined without it.
 */
export function highlightGroups(plan: Plan, changes: PlannedChange[]): { inFiles: PlannedChange[]; elsewhere: PlannedChange[] } | undefined {
  if (!plan.changedSince || plan.changedSince.only) return undefined;
  return { inFiles: changes.filter((c) => c.inChangedFiles === true), elsewhere: changes.filter((c) => c.inChangedFiles !== true) };
}
