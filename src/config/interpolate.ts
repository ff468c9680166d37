/** `${{ env.NAME }}` interpolation in every string value of a document, at load time. */
import type { Diagnostic } from './types.js';
import { errorAt, pointer, type PathSegment, type SourceDocument } from './source.js';

const EXPRESSION = /\$\{\{\s*(.*?)\s*\}\}/g;
const ENV_REF = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;
const WHOLE_REF = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/**
 * Replaces every `${{ env.NAME }}` in the string values of `source.data` (in place) and returns
 * JSON pointer -> NAME for the values that are exactly one reference. An unset NAME or another
 * expression is a diagnostic at the value.
 */
export function interpolateEnv(
  source: SourceDocument,
  env: Record<string, string | undefined>,
  diagnostics: Diagnostic[],
): Record<string, string> {
  const envSources: Record<string, string> = {};
  // One shared path stack: most documents have no reference, so paths are copied only on a hit.
  const path: PathSegment[] = [];
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return value.includes('${{') ? replace(value, [...path]) : value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        value[i] = visit(value[i]);
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        path.push(key);
        record[key] = visit(record[key]);
        path.pop();
      }
    }
    return value;
  };
  const replace = (text: string, path: PathSegment[]): string => {
    const whole = WHOLE_REF.exec(text);
    if (whole) envSources[pointer(path)] = whole[1];
    return text.replace(EXPRESSION, (match, expression: string) => {
      const ref = ENV_REF.exec(expression);
      if (!ref) {
        diagnostics.push(errorAt(source.locate(path), path, `unsupported expression "${match}"`, 'only ${{ env.NAME }} is supported'));
        return match;
      }
      const name = ref[1];
      const resolved = env[name];
      if (resolved === undefined) {
        diagnostics.push(errorAt(source.locate(path), path, `environment variable ${name} is not set`, `set ${name} before running mac`));
        return match;
      }
      return resolved;
    });
  };
  source.data = visit(source.data);
  return envSources;
}
