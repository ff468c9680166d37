// `mac test` as its help shows it: arguments, flags, defaults. What it does is in ../commands/test.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { TestFlags } from '../commands/test.js';
import { concurrencyOption, DIR_HELP, formatOption, NO_TYPESCRIPT_HELP } from '../flags.js';

/** The formats of `mac test`. */
export const TEST_FORMATS = ['text', 'json'] as const;
/** Checks `mac test` runs at once unless --concurrency says otherwise. */
export const TEST_CONCURRENCY = 8;

/** `mac test [DIR]`: run the TCP, DNS, URL, API, ICMP, multi-step and browser checks of DIR once from this machine; exit 0 all pass, 1 any fail. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('test')
    .description('run the TCP, DNS, URL, API, ICMP, multi-step and browser checks of DIR once from this machine (exit 0 all pass, 1 any fail)')
    .argument('[dir]', DIR_HELP, '.')
    .addOption(formatOption(TEST_FORMATS))
    .addOption(concurrencyOption('checks run', TEST_CONCURRENCY))
    .option('--no-typescript', NO_TYPESCRIPT_HELP)
    .action(async (dir: string, flags: TestFlags) => (await import('../commands/test.js')).run(ctx, dir, flags));
};
