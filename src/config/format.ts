/** Text form of diagnostics: `file:line:col: error: <field path>: <message>`, hint on the next line. */
import type { Diagnostic } from './types.js';

/** Colour functions a caller may pass; identity when colour is off. */
export interface DiagnosticColors {
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
}

const plain: DiagnosticColors = { red: (s) => s, yellow: (s) => s, dim: (s) => s };

/** One diagnostic as printed (two lines when it has a hint). */
export function formatDiagnostic(d: Diagnostic, c: DiagnosticColors = plain): string {
  const severity = d.severity === 'error' ? c.red('error') : c.yellow('warning');
  const field = d.path === '' ? '' : `${d.path}: `;
  const line = `${d.file}:${d.line}:${d.col}: ${severity}: ${field}${d.message}`;
  return d.hint ? `${line}\n  ${c.dim(`hint: ${d.hint}`)}` : line;
}

/** The one-line summary after the diagnostics, e.g. `3 errors in 2 files`. */
export function summarizeDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const files = new Set(diagnostics.map((d) => d.file)).size;
  const parts = [plural(errors, 'error')];
  if (warnings > 0) parts.push(plural(warnings, 'warning'));
  return `${parts.join(', ')} in ${plural(files, 'file')}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
