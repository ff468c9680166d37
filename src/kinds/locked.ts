import { escape } from '../json/values.js';
import { isRecord } from './shape.js';

/**
 * Pointers of the `value` of every object marked `locked: true`, anywhere in a body (account
 * variables, check variables, webhook headers and query parameters). The API returns them, so
 * they are compared, but `locked` says their owner hides them: a plan masks them like credentials.
 */
export function lockedValues(node: unknown, at = '', out: string[] = []): string[] {
  // One array filled in place, pointers built only for nested values: runs on every object
  // a plan or a convergence check compares.
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (node[i] !== null && typeof node[i] === 'object') lockedValues(node[i], `${at}/${i}`, out);
    return out;
  }
  if (!isRecord(node)) return out;
  if (node.locked === true && typeof node.value === 'string') out.push(`${at}/value`);
  for (const k in node) {
    const v = node[k];
    if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(node, k)) lockedValues(v, `${at}/${escape(k)}`, out);
  }
  return out;
}
