import type { Definition, LoadedProject } from '../config/types.js';
import { buildDesired } from '../plan/desired.js';
import { matchKind } from '../plan/match.js';
import type { Kind } from '../schema/kinds.js';
import type { LiveAccount } from './fetch.js';

/** What the project directory already defines, as import needs it. */
export interface ExistingProject {
  project: string;
  /** mac.config.yaml's `defaults.check` (merged under every check by the loader). */
  checkDefaults: Record<string, unknown>;
  definitions: Definition[];
}

/** The live resources a project already defines, and the logical ids they have there. */
export interface Defined {
  /** "Kind/remoteId" -> logical id. */
  byRemote: Map<string, string>;
}

/** Key of a live resource in `Defined.byRemote`. */
export function remoteKey(kind: Kind, remoteId: string | number): string {
  return `${kind}/${String(remoteId)}`;
}

/**
 * Matches live resources to the project's definitions with the plan's own matcher: checks by
 * ownership tag (or the API id a definition adopts), other kinds by natural key. Tombstones count
 * as defined: a resource marked for deletion must not come back by import.
 */
export function matchDefined(existing: ExistingProject, live: LiveAccount): Defined {
  const byRemote = new Map<string, string>();
  // Identity never depends on what a reference resolves to, so every reference stays a marker.
  const unresolved = (ref: string) => ({ $ref: ref });
  for (const [kind, items] of live.items) {
    const candidates = existing.definitions
      .filter((d) => d.kind === kind)
      .map((def) => ({ def, desired: buildDesired(def, existing.project, unresolved) }));
    if (candidates.length === 0) continue;
    const byRaw = new Map(items.map((i) => [i.raw, i]));
    for (const pair of matchKind(kind, existing.project, candidates, items.map((i) => i.raw)).pairs) {
      const item = pair.live && byRaw.get(pair.live);
      if (item) byRemote.set(remoteKey(kind, item.remoteId), pair.def.id);
    }
  }
  return { byRemote };
}

/** The existing project of a loaded directory. */
export function existingOf(loaded: LoadedProject): ExistingProject {
  return { project: loaded.config.project, checkDefaults: loaded.config.defaults.check ?? {}, definitions: loaded.definitions };
}

