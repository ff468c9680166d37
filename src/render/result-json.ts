import type { ApplyResult } from '../apply/result.js';

/** Renders an apply result as exactly one JSON document. */
export function renderResultJson(result: ApplyResult): string {
  return JSON.stringify(result, null, 2);
}
