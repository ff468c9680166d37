import type { Command } from 'commander';
import type { Output } from './output.js';

/** What every command gets from main: output, environment and working directory. */
export interface CliContext {
  output: Output;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Ends a long-running command (`mac serve`) as SIGTERM would, when the CLI runs in
   * another program's process (main() called in process); the process's own signals otherwise.
   */
  stop?: AbortSignal;
  /** Sets the process exit code of this run (the highest code set wins). */
  exit(code: number): void;
}

/**
 * A command's declaration (one file per command in src/cli/declare) registers it on the program:
 * its arguments, flags and help, and an action that imports what it does from src/cli/commands.
 */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
