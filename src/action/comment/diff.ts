import type { PatchOp, PlannedChange } from '../../plan/types.js';
import { defaultsLine, describeOp, formatValue, opField, shownOps } from '../../render/values.js';

/**
 * The fields a change touches, in patch order, without repeats (a create: every field it sets),
 * named as the diff names them: a set by its name (`tags`, `alertChannels`), never `tags[2]`;
 * fields left at server defaults are not listed (the definition never wrote them).
 */
export function changedFields(change: PlannedChange): string[] {
  if (change.action === 'delete') return [];
  return [...new Set(shownOps(change).ops.map(opField))];
}

/**
 * The lines of a ```diff block for one change, with the operations the text and markdown
 * renderers show (src/render/values.ts `shownOps`: set members by value or logical id, server
 * defaults counted as `+ N defaults`), signed as the markdown renderer signs them (`+` added,
 * `-` removed, `!` changed: GitHub colours a diff block by the first character), except that a
 * multi-line string (a script) is shown line by line instead of as one escaped JSON string.
 */
export function diffLines(change: PlannedChange): string[] {
  if (change.action === 'delete') {
    return [`- ${change.kind}/${change.id}${change.remoteId !== undefined ? ` (remote id ${change.remoteId})` : ''}`];
  }
  const { ops, defaults } = shownOps(change);
  return [...ops.flatMap(opLines), ...(defaults > 0 ? [defaultsLine(defaults)] : [])];
}

function opLines(op: PatchOp): string[] {
  const old = op.oldValue;
  if ((op.op === 'add' || op.op === 'replace') && (isMultiline(op.value) || isMultiline(old))) {
    const path = opField(op);
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
