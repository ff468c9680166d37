import type { Diagnostic } from '../config/types.js';
import { formatDiagnostic, summarizeDiagnostics } from '../config/format.js';
import type { Plan } from '../plan/types.js';
import type { Output } from './output.js';

/** Prints every diagnostic of a load together, then a one-line summary when any is an error. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], output: Output): void {
  for (const d of diagnostics) output.info(formatDiagnostic(d, output.c));
  if (diagnostics.some((d) => d.severity === 'error')) output.info(`${output.c.red('validation failed:')} ${summarizeDiagnostics(diagnostics)}`);
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;

/** What `apply DIR` shows on stderr before asking: one line per change, then the counts and warnings. */
export function planPreview(plan: Plan, output: Pick<Output, 'c'>): string {
  const { c } = output;
  const paint = { create: c.green, update: c.yellow, delete: c.red } as const;
  const lines: string[] = [];
  for (const change of plan.changes) {
    if (change.action === 'noop') continue;
    const name = change.name !== undefined ? ` (${change.name})` : '';
    lines.push(paint[change.action](`  ${SIGN[change.action]} ${change.action} ${change.kind}/${change.id}${name}`));
  }
  const s = plan.summary;
  lines.push(`Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.noop} unchanged.`);
  for (const w of plan.warnings) lines.push(`${c.yellow('warning:')} ${w}`);
  return lines.join('\n');
}
