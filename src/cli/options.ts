/**
 * How the CLI's options are parsed (through src/config/options.ts, shared with the Action's
 * inputs), and the step every project command starts with: load, report the diagnostics, stop on
 * errors. Loaded with a command's action; how the options are declared is in flags.ts.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RateLimit } from '../api/rate-limit.js';
import { limiterOf, type Limiter } from '../api/window-limit.js';
import { formatDiagnostic, summarizeDiagnostics } from '../config/format.js';
import { loadProject, type LoadOptions } from '../config/load.js';
import type { LoadedProject } from '../config/types.js';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_DELETES, MAX_CONCURRENCY, MAX_LOCK_TIMEOUT, parseCount, parseSeconds, rateLimitFrom, parseChoice } from '../config/options.js';
import { UsageError, ValidationFailed } from '../errors.js';
import { RESULT_FORMATS, type ResultFormat } from '../render/formats.js';
import type { CliContext } from './context.js';
import { usageHint } from './help.js';

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
