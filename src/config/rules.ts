/**
 * The rules phase across definitions: small functions that push diagnostics. They run on the
 * definitions whose structure is valid.
 */
import { DEFINITIONS } from '../schema/definitions.js';
import { isCheckKind, isOwnedKind, type Kind } from '../schema/kinds.js';
import type { Definition, Diagnostic } from './types.js';
import { errorAt } from './source.js';
import type { ResolvedDocument } from './resolve.js';
import { didYouMean } from './suggest.js';
import { isReservedVariable, LOCK_VARIABLE_PREFIX, OWNED_VARIABLE_PREFIX } from '../schema/lock-key.js';

/** What rules know besides the valid definitions. */
export interface RuleContext {
  /** `Kind\0id` of every document that declared a kind and id, valid or not. */
  declared: ReadonlySet<string>;
}

/** One rule over all resolved documents of a project. */
export type ProjectRule = (docs: readonly ResolvedDocument[], diagnostics: Diagnostic[], context: RuleContext) => void;

const where = (d: Definition) => `${d.file}:${d.line}`;

/** Logical ids (variable keys) are unique per kind, tombstones included. */
export const uniqueIds: ProjectRule = (docs, diagnostics) => {
  // One map per kind: no joined key string per definition (12,000 of them in a large project).
  const seen = new Map<Kind, Map<string, Definition>>();
  for (const { definition: d, source } of docs) {
    let ofKind = seen.get(d.kind);
    if (ofKind === undefined) seen.set(d.kind, (ofKind = new Map()));
    const first = ofKind.get(d.id);
    if (!first) {
      ofKind.set(d.id, d);
      continue;
    }
    const field = DEFINITIONS[d.kind].idField;
    const what = field === 'key' ? 'variable key' : `${d.kind} id`;
    diagnostics.push(errorAt(source.locate([field]), field, `duplicate ${what} "${d.id}", first defined at ${where(first)}`));
  }
};

/** Two present definitions of a kind may not share what live resources are matched by (name, customUrl, address). */
export const uniqueIdentities: ProjectRule = (docs, diagnostics) => {
  const seen = new Map<string, Definition>();
  for (const { definition: d, source } of docs) {
    const identity = DEFINITIONS[d.kind].identity;
    const value = identity?.of(d.spec);
    if (!identity || value === undefined || d.state === 'absent') continue;
    const k = `${d.kind}\0${value}`;
    const first = seen.get(k);
    if (!first) {
      seen.set(k, d);
      continue;
    }
    const field = identity.what === 'type and address' ? 'config' : identity.what;
    diagnostics.push(
      errorAt(source.locate([field]), field, `another ${d.kind} (${where(first)}) has the same ${identity.what}`, `live ${d.kind} resources are matched by ${identity.what}, so it must be unique`),
    );
  }
};

/** References by logical id resolve to a definition of the target kind that is not a tombstone. */
export const referencesResolve: ProjectRule = (docs, diagnostics, context) => {
  const byKind = new Map<Kind, Map<string, Definition>>();
  for (const { definition: d } of docs) {
    if (!byKind.has(d.kind)) byKind.set(d.kind, new Map());
    byKind.get(d.kind)!.set(d.id, d);
  }
  for (const { definition: d, source } of docs) {
    if (d.state === 'absent') continue;
    for (const ref of DEFINITIONS[d.kind].refs) {
      const raw = d.refs[ref.field];
      if (raw === undefined) continue;
      const ids = Array.isArray(raw) ? raw : [raw];
      ids.forEach((id, i) => {
        const path = Array.isArray(raw) ? [ref.field, i] : [ref.field];
        const target = byKind.get(ref.target)?.get(id);
        if (!target) {
          // A target whose own document is invalid has been reported already.
          if (context.declared.has(`${ref.target}\0${id}`)) return;
          const hint = didYouMean(id, byKind.get(ref.target)?.keys() ?? []);
          if (ref.orRaw) {
            // A raw value (a slug outside the project) is fine; one that looks like a mistyped id is not.
            if (hint) diagnostics.push({ ...errorAt(source.locate(path), path, `no ${ref.target} with id "${id}": used as a raw ${ref.field} value`, hint), severity: 'warning' });
            return;
          }
          diagnostics.push(errorAt(source.locate(path), path, `no ${ref.target} with id "${id}"`, hint));
        } else if (target.state === 'absent') {
          diagnostics.push(errorAt(source.locate(path), path, `${ref.target} "${id}" is marked state: absent (${where(target)}) but still referenced`, 'remove the reference or the tombstone'));
        }
      });
      if (ref.rawField && d.spec[ref.rawField] !== undefined && d.spec[ref.rawField] !== null) {
        diagnostics.push(errorAt(source.locate([ref.field], true), ref.field, `${ref.field} and ${ref.rawField} are both set`, 'keep one of them'));
      }
    }
  }
};

/**
 * References inside nested fields: a check's `triggerIncident.service` and a status page's
 * `cards[].services[]` name StatusPageService definitions (did you mean, tombstones). A
 * triggerIncident names its service exactly once (`service` or the raw `serviceId`).
 */
export const nestedReferencesResolve: ProjectRule = (docs, diagnostics, context) => {
  const services = new Map<string, Definition>();
  for (const { definition: d } of docs) if (d.kind === 'StatusPageService') services.set(d.id, d);
  const check = (id: string, path: Array<string | number>, source: ResolvedDocument['source']) => {
    const target = services.get(id);
    if (!target) {
      if (context.declared.has(`StatusPageService\0${id}`)) return;
      diagnostics.push(errorAt(source.locate(path), path, `no StatusPageService with id "${id}"`, didYouMean(id, services.keys())));
    } else if (target.state === 'absent') {
      diagnostics.push(errorAt(source.locate(path), path, `StatusPageService "${id}" is marked state: absent (${where(target)}) but still referenced`, 'remove the reference or the tombstone'));
    }
  };
  for (const { definition: d, source } of docs) {
    if (d.state === 'absent') continue;
    const incident = d.spec.triggerIncident as { service?: unknown; serviceId?: unknown } | null | undefined;
    if (isCheckKind(d.kind) && incident) {
      const both = incident.service !== undefined && incident.serviceId !== undefined;
      if (both || (incident.service === undefined && incident.serviceId === undefined)) {
        const path = ['triggerIncident'];
        diagnostics.push(errorAt(source.locate(path, true), 'triggerIncident', both ? 'service and serviceId are both set' : 'needs service (a StatusPageService id) or serviceId', both ? 'keep one of them' : undefined));
      }
    }
    if (d.refs.incidentService !== undefined) check(d.refs.incidentService, ['triggerIncident', 'service'], source);
    d.refs.cardServices?.forEach((ids, i) => ids.forEach((id, j) => check(id, ['cards', i, 'services', j], source)));
  }
};

/** Tag prefix of the ownership tag mac adds to every check. */
export const OWNERSHIP_TAG_PREFIX = 'mac:';

/** Checks may not carry `mac:` tags: mac adds the ownership tag itself. */
export const noOwnershipTags: ProjectRule = (docs, diagnostics) => {
  for (const { definition: d, source } of docs) {
    if (!isOwnedKind(d.kind) || !Array.isArray(d.spec.tags)) continue;
    (d.spec.tags as unknown[]).forEach((tag, i) => {
      if (typeof tag === 'string' && tag.startsWith(OWNERSHIP_TAG_PREFIX)) {
        diagnostics.push(errorAt(source.locate(['tags', i]), ['tags', i], `tags starting with "${OWNERSHIP_TAG_PREFIX}" are reserved`, 'mac adds the ownership tag mac:<project>/<id> itself'));
      }
    });
  }
};

/**
 * `renamedFrom` names ids that are no longer defined, each claimed once. Check ownership tags
 * carry no kind, so for checks an old id defined by any check kind is a conflict. Only checks are
 * matched by logical id: elsewhere the field is a warning (no effect), on variables an error.
 */
export const renamesValid: ProjectRule = (docs, diagnostics) => {
  const space = (kind: Kind) => (isCheckKind(kind) ? 'check' : kind);
  const ids = new Set(docs.map(({ definition: d }) => `${space(d.kind)}\0${d.id}`));
  const claimed = new Map<string, Definition>();
  for (const { definition: d, source } of docs) {
    const olds = d.renamedFrom ?? [];
    if (olds.length === 0) continue;
    const raw = (source.data as { renamedFrom?: unknown }).renamedFrom;
    const pathOf = (i: number) => (Array.isArray(raw) ? ['renamedFrom', i] : ['renamedFrom']);
    if (d.kind === 'EnvironmentVariable') {
      diagnostics.push(errorAt(source.locate(['renamedFrom'], true), 'renamedFrom', "a variable's key cannot change (the API refuses it)", 'define the new key and mark the old one state: absent'));
      continue;
    }
    if (!isOwnedKind(d.kind)) {
      const identity = DEFINITIONS[d.kind].identity?.what ?? 'its natural key';
      diagnostics.push({
        ...errorAt(source.locate(['renamedFrom'], true), 'renamedFrom', `has no effect: live ${d.kind} resources are matched by ${identity}, not by logical id, so a new id alone keeps the live object`, 'remove renamedFrom'),
        severity: 'warning',
      });
      continue;
    }
    olds.forEach((old, i) => {
      const path = pathOf(i);
      if (old === d.id) {
        diagnostics.push(errorAt(source.locate(path), path, `renames the check from its own id "${old}"`, 'name the previous id'));
      } else if (ids.has(`${space(d.kind)}\0${old}`)) {
        const what = isCheckKind(d.kind) ? 'check' : d.kind;
        diagnostics.push(errorAt(source.locate(path), path, `"${old}" is still defined as a ${what}; a ${what} can be renamed only from an id that is no longer defined`, 'remove the old definition, or this renamedFrom'));
      } else if (claimed.has(`${space(d.kind)}\0${old}`)) {
        const first = claimed.get(`${space(d.kind)}\0${old}`)!;
        diagnostics.push(errorAt(source.locate(path), path, `"${old}" is already renamed to ${first.kind}/${first.id} (${where(first)})`, 'a previous id can move to one definition only'));
      } else {
        claimed.set(`${space(d.kind)}\0${old}`, d);
      }
    });
  }
};

/** Variables may not use the keys of mac's bookkeeping: the apply lock and the ownership records. */
export const noLockVariables: ProjectRule = (docs, diagnostics) => {
  for (const { definition: d, source } of docs) {
    if (d.kind === 'EnvironmentVariable' && isReservedVariable(d.id)) {
      diagnostics.push(
        errorAt(source.locate(['key']), 'key', `variable keys starting with "${LOCK_VARIABLE_PREFIX}" or "${OWNED_VARIABLE_PREFIX}" are reserved`, 'mac keeps its apply lock and its ownership records in such variables; choose another key'),
      );
    }
  }
};

/** Every project rule, in the order they run. */
export const PROJECT_RULES: readonly ProjectRule[] = [uniqueIds, uniqueIdentities, referencesResolve, nestedReferencesResolve, noOwnershipTags, renamesValid, noLockVariables];
