import { isOwnedKind, type Kind } from '../schema/kinds.js';
import type { PatchOp, Plan, PlannedChange } from '../plan/types.js';

/**
 * The round-trip proof of an import: the written definitions, planned against the account they
 * came from, may differ from it only by the ownership tags the next apply adds to adopted checks.
 */

/** What import wrote, as the proof needs it. */
export interface WrittenResource {
  kind: Kind;
  id: string;
  /** For checks: the tags the live check has now (without the ownership tag). */
  liveTags?: string[];
}

/** A planned change the proof does not allow, with its patch operations. */
export interface Difference {
  kind: Kind;
  id: string;
  action: PlannedChange['action'];
  file?: string;
  line?: number;
  ops: PatchOp[];
}

/** The verdict of the round-trip plan. */
export interface RoundTrip {
  /** "Kind/id" of checks whose only change is the ownership tag. */
  adoptions: string[];
  /** Changes to written resources other than adoptions: each fails the import. */
  differences: Difference[];
  /** Changes to definitions this import did not write (pending work of the project): reported, not judged. */
  unrelated: number;
  /** Plan warnings (look-alikes and the like), passed on. */
  warnings: string[];
}

/** Judges a plan of the written directory; `ownershipTag(id)` is the tag the plan adds to a check. */
export function judgeRoundTrip(plan: Plan, written: WrittenResource[], ownershipTag: (id: string) => string): RoundTrip {
  const byKey = new Map(written.map((w) => [`${w.kind}/${w.id}`, w]));
  const result: RoundTrip = { adoptions: [], differences: [], unrelated: 0, warnings: plan.warnings };
  for (const change of plan.changes) {
    if (change.action === 'noop') continue;
    const w = byKey.get(`${change.kind}/${change.id}`);
    if (!w) {
      result.unrelated++;
      continue;
    }
    if (isAdoption(change, w, ownershipTag(change.id))) result.adoptions.push(`${change.kind}/${change.id}`);
    else {
      result.differences.push({
        kind: change.kind,
        id: change.id,
        action: change.action,
        file: change.file,
        line: change.line,
        ops: change.patch,
      });
    }
  }
  return result;
}

/**
 * An adoption is an update of a check that touches only `tags`, and whose desired tags are
 * exactly the live ones plus the ownership tag: any other tag difference is a real difference.
 */
export function isAdoption(change: PlannedChange, written: WrittenResource, tag: string): boolean {
  if (change.action !== 'update' || !isOwnedKind(change.kind) || change.patch.length === 0) return false;
  if (!change.patch.every((op) => op.path === '/tags' || op.path.startsWith('/tags/'))) return false;
  const desired = change.desired?.tags;
  if (!Array.isArray(desired)) return false;
  const want = new Set([...(written.liveTags ?? []), tag]);
  const got = new Set(desired.map(String));
  return want.size === got.size && [...want].every((t) => got.has(t));
}

/** Lines that list each difference field by field, for stderr. Values are as the plan shows them (secrets `(sensitive)`). */
export function describeDifferences(differences: Difference[]): string[] {
  const lines: string[] = [];
  for (const d of differences) {
    const where = d.file ? ` (${d.file}${d.line ? `:${d.line}` : ''})` : '';
    lines.push(`  ${d.action} ${d.kind}/${d.id}${where}`);
    if (d.action === 'create') lines.push('    not matched to any live resource: it would be created');
    for (const op of d.ops) {
      const value = op.op === 'remove' ? '' : `: ${preview(op.value)}`;
      lines.push(`    ${op.op} ${op.path || '/'}${value}`);
    }
  }
  return lines;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
