import type { CliContext } from '../context.js';
import { summarizeDiagnostics } from '../../config/format.js';
import { KINDS } from '../../schema/kinds.js';
import { loadReported } from '../options.js';

/**
 * `mac validate [DIR]`: load, validate and resolve references without HTTP; exit 0 valid, 1 invalid.
 * A *.mac.ts file is code and runs while loading; --no-typescript refuses it.
 */
export async function run(ctx: CliContext, dir: string, flags: { typescript: boolean }): Promise<void> {
  const { output } = ctx;
  const project = await loadReported(ctx, dir, flags.typescript);
  const errors = project.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    output.info(`${output.cErr.red('validation failed:')} ${summarizeDiagnostics(project.diagnostics)}`);
    ctx.exit(1);
    return;
  }
  const counts = KINDS.map((kind) => {
    const defs = project.definitions.filter((d) => d.kind === kind);
    const absent = defs.filter((d) => d.state === 'absent').length;
    return { kind, n: defs.length, absent };
  }).filter((c) => c.n > 0);
  const total = project.definitions.length;
  const files = project.files.length;
  output.result(`${project.config.project}: ${total} definition${total === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}, valid`);
  for (const c of counts) output.result(`  ${c.kind.padEnd(20)} ${String(c.n).padStart(4)}${c.absent > 0 ? `  (${c.absent} absent)` : ''}`);
  ctx.exit(0);
}
