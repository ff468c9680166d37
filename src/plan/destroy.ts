import { isOwnedKind, KINDS } from '../schema/kinds.js';
import { buildDesired, privateLocationSlugs } from './desired.js';
import { matchKind } from './match.js';
import { liveDeleteChange, matchContext, planHeader, type PlanInput } from './assemble.js';
import type { Plan, PlannedChange } from './types.js';

/** Everything a destroy plan is computed from; assembling it is pure (no I/O). */
export type DestroyInput = Pick<PlanInput, 'project' | 'live' | 'apiUrl' | 'git' | 'now' | 'ownership'>;

/**
 * The plan of `mac destroy`: a delete of everything the project manages. Checks and groups:
 * every live one carrying the tag `mac:<project>/<id>`, defined or not (untagged checks, even
 * ones a definition adopts, are not the project's yet). Other kinds: every live object the
 * project's ownership record lists, defined or not, and the live object each definition
 * (present or tombstone) matches, by the same identity rules as a plan. Deletes run in reverse
 * dependency order (dashboards, checks, then what checks reference) through the apply waves.
 */
export function assembleDestroyPlan(input: DestroyInput): Plan {
  const project = input.project.config.project;
  const context = matchContext(input);
  const warnings: string[] = [...(input.ownership?.warnings ?? [])];
  const changes: PlannedChange[] = [];
  const unresolved = () => ({ $ref: 'unresolved' });

  for (const kind of KINDS) {
    const live = input.live.get(kind) ?? [];
    if (isOwnedKind(kind)) {
      // No candidates: every owned check (the oldest of each tag) comes back unclaimed.
      const matched = matchKind(kind, project, [], live);
      warnings.push(...matched.warnings);
      const defs = new Map(input.project.definitions.filter((d) => d.kind === kind).map((d) => [d.id, d]));
      for (const { id, live: l } of matched.unclaimed) {
        const def = defs.get(id);
        changes.push(liveDeleteChange(kind, id, l, 'mac destroy', def ? { file: def.file, line: def.line } : {}));
      }
      continue;
    }
    const defs = input.project.definitions.filter((d) => d.kind === kind);
    if (defs.length === 0 && !input.ownership?.own.get(kind)?.size) continue;
    const candidates = defs.map((def) => ({ def, desired: buildDesired(def, project, unresolved, privateLocationSlugs(input.project.definitions)) }));
    const matched = matchKind(kind, project, candidates, live, context);
    warnings.push(...matched.warnings);
    for (const pair of matched.pairs) {
      if (pair.live === undefined) continue;
      changes.push(liveDeleteChange(kind, pair.def.id, pair.live, 'mac destroy', { file: pair.def.file, line: pair.def.line }));
    }
    // Recorded as the project's, no longer defined.
    for (const { id, live: l } of matched.unclaimed) changes.push(liveDeleteChange(kind, id, l, 'mac destroy (recorded as this project\'s, no longer defined)'));
  }

  return {
    ...planHeader(input, project),
    summary: { create: 0, update: 0, delete: changes.length, noop: 0, orphaned: 0 },
    changes,
    dir: input.project.dir,
    warnings,
  };
}
