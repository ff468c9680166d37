import { resolve } from 'node:path';
import type { RegisterCommand } from '../context.js';
import { loadProject } from '../../config/load.js';
import { formatDiagnostic, summarizeDiagnostics } from '../../config/format.js';
import { KINDS } from '../../schema/kinds.js';
import { NO_TYPESCRIPT_HELP } from '../typescript-option.js';

/**
 * `mac validate [DIR]`: load, validate and resolve references without HTTP; exit 0 valid, 1 invalid.
 * A *.mac.ts file is code and runs while loading; --no-typescript refuses it.
 */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('validate')
    .description('load and validate the definitions of DIR without any HTTP request (exit 0 valid, 1 invalid); a *.mac.ts file is code and runs, --no-typescript refuses it')
    .argument('[dir]', 'project directory holding mac.config.yaml', '.')
    .option('--no-typescript', NO_TYPESCRIPT_HELP)
    .action(async (dir: string, flags: { typescript: boolean }) => {
      const { output } = ctx;
      const project = await loadProject(resolve(ctx.cwd, dir), { env: ctx.env, typescript: flags.typescript });
      const errors = project.diagnostics.filter((d) => d.severity === 'error');
      for (const d of project.diagnostics) output.info(formatDiagnostic(d, output.cErr));
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
    });
};
