// `mac plan` as its help shows it: arguments, flags, defaults. What it does is in ../commands/plan.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { PlanFlags } from '../commands/plan.js';
import { PLAN_FORMATS } from '../../render/formats.js';
import { DIR_HELP, formatOption, NO_TYPESCRIPT_HELP, rateLimitOption, withConnectionOptions } from '../flags.js';

/** `mac plan [DIR]`: compare the definitions with the live account; exit 0 (2 = changes with --detailed-exitcode), 1 error. */
export const register: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command('plan')
    .description('show what apply would change in the live account, field by field')
    .argument('[dir]', DIR_HELP, '.')
    .option('--out <file>', 'also write the plan (JSON) to FILE, for `mac apply FILE`')
    .addOption(formatOption(PLAN_FORMATS))
    .option('--detailed-exitcode', 'exit 0 when nothing changes, 2 when something would')
    .option('--prune', 'plan deletes of what this project owns (tagged or recorded) and no longer defines')
    .option('--rewrite-secrets', 'write every secret value again (they cannot be read back to compare): rotates changed secrets')
    .option('--changed-since <ref>', 'list first the changes of files changed since the git revision REF (the plan still covers everything)')
    .option('--only-changed-since <ref>', 'plan only resources defined in files changed since REF (and what they reference); the plan says what it left out')
    .addOption(rateLimitOption())
    .option('--no-typescript', NO_TYPESCRIPT_HELP);
  withConnectionOptions(cmd).action(async (dir: string, flags: PlanFlags) => (await import('../commands/plan.js')).run(ctx, dir, flags));
};
