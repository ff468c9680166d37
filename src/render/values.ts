import { isRefMarker, SENSITIVE } from '../plan/desired.js';
import { escape, isRecord } from '../plan/json.js';
import { getAt, isWithin, segments } from '../plan/pointer.js';
import type { PatchOp, Plan, PlannedChange } from '../plan/types.js';

/** A JSON pointer as people read it: `/request/assertions/0/target` -> `request.assertions[0].target`. */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const seg of segments(pointer)) out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out === '' ? '(whole object)' : out;
}

/** A value on one line: JSON, except that secrets read `(sensitive)` and references `(known after apply)`. */
export function formatValue(v: unknown, max = Infinity): string {
  const text = format(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function format(v: unknown): string {
  if (v === SENSITIVE) return SENSITIVE;
  if (isRefMarker(v)) return `(known after apply: ${v.$ref})`;
  if (Array.isArray(v)) return `[${v.map(format).join(', ')}]`;
  if (isRecord(v)) return `{${Object.entries(v).map(([k, x]) => `${k}: ${format(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** One line per patch operation: `path: old -> new`, `+ path: new`, `- path: old`. */
export function describeOp(op: PatchOp, max = Infinity): { sign: '+' | '-' | '~'; text: string } {
  const path = fieldPath(op.path);
  switch (op.op) {
    case 'add':
      return { sign: '+', text: `${path}: ${formatValue(op.value, max)}` };
    case 'remove':
      return { sign: '-', text: `${path}${'oldValue' in op ? `: ${formatValue(op.oldValue, max)}` : ''}` };
    case 'replace':
      return { sign: '~', text: `${path}: ${'oldValue' in op ? formatValue(op.oldValue, max) : '?'} -> ${formatValue(op.value, max)}` };
    default:
      return { sign: '~', text: `${op.op} ${path}${op.from ? ` from ${fieldPath(op.from)}` : ''}` };
  }
}

/**
 * The operations a reader is shown: for a create, the fields the definition sets (and the
 * references mac adds); the fields left at server defaults are only counted. Other actions show
 * their whole patch.
 */
export function shownOps(change: PlannedChange): { ops: PatchOp[]; defaults: number } {
  const defaulted = change.action === 'create' ? (change.defaulted ?? []) : [];
  if (defaulted.length === 0) return { ops: change.patch, defaults: 0 };
  const ops: PatchOp[] = [];
  let defaults = 0;
  for (const op of change.patch) {
    const inside = defaulted.filter((d) => isWithin(d, op.path));
    defaults += inside.length;
    if (inside.includes(op.path)) continue;
    if (inside.length === 0 || !('value' in op)) ops.push(op);
    else ops.push({ ...op, value: without(op.value, inside.map((d) => d.slice(op.path.length))) });
  }
  return { ops, defaults };
}

/** A copy of `value` without the fields at `pointers` (relative to it). */
function without(value: unknown, pointers: string[]): unknown {
  const copy = structuredClone(value);
  for (const pointer of pointers) {
    const segs = segments(pointer);
    const last = segs.pop()!;
    const parent = getAt(copy, segs.map((s) => `/${escape(s)}`).join(''));
    if (isRecord(parent)) delete parent[last];
  }
  return copy;
}

/** `+ 18 defaults`: how a create's fields at server defaults read. */
export function defaultsLine(count: number): string {
  return `+ ${count} default${count === 1 ? '' : 's'}`;
}

/** `Plan: 1 to create, 2 to update, 0 to delete.` */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete.`;
}

/** `2 orphaned, not deleted: \`mac plan --prune\` deletes them`, or undefined when there are none. */
export function orphanLine(plan: Plan): string | undefined {
  const n = plan.summary.orphaned ?? plan.orphaned?.length ?? 0;
  return n > 0 ? `${n} orphaned, not deleted: \`mac plan --prune\` deletes them` : undefined;
}

/** One orphaned resource for people: `TcpCheck/old "Old name" [api id]`. */
export function orphanLabel(o: NonNullable<Plan['orphaned']>[number]): string {
  return `${o.kind}/${o.id}${o.name === undefined ? '' : ` ${JSON.stringify(o.name)}`} [${String(o.remoteId)}]`;
}

/** The changes a reader must see (noops are only counted). */
export function visibleChanges(plan: Plan): PlannedChange[] {
  return plan.changes.filter((c) => c.action !== 'noop');
}

/** Where a change is defined, `file:line`, or why it has no file. */
export function location(c: PlannedChange): string | undefined {
  return c.file === undefined ? undefined : c.line === undefined ? c.file : `${c.file}:${c.line}`;
}
