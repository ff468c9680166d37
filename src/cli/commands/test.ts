import { resolve } from 'node:path';
import type { RegisterCommand } from '../context.js';
import { UsageError, ValidationFailed } from '../../errors.js';
import { loadProject } from '../../config/load.js';
import { formatDiagnostic, summarizeDiagnostics } from '../../config/format.js';
import { runSuite, testExitCode } from '../../testrun/suite.js';
import { renderTestJson, renderTestText } from '../../testrun/render.js';
import { NO_TYPESCRIPT_HELP } from '../typescript-option.js';

interface TestFlags {
  format: string;
  concurrency: string;
  typescript: boolean;
}

const FORMATS = ['text', 'json'] as const;

/** `mac test [DIR]`: run the TCP and DNS checks of DIR once from this machine; exit 0 all pass, 1 any fail. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('test')
    .description('run the TCP and DNS checks of DIR once from this machine (exit 0 all pass, 1 any fail)')
    .argument('[dir]', 'project directory holding mac.config.yaml', '.')
    .option('--format <format>', 'output format: text or json', 'text')
    .option('--concurrency <n>', 'checks run at once', '8')
    .option('--no-typescript', NO_TYPESCRIPT_HELP)
    .action(async (dir: string, flags: TestFlags) => {
      const { output } = ctx;
      if (!(FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${flags.format}"`);
      }
      const concurrency = Number(flags.concurrency);
      if (!/^\d+$/.test(flags.concurrency) || concurrency < 1 || concurrency > 256) {
        throw new UsageError(`--concurrency must be an integer within 1..256, not "${flags.concurrency}"`);
      }
      const project = await loadProject(resolve(ctx.cwd, dir), { env: ctx.env, typescript: flags.typescript });
      for (const d of project.diagnostics) output.info(formatDiagnostic(d, output.cErr));
      if (project.diagnostics.some((d) => d.severity === 'error')) {
        throw new ValidationFailed(`invalid definitions: ${summarizeDiagnostics(project.diagnostics)}; no check was run`, { diagnostics: project.diagnostics });
      }
      const report = await runSuite(project.definitions, { concurrency });
      output.result(flags.format === 'json' ? renderTestJson(report) : renderTestText(report, output.c));
      ctx.exit(testExitCode(report));
    });
};
