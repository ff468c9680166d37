// `mac destroy` as its help shows it: arguments, flags, defaults. What it does is in ../commands/destroy.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { DestroyFlags } from '../commands/destroy.js';
import { DIR_HELP, withConnectionOptions, withRunOptions } from '../flags.js';

/** `mac destroy [DIR]`: deletes everything the project manages; exit 0 done, 1 error, refusal or failure. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    withRunOptions(
      program
        .command('destroy')
        .description('delete everything the project manages (what it defines, tags or records), and the incidents and subscriptions that block those deletes')
        .argument('[dir]', DIR_HELP, '.')
        .option('--yes', 'delete without asking (required without a terminal)'),
      'deletes in flight',
    ),
  ).action(async (dir: string, flags: DestroyFlags) => (await import('../commands/destroy.js')).run(ctx, dir, flags));
};
