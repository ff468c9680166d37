// `mac validate` as its help shows it: arguments, flags, defaults. What it does is in ../commands/validate.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import { DIR_HELP, NO_TYPESCRIPT_HELP } from '../flags.js';

/**
 * `mac validate [DIR]`: load, validate and resolve references without HTTP; exit 0 valid, 1 invalid.
 * A *.mac.ts file is code and runs while loading; --no-typescript refuses it.
 */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('validate')
    .description('load and validate the definitions of DIR without any HTTP request (exit 0 valid, 1 invalid); a *.mac.ts file is code and runs, --no-typescript refuses it')
    .argument('[dir]', DIR_HELP, '.')
    .option('--no-typescript', NO_TYPESCRIPT_HELP)
    .action(async (dir: string, flags: { typescript: boolean }) => (await import('../commands/validate.js')).run(ctx, dir, flags));
};
