import { MacError } from '../errors.js';

/**
 * The last guard before a request leaves: a body holding `${{` carries an interpolation that
 * never happened (an unset variable, a plan's placeholder), and the API would store it as the
 * value. Refuses, naming the request and the field (never the value). `json`, when given, is
 * `JSON.stringify(body)` as it will be sent (the common case is then one substring search).
 */
export function assertNoPlaceholder(method: string, path: string, body: unknown, json?: string): void {
  if (body === undefined) return;
  // JSON escapes none of `$`, `{` and never writes `$` outside a string: the body's JSON holds
  // `${{` exactly when a string or key of the body does. The walk then only names the place.
  if (json !== undefined && !json.includes('${{')) return;
  const at = placeholderAt(body, '');
  if (at === undefined) return;
  throw new MacError(`refusing to send ${method} ${path}: the body holds an unresolved \${{ ... }} expression at ${at || '/'}; it would be stored as the value`, {
    hint: 'set the environment variable it names (declared under env: in mac.config.yaml) and run again',
  });
}

/** The JSON pointer of the first string (or key) holding `${{`, or undefined. */
function placeholderAt(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.includes('${{') ? at : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = placeholderAt(value[i], `${at}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const pointer = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (k.includes('${{')) return pointer;
      const found = placeholderAt(v, pointer);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
