import type { PatchOp, PlannedChange } from '../../plan/types.js';

/** A JSON pointer as people read field paths: `/request/port` -> `request.port`, '' -> '(whole resource)'. */
export function fieldPath(pointer: string): string {
  if (pointer === '') return '(whole resource)';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** The fields a change touches, in patch order, without repeats. */
export function changedFields(change: PlannedChange): string[] {
  if (change.action === 'delete') return [];
  const pointers =
    change.action === 'create' && change.desired ? Object.keys(change.desired).map((k) => `/${k}`) : change.patch.map((op) => op.path);
  return [...new Set(pointers.map(fieldPath))];
}

/**
 * The lines of a ```diff block for one change: `-` the live value, `+` the new one. A replace
 * whose live value the plan did not record shows as `!` (GitHub highlights it as changed).
 */
export function diffLines(change: PlannedChange): string[] {
  if (change.action === 'delete') {
    return [`- ${change.kind}/${change.id}${change.remoteId !== undefined ? ` (remote id ${change.remoteId})` : ''}`];
  }
  if (change.action === 'create' && change.desired) {
    return Object.entries(change.desired).flatMap(([k, v]) => valueLines('+', fieldPath(`/${k}`), v));
  }
  return change.patch.flatMap(opLines);
}

function opLines(op: PatchOp): string[] {
  const path = fieldPath(op.path);
  // The plan may record the live value a replace or remove changes (`oldValue`).
  const old = 'oldValue' in op ? [(op as { oldValue?: unknown }).oldValue] : [];
  switch (op.op) {
    case 'add':
      return valueLines('+', path, op.value);
    case 'replace':
      return old.length ? [...valueLines('-', path, old[0]), ...valueLines('+', path, op.value)] : valueLines('!', path, op.value);
    case 'remove':
      return old.length ? valueLines('-', path, old[0]) : [`- ${path}`];
    case 'move':
    case 'copy':
      return [`! ${path}: ${op.op} from ${fieldPath(op.from ?? '')}`];
    case 'test':
      return [];
  }
}

// Multi-line strings (scripts) read better as a block than as one JSON line full of \n.
function valueLines(sign: string, path: string, value: unknown): string[] {
  if (typeof value === 'string' && value.includes('\n')) {
    return [`${sign} ${path}: |`, ...value.replace(/\n$/, '').split('\n').map((l) => `${sign}   ${l}`)];
  }
  return [`${sign} ${path}: ${value === undefined ? '(unset)' : JSON.stringify(value)}`];
}
