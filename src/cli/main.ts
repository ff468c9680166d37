import { Command, CommanderError } from 'commander';
import { createOutput, type OutputTarget } from './output.js';
import type { CliContext, RegisterCommand } from './context.js';
import { environmentHelp } from './help.js';
import { MacError, ValidationFailed } from '../errors.js';
import { register as init } from './declare/init.js';
import { register as validate } from './declare/validate.js';
import { register as plan } from './declare/plan.js';
import { register as apply } from './declare/apply.js';
import { register as destroy } from './declare/destroy.js';
import { register as unlock } from './declare/unlock.js';
import { register as importCommand } from './declare/import.js';
import { register as test } from './declare/test.js';
import { register as schemas } from './declare/schemas.js';
import { register as serve } from './declare/serve.js';
import { register as agent } from './declare/agent.js';

/**
 * Every command, in the order of the help. Each is declared (arguments, flags, help) by a light
 * module of ./declare; what it does is in ./commands, imported when it runs: `--help`,
 * `--version` and a usage error load no command's code, and one command loads none of the others'
 * (the service, the plan engine, the API client, zod's schemas).
 */
const COMMANDS: readonly RegisterCommand[] = [init, validate, plan, apply, destroy, unlock, importCommand, test, schemas, serve, agent];

/**
 * Where a run of the CLI reads and writes: its streams and environment, and when main() is called
 * in another program's process, its working directory and a stop signal (see CliContext.stop).
 */
export interface MainTarget extends OutputTarget {
  cwd: string;
  stop: AbortSignal;
}

/** Runs the CLI with argv (as process.argv) and returns the exit code. The only place that decides it. */
export async function main(argv: string[], target?: Partial<MainTarget>): Promise<number> {
  const env = target?.env ?? process.env;
  const output = createOutput({ stdout: target?.stdout ?? process.stdout, stderr: target?.stderr ?? process.stderr, env });
  let exitCode = 0;
  const ctx: CliContext = {
    output,
    env,
    cwd: target?.cwd ?? process.cwd(),
    stop: target?.stop,
    exit(code) {
      exitCode = Math.max(exitCode, code);
    },
  };
  const pkg = await packageInfo();
  const program = new Command('mac')
    .description('monitoring as code: validate, plan and apply monitoring definitions')
    .version(pkg.version, '-V, --version')
    .addHelpText('after', environmentHelp(pkg.homepage))
    .showHelpAfterError(usageHint('mac'))
    .exitOverride()
    .configureOutput({ writeOut: (s) => output.result(s.trimEnd()), writeErr: (s) => output.info(s.trimEnd()) });
  for (const register of COMMANDS) register(program, ctx);
  // A usage error stays one line plus a hint; the whole help would bury the message.
  for (const command of program.commands) {
    command.showHelpAfterError(usageHint(`mac ${command.name()}`));
    showDefaultsAsWritten(command);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end as "errors" with exit code 0 under exitOverride.
      return err.exitCode;
    }
    const code = report(err, ctx);
    // `--format json` promises exactly one JSON document on stdout, failures included.
    if (wantsJson(argv) && !output.wroteResult) output.result(JSON.stringify(errorDocument(err, code)));
    return code;
  }
  return exitCode;
}

/**
 * Commander shows a default as JSON (`(default: "4010")`); flags take their values as strings, so
 * a numeric default would read as a quoted string. Defaults that are numbers (`4010`, `0.5`) or
 * a rate (`600/60`) are shown as written instead: `(default: 4010)`.
 */
function showDefaultsAsWritten(command: Command): void {
  for (const option of command.options) {
    const value: unknown = option.defaultValue;
    if (option.defaultValueDescription === undefined && typeof value === 'string' && /^\d+(?:\.\d+)?(?:\/\d+)?$/.test(value)) {
      option.defaultValueDescription = value;
    }
  }
  for (const sub of command.commands) showDefaultsAsWritten(sub);
}

function wantsJson(argv: string[]): boolean {
  return argv.some((a, i) => a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'));
}

/** The JSON document of a failed run: what stderr said, for machines. */
function errorDocument(err: unknown, exitCode: number): { error: { message: string; hint?: string; exitCode: number; diagnostics?: readonly unknown[] } } {
  if (err instanceof MacError) {
    const diagnostics = err instanceof ValidationFailed && err.diagnostics.length > 0 ? { diagnostics: err.diagnostics } : {};
    return { error: { message: err.message, ...(err.hint ? { hint: err.hint } : {}), exitCode, ...diagnostics } };
  }
  const fsError = fileSystemError(err);
  return { error: { message: fsError ?? 'internal error (details on stderr)', exitCode } };
}

function usageHint(command: string): string {
  return `  hint: run "${command} --help" for usage`;
}

function report(err: unknown, ctx: CliContext): number {
  const { output } = ctx;
  if (err instanceof MacError) {
    output.info(`${output.cErr.red('error:')} ${err.message}`);
    if (err.hint) output.info(`  hint: ${err.hint}`);
    return err.exitCode;
  }
  const fsError = fileSystemError(err);
  if (fsError) {
    output.info(`${output.cErr.red('error:')} ${fsError}`);
    output.info('  hint: check the path, that its folder exists, and that it may be written');
    return 1;
  }
  output.info(`${output.cErr.red('internal error:')} ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  output.info('  hint: this is a bug in mac; please report it with the command you ran');
  return 1;
}

/**
 * A failed file operation on a path the user gave (`--out`, a target) is their environment, not
 * a bug: it gets one line, not a stack. Node's message already names the call and the path.
 */
function fileSystemError(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as Error & { code?: unknown; syscall?: unknown; path?: unknown };
  return typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string' ? e.message : undefined;
}

async function packageInfo(): Promise<{ version: string; homepage: string }> {
  const { readFile } = await import('node:fs/promises');
  return JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; homepage: string };
}
