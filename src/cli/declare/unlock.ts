// `mac unlock` as its help shows it: arguments, flags, defaults. What it does is in ../commands/unlock.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { UnlockFlags } from '../commands/unlock.js';
import { DIR_HELP, withConnectionOptions } from '../flags.js';

/** `mac unlock [DIR]`: removes a stuck apply lock of the project, saying who held it. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    program
      .command('unlock')
      .description('remove a stuck apply lock of the project (left by an apply that was killed or lost its machine)')
      .argument('[dir]', DIR_HELP, '.')
      .option('--force', 'remove it even when its holder is a running process of this machine'),
  ).action(async (dir: string, flags: UnlockFlags) => (await import('../commands/unlock.js')).run(ctx, dir, flags));
};
