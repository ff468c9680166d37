import type { Command } from 'commander';
import type { Output } from './output.js';

/** What every command gets from main: output, environment and working directory. */
export interface CliContext {
  output: Output;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Sets the process exit code of this run (the highest code set wins). */
  exit(code: number): void;
}

/** A command module registers itself on the program. One file per command in src/cli/commands. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
