// `mac import` as its help shows it: arguments, flags, defaults. What it does is in ../commands/import.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { ImportFlags } from '../commands/import.js';
import { concurrencyOption, NO_TYPESCRIPT_HELP, rateLimitOption, withConnectionOptions } from '../flags.js';

/** API lists `mac import` reads at once unless --concurrency says otherwise. */
export const IMPORT_CONCURRENCY = 4;

/** `mac import [--out DIR] [--kind KIND ...]`: write definitions for what lives in the account, then prove them. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    program
      .command('import')
      .description('write definitions for what lives in the account, then plan them against it to prove they match')
      .option('--out <dir>', 'project directory to write into (created when missing)', '.')
      .option('--kind <kind...>', 'kinds to import, repeatable or comma-separated (default: all)')
      .option('--project <name>', 'project name of a new mac.config.yaml (default: the directory name)')
      .addOption(concurrencyOption('API lists read', IMPORT_CONCURRENCY))
      .addOption(rateLimitOption())
      .option('--no-typescript', NO_TYPESCRIPT_HELP),
  ).action(async (flags: ImportFlags) => (await import('../commands/import.js')).run(ctx, flags));
};
