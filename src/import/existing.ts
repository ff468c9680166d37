import type { Definition, LoadedProject } from '../config/types.js';
import { KIND_SPECS } from '../plan/kinds/index.js';
import { normalizeShape } from '../plan/kinds/shape.js';
import { ownedId } from '../plan/ownership.js';
import { isCheckKind, type Kind } from '../schema/kinds.js';
import type { LiveAccount, LiveItem } from './fetch.js';

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
 * Matches live resources to the project's definitions with the plan's identity rules: checks by
 * their ownership tag (or the live id a definition adopts), other kinds by their natural key.
 * Tombstones count as defined: a resource marked for deletion must not come back by import.
 */
export function matchDefined(existing: ExistingProject, live: LiveAccount): Defined {
  const byRemote = new Map<string, string>();
  const checkIds = new Set(existing.definitions.filter((d) => isCheckKind(d.kind)).map((d) => d.id));
  const adopted = new Map(existing.definitions.filter((d) => d.adopt !== undefined).map((d) => [d.adopt!, d.id]));
  const natural = new Map<string, string>();
  for (const d of existing.definitions) {
    if (isCheckKind(d.kind)) continue;
    const spec = KIND_SPECS[d.kind];
    const key = spec.naturalKey?.(normalizeShape(d.spec, spec.shapeOf(d.spec)).value);
    if (key !== undefined) natural.set(`${d.kind}/${key}`, d.id);
  }
  for (const [kind, items] of live.items) {
    for (const item of items) {
      const id = isCheckKind(kind) ? checkId(item, existing.project, checkIds, adopted) : naturalId(item, natural);
      if (id !== undefined) byRemote.set(remoteKey(kind, item.remoteId), id);
    }
  }
  return { byRemote };
}

function checkId(item: LiveItem, project: string, ids: Set<string>, adopted: Map<string, string>): string | undefined {
  const owned = ownedId(project, item.body.tags);
  if (owned !== undefined && ids.has(owned)) return owned;
  return adopted.get(String(item.remoteId));
}

function naturalId(item: LiveItem, natural: Map<string, string>): string | undefined {
  const key = KIND_SPECS[item.kind].naturalKey?.(item.body);
  return key === undefined ? undefined : natural.get(`${item.kind}/${key}`);
}

/** The existing project of a loaded directory. */
export function existingOf(loaded: LoadedProject): ExistingProject {
  return { project: loaded.config.project, checkDefaults: loaded.config.defaults.check ?? {}, definitions: loaded.definitions };
}
