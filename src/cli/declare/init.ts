// `mac init` as its help shows it: arguments, flags, defaults. What it does is in ../commands/init.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { InitFlags } from '../commands/init.js';

/** `mac init [DIR] [--github] [--project NAME]`: writes a starter project; never overwrites a file. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('init')
    .description('write a starter project into DIR (mac.config.yaml, one TCP, DNS and heartbeat check, an alert channel); never overwrites a file')
    .argument('[dir]', 'project directory to create or fill', '.')
    .option('--project <name>', 'project name (default: the directory name, lower-cased, other characters as -)')
    .option('--github', 'also write the plan, apply and drift workflows under .github/workflows/ of the working directory')
    .option('--typescript', 'also write a typed *.mac.ts check and a tsconfig.json with which `npx tsc -p DIR` type-checks every *.mac.ts file against the package\'s types')
    .action(async (dir: string, flags: InitFlags) => (await import('../commands/init.js')).run(ctx, dir, flags));
};
