import { isRefMarker, SENSITIVE } from '../plan/desired.js';
import { isRecord } from '../plan/json.js';
import { segments } from '../plan/pointer.js';
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

/** `Plan: 1 to create, 2 to update, 0 to delete.` */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete.`;
}

/** The changes a reader must see (noops are only counted). */
export function visibleChanges(plan: Plan): PlannedChange[] {
  return plan.changes.filter((c) => c.action !== 'noop');
}

/** Where a change is defined, `file:line`, or why it has no file. */
export function location(c: PlannedChange): string | undefined {
  return c.file === undefined ? undefined : c.line === undefined ? c.file : `${c.file}:${c.line}`;
}
