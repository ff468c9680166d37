// `mac schemas` as its help shows it: arguments, flags, defaults. What it does is in ../commands/schemas.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';

/** `mac schemas [--out DIR]`: writes the JSON Schemas of definitions and mac.config.yaml. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('schemas')
    .description('write the JSON Schemas of definition files and mac.config.yaml (for editors)')
    .option('--out <dir>', 'directory to write into', 'schemas')
    .action(async (opts: { out: string }) => (await import('../commands/schemas.js')).run(ctx, opts));
};
