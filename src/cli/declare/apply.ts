// `mac apply` as its help shows it: arguments, flags, defaults. What it does is in ../commands/apply.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { ApplyFlags } from '../options.js';
import { withConnectionOptions, withRunOptions } from '../flags.js';

/** `mac apply [DIR|PLANFILE]`: plans (or reads a saved plan) and makes the account match it. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    withRunOptions(
      program
        .command('apply')
        .description('apply a project directory (plan, confirm, apply) or a plan file written by `mac plan --out`')
        .argument('[target]', 'project directory with mac.config.yaml, or a saved plan file', '.')
        .option('--yes', 'apply without asking (required without a terminal)')
        .option('--prune', 'delete what this project owns (tagged or recorded) and no longer defines (DIR only)')
        .option('--rewrite-secrets', 'write every secret value again, to push rotated secrets (DIR only)'),
      'changes in flight',
    ),
  ).action(async (target: string, flags: ApplyFlags) => (await import('../commands/apply.js')).run(ctx, target, flags));
};
