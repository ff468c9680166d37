import { escape } from '../json.js';
import { isRecord } from './shape.js';

/**
 * Pointers of the `value` of every object marked `locked: true`, anywhere in a body (account
 * variables, check variables, webhook headers and query parameters). The API returns them, so
 * they are compared, but `locked` says their owner hides them: a plan masks them like credentials.
 */
export function lockedValues(node: unknown, at = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => lockedValues(item, `${at}/${i}`));
  if (!isRecord(node)) return [];
  const out = node.locked === true && typeof node.value === 'string' ? [`${at}/value`] : [];
  for (const [k, v] of Object.entries(node)) if (v !== null && typeof v === 'object') out.push(...lockedValues(v, `${at}/${escape(k)}`));
  return out;
}
