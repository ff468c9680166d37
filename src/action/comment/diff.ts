import type { PatchOp, PlannedChange } from '../../plan/types.js';
import { describeOp, fieldPath, formatValue } from '../../render/values.js';

/** The fields a change touches, in patch order, without repeats (a create: every field it sets). */
export function changedFields(change: PlannedChange): string[] {
  if (change.action === 'delete') return [];
  return [...new Set(change.patch.map((op) => fieldPath(op.path)))];
}

/**
 * The lines of a ```diff block for one change, as the markdown renderer writes them (`+` added,
 * `-` removed, `!` changed: GitHub colours a diff block by the first character), except that a
 * multi-line string (a script) is shown line by line instead of as one escaped JSON string.
 */
export function diffLines(change: PlannedChange): string[] {
  if (change.action === 'delete') {
    return [`- ${change.kind}/${change.id}${change.remoteId !== undefined ? ` (remote id ${change.remoteId})` : ''}`];
  }
  return change.patch.flatMap(opLines);
}

function opLines(op: PatchOp): string[] {
  const old = op.oldValue;
  if ((op.op === 'add' || op.op === 'replace') && (isMultiline(op.value) || isMultiline(old))) {
    const path = fieldPath(op.path);
    return [...(op.op === 'replace' ? block('-', path, old) : []), ...block('+', path, op.value)];
  }
  const { sign, text } = describeOp(op);
  return [`${sign === '~' ? '!' : sign} ${text}`];
}

function isMultiline(v: unknown): v is string {
  return typeof v === 'string' && v.includes('\n');
}

function block(sign: '+' | '-', path: string, value: unknown): string[] {
  if (!isMultiline(value)) return [`${sign} ${path}: ${formatValue(value)}`];
  return [`${sign} ${path}: |`, ...value.replace(/\n$/, '').split('\n').map((l) => `${sign}   ${l}`)];
}
