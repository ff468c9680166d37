import { KIND_SPECS } from '../kinds/index.js';
import { ownedId, ownerProject } from '../plan/ownership.js';
import { DEFINITIONS } from '../schema/definitions.js';
import { KINDS, OWNED_KINDS, isCheckKind, isOwnedKind, type Kind } from '../schema/kinds.js';
import type { Definition } from '../config/types.js';
import type { Defined } from './existing.js';
import { remoteKey } from './existing.js';
import type { LiveAccount, LiveItem } from './fetch.js';
import { IdAllocator } from './ids.js';
import { IMPORT_KINDS } from './table.js';

/** A live resource import will write, with the logical id it gets. */
export interface Assigned {
  item: LiveItem;
  id: string;
}

/** A live resource import leaves out, and why (printed for the user). */
export interface Skipped {
  kind: Kind;
  remoteId: string | number;
  name: string;
  reason: string;
}

/** Which live resources get written under which ids. */
export interface Assignment {
  assigned: Assigned[];
  /** Live resources the project already defines (a re-import leaves them alone). */
  alreadyDefined: number;
  skipped: Skipped[];
}

/**
 * Gives every live resource of the selected kinds that the project does not define a logical id.
 * Checks share one namespace (their ownership tag `mac:<project>/<id>` has no kind in it); a check
 * already tagged for this project keeps the id its tag names. Resources that could not be told
 * apart from an earlier one by the plan (same natural key) and checks owned by another project
 * are skipped with a reason, never written half-right.
 */
export function assignIds(project: string, kinds: Kind[], live: LiveAccount, defined: Defined, definitions: Definition[]): Assignment {
  const checks = new IdAllocator(definitions.filter((d) => isCheckKind(d.kind)).map((d) => d.id));
  const others = new Map<Kind, IdAllocator>(
    KINDS.filter((k) => !isCheckKind(k)).map((k) => [k, new IdAllocator(definitions.filter((d) => d.kind === k).map((d) => d.id))]),
  );
  const result: Assignment = { assigned: [], alreadyDefined: 0, skipped: [] };
  const seenKeys = new Map<string, string>();
  const selected = new Set(kinds);

  const allocatorOf = (kind: Kind) => (isCheckKind(kind) ? checks : others.get(kind)!);
  // Checks (and check groups) tagged for this project claim the ids their tags name before any name is slugged.
  const tagged = new Map<LiveItem, string>();
  for (const kind of OWNED_KINDS) {
    if (!selected.has(kind)) continue;
    for (const item of live.items.get(kind) ?? []) {
      const owned = ownedId(project, item.body.tags);
      if (owned !== undefined && !defined.byRemote.has(remoteKey(kind, item.remoteId)) && !allocatorOf(kind).has(owned)) {
        allocatorOf(kind).allocate(owned, owned);
        tagged.set(item, owned);
      }
    }
  }

  for (const kind of KINDS) {
    if (!selected.has(kind)) continue;
    const spec = KIND_SPECS[kind];
    for (const item of live.items.get(kind) ?? []) {
      if (defined.byRemote.has(remoteKey(kind, item.remoteId))) {
        result.alreadyDefined++;
        continue;
      }
      const name = spec.displayName(item.body) ?? String(item.remoteId);
      if (DEFINITIONS[kind].script === 'required' && !(typeof item.body.script === 'string' && item.body.script !== '')) {
        result.skipped.push({ kind, remoteId: item.remoteId, name, reason: `it has no script, which a ${kind} definition requires` });
        continue;
      }
      const literal = interpolationIn(item.body, IMPORT_KINDS[kind].scriptField);
      if (literal !== undefined) {
        result.skipped.push({
          kind,
          remoteId: item.remoteId,
          name,
          reason: `${literal} contains "\${{", which a definition reads as an environment reference (there is no escape for it)`,
        });
        continue;
      }
      if (isOwnedKind(kind)) {
        const owner = ownerProject(item.body.tags);
        if (owner !== undefined && owner !== project) {
          result.skipped.push({ kind, remoteId: item.remoteId, name, reason: `managed by project "${owner}" (tag mac:${owner}/...)` });
          continue;
        }
      } else {
        const key = spec.naturalKey?.(item.body);
        if (key !== undefined) {
          const first = seenKeys.get(`${kind}/${key}`);
          if (first !== undefined) {
            result.skipped.push({
              kind,
              remoteId: item.remoteId,
              name,
              reason: `same ${spec.naturalKeyLabel ?? 'identity'} as ${kind}/${first}; mac could not tell them apart (rename or remove one in the account)`,
            });
            continue;
          }
        }
      }
      const id =
        kind === 'EnvironmentVariable'
          ? String(item.remoteId)
          : (tagged.get(item) ?? allocatorOf(kind).allocate(IMPORT_KINDS[kind].idSource(item.body), IMPORT_KINDS[kind].fallbackId));
      const key = spec.naturalKey?.(item.body);
      if (key !== undefined) seenKeys.set(`${kind}/${key}`, id);
      result.assigned.push({ item, id });
    }
  }
  return result;
}

/**
 * The first field (dot path) whose text holds `${{`: written to YAML, the loader would read it as
 * `${{ env.NAME }}` and change it. A script written to its own file is not interpolated.
 */
function interpolationIn(body: Record<string, unknown>, scriptField: string | undefined): string | undefined {
  const visit = (v: unknown, path: string): string | undefined => {
    if (typeof v === 'string') return v.includes('${{') ? path : undefined;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const hit = visit(v[i], `${path}.${i}`);
        if (hit) return hit;
      }
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const hit = visit(x, path ? `${path}.${k}` : k);
        if (hit) return hit;
      }
    }
    return undefined;
  };
  return visit(scriptField ? { ...body, [scriptField]: undefined } : body, '');
}
