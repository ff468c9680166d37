import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { limiterOf, type Limiter, type RateLimit } from '../api/index.js';
import { UsageError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../apply/executor.js';
import { DEFAULT_MAX_DELETES } from '../apply/safety.js';
import { RESULT_FORMATS, type ResultFormat } from '../render/result-index.js';

/** The flags of `mac apply` as commander hands them over. */
export interface ApplyFlags {
  yes?: boolean;
  prune?: boolean;
  rewriteSecrets?: boolean;
  maxDeletes?: string;
  concurrency?: string;
  format?: string;
  rateLimit?: string;
  lockTimeout?: string;
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  /** false with --no-typescript: *.mac.ts files are refused. */
  typescript?: boolean;
}

/** Typed options of one `mac apply` run. */
export interface ApplyCommandOptions {
  target: { type: 'dir'; dir: string } | { type: 'planfile'; file: string };
  yes: boolean;
  prune: boolean;
  maxDeletes: number;
  concurrency: number;
  format: ResultFormat;
  rateLimit?: RateLimit;
  /** Seconds to wait for the project's apply lock; 0 refuses at once when it is held. */
  lockTimeout: number;
}

/** Longest --lock-timeout: a day. */
export const MAX_LOCK_TIMEOUT = 86_400;

const USAGE_HINT = 'run "mac apply --help" for usage';

/** Parses a whole number flag in [min, max]. */
export function parseCount(flag: string, value: string | undefined, fallback: number, min: number, max = 10_000): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`, { hint: USAGE_HINT });
  }
  return Number(value);
}

/** Parses `N/SECONDS` (as `mac serve --rate-limit`); `0/SECONDS` means no limit. */
export function parseRateLimit(value: string | undefined, source: string): RateLimit | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(value);
  if (!m || Number(m[2]) <= 0) throw new UsageError(`${source} must look like N/SECONDS (e.g. 600/60), got "${value}"`, { hint: 'N requests per SECONDS; 0/1 turns the limit off' });
  return { requests: Number(m[1]), perSeconds: Number(m[2]) };
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

/** Turns flags, the positional target and the environment into typed options. */
export async function applyOptions(
  target: string | undefined,
  flags: ApplyFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<ApplyCommandOptions> {
  const format = (flags.format ?? 'text') as ResultFormat;
  if (!RESULT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${RESULT_FORMATS.join(', ')}, got "${flags.format}"`, { hint: USAGE_HINT });
  const path = resolve(cwd, target ?? '.');
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`${target ?? '.'} does not exist`, { hint: 'pass a project directory (with mac.config.yaml) or a plan file written by mac plan --out' });
  return {
    target: info.isDirectory() ? { type: 'dir', dir: path } : { type: 'planfile', file: path },
    yes: flags.yes === true,
    prune: flags.prune === true,
    maxDeletes: parseCount('--max-deletes', flags.maxDeletes, DEFAULT_MAX_DELETES, 0),
    concurrency: parseCount('--concurrency', flags.concurrency, DEFAULT_CONCURRENCY, 1, 256),
    format,
    lockTimeout: parseCount('--lock-timeout', flags.lockTimeout, 0, 0, MAX_LOCK_TIMEOUT),
    rateLimit: flags.rateLimit !== undefined ? parseRateLimit(flags.rateLimit, '--rate-limit') : parseRateLimit(env.MAC_RATE_LIMIT, 'MAC_RATE_LIMIT'),
  };
}
