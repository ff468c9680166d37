import { isRefMarker, SENSITIVE } from '../plan/desired.js';
import { escape, isRecord } from '../json/values.js';
import { getAt, isWithin, segments } from '../json/pointer.js';
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
  if (v === SENSITIVE || (typeof v === 'string' && v.startsWith('(sensitive, not set: '))) return v;
  if (isRefMarker(v)) return `(known after apply: ${v.$ref})`;
  if (Array.isArray(v)) return `[${v.map(format).join(', ')}]`;
  if (isRecord(v)) return `{${Object.entries(v).map(([k, x]) => `${k}: ${format(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * Sets whose members are references, shown by the name definitions use and by the logical id of
 * each referenced resource (`+ alertChannels: oncall-email`), not by raw API ids.
 */
const REFERENCE_SETS: Record<string, string> = { alertChannelSubscriptions: 'alertChannels' };

/**
 * Where the member of a set operation (an op with a `label`) sits in its path: the set's pointer
 * and what lies below the member (`""` for the whole member). The member is the last array index.
 */
function setMember(path: string): { set: string; below: string } | undefined {
  const segs = segments(path);
  for (let i = segs.length - 1; i >= 0; i--) {
    if (!/^\d+$/.test(segs[i]!)) continue;
    const join = (part: string[]) => part.map((s) => `/${escape(s)}`).join('');
    return { set: join(segs.slice(0, i)), below: join(segs.slice(i + 1)) };
  }
  return undefined;
}

/** How a set reads: `tags`, `retryStrategy.onlyOn`, `alertChannels` (reference sets by their definition name). */
function setName(pointer: string): string {
  return REFERENCE_SETS[pointer.slice(1)] ?? fieldPath(pointer);
}

/**
 * A member of a set as one line: `+ tags: "team-platform"`, `- alertChannels: oncall-email`;
 * a change inside a keyed member names it instead of its index: `environmentVariables[API_URL].value`.
 */
function describeSetOp(op: PatchOp & { label: string }, max: number): { sign: '+' | '-' | '~'; text: string } | undefined {
  const at = setMember(op.path);
  if (at === undefined) return undefined;
  if (at.below === '' && (op.op === 'add' || op.op === 'remove')) {
    const member = op.op === 'add' ? op.value : op.oldValue;
    const reference = REFERENCE_SETS[at.set.slice(1)] !== undefined;
    const inactive = reference && isRecord(member) && member.activated === false ? ' (not activated)' : '';
    const shown = reference ? `${op.label}${inactive}` : formatValue(member, max);
    return { sign: op.op === 'add' ? '+' : '-', text: `${setName(at.set)}: ${shown}` };
  }
  return describePlain(op, opField(op), max);
}

/**
 * The field an operation touches as people read it: `frequency`, `request.hostname`; a set
 * member by its set (`tags`, `alertChannels`) and a change inside a keyed member by its name
 * (`environmentVariables[API_URL].value`), never by the member's index.
 */
export function opField(op: PatchOp): string {
  const at = op.label === undefined ? undefined : setMember(op.path);
  if (at === undefined) return fieldPath(op.path);
  if (at.below === '' && (op.op === 'add' || op.op === 'remove')) return setName(at.set);
  const rest = at.below === '' ? '' : fieldPath(at.below);
  return `${setName(at.set)}[${op.label}]${rest === '' || rest.startsWith('[') ? '' : '.'}${rest}`;
}

/** One line per patch operation: `path: old -> new`, `+ path: new`, `- path: old`; set members by value or name. */
export function describeOp(op: PatchOp, max = Infinity): { sign: '+' | '-' | '~'; text: string } {
  if (op.label !== undefined) {
    const set = describeSetOp(op as PatchOp & { label: string }, max);
    if (set) return set;
  }
  return describePlain(op, fieldPath(op.path), max);
}

function describePlain(op: PatchOp, path: string, max: number): { sign: '+' | '-' | '~'; text: string } {
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
 * The operations a reader is shown. A create shows the fields the definition sets (and the
 * references mac adds); the fields left at server defaults are only counted. An update shows
 * every operation, but the server defaults inside a value it adds (a new assertion's `regex`)
 * are counted, not shown: the definition never wrote them.
 */
export function shownOps(change: PlannedChange): { ops: PatchOp[]; defaults: number } {
  const shown = countDefaults(change);
  return change.labels === undefined ? shown : { ...shown, ops: shown.ops.flatMap((op) => byMember(op, change.labels!)) };
}

/**
 * A create's reference set (its subscriptions) as one add per member, named by the plan's
 * `labels`, as an update shows them: `+ alertChannels: oncall-email`.
 */
function byMember(op: PatchOp, labels: Record<string, string>): PatchOp[] {
  if (op.op !== 'add' || REFERENCE_SETS[op.path.slice(1)] === undefined || !Array.isArray(op.value)) return [op];
  const members = op.value.map((value, i) => ({ op: 'add' as const, path: `${op.path}/${i}`, value, label: labels[`${op.path}/${i}`] }));
  return members.every((m) => m.label !== undefined) ? members : [op];
}

function countDefaults(change: PlannedChange): { ops: PatchOp[]; defaults: number } {
  const defaulted = change.action === 'create' || change.action === 'update' ? (change.defaulted ?? []) : [];
  if (defaulted.length === 0) return { ops: change.patch, defaults: 0 };
  const ops: PatchOp[] = [];
  let defaults = 0;
  for (const op of change.patch) {
    // An update's operation at a defaulted field itself is a real change (the live value is not the default).
    const inside = defaulted.filter((d) => isWithin(d, op.path) && (change.action === 'create' || d !== op.path));
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
