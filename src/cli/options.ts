/**
 * The CLI's options in one place: how each is declared (the same words on every command, choices
 * and defaults shown as values), how it is parsed (through src/config/options.ts, shared with the
 * Action's inputs), and the step every project command starts with: load, report the
 * diagnostics, stop on errors.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { limiterOf, type Limiter, type RateLimit } from '../api/index.js';
import { DEFAULT_CONCURRENCY } from '../apply/executor.js';
import { DEFAULT_MAX_DELETES } from '../apply/safety.js';
import { DEFAULT_ACCOUNT_HEADER, DEFAULT_API_URL } from '../config/connection.js';
import { formatDiagnostic, summarizeDiagnostics } from '../config/format.js';
import { loadProject, type LoadOptions } from '../config/load.js';
import type { LoadedProject } from '../config/types.js';
import { MAX_CONCURRENCY, MAX_COUNT, MAX_LOCK_TIMEOUT, parseChoice, parseCount, parseSeconds, rateLimitFrom } from '../config/options.js';
import { UsageError, ValidationFailed } from '../errors.js';
import { RESULT_FORMATS, type ResultFormat } from '../render/result-index.js';
import type { CliContext } from './context.js';

export { MAX_LOCK_TIMEOUT } from '../config/options.js';
// Light enough for every start (main.ts, mac serve): in a module of their own.
export { environmentHelp, usageHint } from './help.js';
import { usageHint } from './help.js';


// ---------------------------------------------------------------------------------------------
// Declarations: one help text per option.

/** Help of `--no-typescript`, the same on every command that loads a project. */
export const NO_TYPESCRIPT_HELP = 'refuse a project holding *.mac.ts files (they are code and run when loaded); for untrusted changes';

/** The positional project directory of the commands that load one. */
export const DIR_HELP = 'project directory holding mac.config.yaml';

/** `--format <format>` with its choices and default listed. */
export function formatOption(choices: readonly string[], what = 'output format'): Option {
  return new Option('--format <format>', `${what}: ${choices.join(', ')} (default: ${choices[0]})`);
}

/** `--concurrency <n>`: `what` says what runs at once. */
export function concurrencyOption(what: string, fallback: number): Option {
  return new Option('--concurrency <n>', `${what} at once, 1 to ${MAX_CONCURRENCY} (default: ${fallback})`);
}

/** `--max-deletes <n>`. */
export function maxDeletesOption(): Option {
  return new Option('--max-deletes <n>', `refuse when more than N resources would be deleted, 0 to ${MAX_COUNT} (default: ${DEFAULT_MAX_DELETES})`);
}

/** `--rate-limit <n/seconds>`. */
export function rateLimitOption(): Option {
  return new Option('--rate-limit <n/seconds>', 'at most N requests per SECONDS, 0/SECONDS for no limit (env MAC_RATE_LIMIT; default: 600/60)');
}

/** `--lock-timeout <seconds>`. */
export function lockTimeoutOption(): Option {
  return new Option('--lock-timeout <seconds>', `wait up to SECONDS for another apply of the project to end, 0 to ${MAX_LOCK_TIMEOUT} (default: 0, refuse at once naming the holder)`);
}

/** The flags of a command that writes through the apply executor (apply, destroy); `what` runs at once. */
export function withRunOptions(cmd: Command, what: string): Command {
  return cmd
    .addOption(maxDeletesOption())
    .addOption(concurrencyOption(what, DEFAULT_CONCURRENCY))
    .addOption(rateLimitOption())
    .addOption(lockTimeoutOption())
    .addOption(formatOption(RESULT_FORMATS, 'result format'))
    .option('--no-typescript', NO_TYPESCRIPT_HELP);
}

/** Adds --api-url, --api-key, --account-id and --account-header to a command that talks to the API. */
export function withConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--api-url <url>', `monitoring API base URL (env MAC_API_URL; default: ${DEFAULT_API_URL}, where mac serve listens)`)
    .option('--api-key <key>', 'API key (env MAC_API_KEY; default: the dev key of mac serve, at the default URL only)')
    .option('--account-id <id>', 'account id, sent in the account header (env MAC_ACCOUNT_ID)')
    .option('--account-header <name>', `header the account id is sent in: ${DEFAULT_ACCOUNT_HEADER} for mac serve, x-checkly-account for the reference API (env MAC_ACCOUNT_HEADER; default: ${DEFAULT_ACCOUNT_HEADER})`);
}


// ---------------------------------------------------------------------------------------------
// Parsing: flags as commander hands them over (strings) into typed values.

/** The flags every API command may carry, as commander hands them over. */
export interface RunFlags {
  format?: string;
  concurrency?: string;
  maxDeletes?: string;
  rateLimit?: string;
  lockTimeout?: string;
}

/** The typed values of the shared flags of `command`. */
export interface RunOptions {
  format: ResultFormat;
  concurrency: number;
  maxDeletes: number;
  rateLimit?: RateLimit;
  lockTimeout: number;
}

/** Parses the shared flags of an apply-like command (apply, destroy). */
export function runOptions(command: string, flags: RunFlags, env: Record<string, string | undefined>): RunOptions {
  const hint = usageHint(command);
  return {
    format: parseChoice('--format', flags.format, RESULT_FORMATS, 'text', { hint }),
    maxDeletes: parseCount('--max-deletes', flags.maxDeletes, { fallback: DEFAULT_MAX_DELETES, min: 0, hint }),
    concurrency: parseCount('--concurrency', flags.concurrency, { fallback: DEFAULT_CONCURRENCY, min: 1, max: MAX_CONCURRENCY, hint }),
    lockTimeout: parseSeconds('--lock-timeout', flags.lockTimeout, { fallback: 0, max: MAX_LOCK_TIMEOUT, hint }),
    rateLimit: rateLimitFrom(flags.rateLimit, env),
  };
}

/**
 * Sockets the API client keeps for a run of `concurrency` changes in flight: at least one per
 * change in flight (one request per socket, no pipelining), and two spare ones, so that the lock's
 * renewal never makes a write wait for a socket. Never fewer than the client's default 16.
 */
export function connectionsFor(concurrency: number): number {
  return Math.max(16, concurrency + 2);
}

/** The limiter of a run given `--rate-limit`; undefined leaves the client's default (600/60). */
export function limiterFor(limit: RateLimit | undefined): Limiter | undefined {
  return limit === undefined ? undefined : limiterOf(limit);
}

/** The flags of `mac apply` as commander hands them over. */
export interface ApplyFlags extends RunFlags {
  yes?: boolean;
  prune?: boolean;
  rewriteSecrets?: boolean;
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  accountHeader?: string;
  /** false with --no-typescript: *.mac.ts files are refused. */
  typescript?: boolean;
}

/** Typed options of one `mac apply` run. */
export interface ApplyCommandOptions extends RunOptions {
  target: { type: 'dir'; dir: string } | { type: 'planfile'; file: string };
  yes: boolean;
  prune: boolean;
}

/** Turns the flags of `mac apply`, its positional target and the environment into typed options. */
export async function applyOptions(
  target: string | undefined,
  flags: ApplyFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<ApplyCommandOptions> {
  const shared = runOptions('apply', flags, env);
  const path = resolve(cwd, target ?? '.');
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`${target ?? '.'} does not exist`, { hint: 'pass a project directory (with mac.config.yaml) or a plan file written by mac plan --out' });
  return {
    target: info.isDirectory() ? { type: 'dir', dir: path } : { type: 'planfile', file: path },
    yes: flags.yes === true,
    prune: flags.prune === true,
    ...shared,
  };
}

// ---------------------------------------------------------------------------------------------
// Load, report, stop.

/** Loads the project in `dir` (relative to the working directory) and prints its diagnostics on stderr. */
export async function loadReported(ctx: CliContext, dir: string, typescript: boolean | undefined, extra: Pick<LoadOptions, 'onFilesRead'> = {}): Promise<LoadedProject> {
  const project = await loadProject(resolve(ctx.cwd, dir), { env: ctx.env, typescript: typescript !== false, ...extra });
  for (const d of project.diagnostics) ctx.output.info(formatDiagnostic(d, ctx.output.cErr));
  return project;
}

/**
 * Loads and reports as `loadReported`, then stops with ValidationFailed when any diagnostic is an
 * error; `consequence` says what did not happen (e.g. "no request was made").
 */
export async function loadValid(
  ctx: CliContext,
  dir: string,
  typescript: boolean | undefined,
  consequence: string,
  extra: Pick<LoadOptions, 'onFilesRead'> = {},
): Promise<LoadedProject> {
  const project = await loadReported(ctx, dir, typescript, extra);
  if (project.diagnostics.some((d) => d.severity === 'error')) {
    throw new ValidationFailed(`invalid definitions: ${summarizeDiagnostics(project.diagnostics)}; ${consequence}`, { diagnostics: project.diagnostics });
  }
  return project;
}
