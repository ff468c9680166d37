/**
 * The values the CLI's flags and the Action's inputs share, parsed one way: counts, durations,
 * rate limits and choices. Every problem is a UsageError naming the flag or input (`name`) and
 * what it got. Pure: the caller passes the environment.
 */
import type { RateLimit } from '../api/index.js';
import { UsageError } from '../errors.js';

/** Largest count a flag or input accepts unless it says otherwise. */
export const MAX_COUNT = 10_000;
/** Most changes in flight at once (`--concurrency`, input `concurrency`). */
export const MAX_CONCURRENCY = 256;
/** Longest --lock-timeout: a day. */
export const MAX_LOCK_TIMEOUT = 86_400;
/** Changes in flight at once without `--concurrency` (input `concurrency`). */
export const DEFAULT_CONCURRENCY = 8;
/** Deletes a run makes without `--max-deletes` (input `max-deletes`) before it refuses. */
export const DEFAULT_MAX_DELETES = 10;

/** How a parse error continues: a hint line (e.g. `run "mac apply --help" for usage`). */
export interface ParseHint {
  hint?: string;
}

/**
 * A whole number in [min, max] written in decimal digits only (no sign, exponent, fraction or
 * hex: `1e3` is refused); undefined or empty gives `fallback`.
 */
export function parseCount(name: string, value: string | undefined, o: { fallback: number; min: number; max?: number } & ParseHint): number;
export function parseCount(name: string, value: string | undefined, o: { fallback?: undefined; min: number; max?: number } & ParseHint): number | undefined;
export function parseCount(name: string, value: string | undefined, o: { fallback?: number; min: number; max?: number } & ParseHint): number | undefined {
  if (value === undefined || value.trim() === '') return o.fallback;
  const max = o.max ?? MAX_COUNT;
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) < o.min || Number(text) > max) {
    throw new UsageError(`${name} must be a whole number from ${o.min} to ${max}, got "${value}"`, o.hint ? { hint: o.hint } : {});
  }
  return Number(text);
}

/** A duration in whole seconds, 0 to `max`. */
export function parseSeconds(name: string, value: string | undefined, o: { fallback: number; max: number } & ParseHint): number {
  return parseCount(name, value, { ...o, min: 0 });
}

/** `N/SECONDS` (as `mac serve --rate-limit`); `0/SECONDS` means no limit; undefined or empty: none given. */
export function parseRateLimit(value: string | undefined, name: string): RateLimit | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(value);
  if (!m || Number(m[2]) <= 0) throw new UsageError(`${name} must look like N/SECONDS (e.g. 600/60), got "${value}"`, { hint: 'N requests per SECONDS; 0/1 turns the limit off' });
  return { requests: Number(m[1]), perSeconds: Number(m[2]) };
}

/** The rate limit of a run: the flag (or input) when given, else MAC_RATE_LIMIT, else undefined (the client's 600/60). */
export function rateLimitFrom(given: string | undefined, env: Record<string, string | undefined>, name = '--rate-limit'): RateLimit | undefined {
  return given !== undefined && given.trim() !== '' ? parseRateLimit(given, name) : parseRateLimit(env.MAC_RATE_LIMIT, 'MAC_RATE_LIMIT');
}

/** One of `choices`; undefined or empty gives `fallback`. */
export function parseChoice<T extends string>(name: string, value: string | undefined, choices: readonly T[], fallback: T, o?: ParseHint): T;
export function parseChoice<T extends string>(name: string, value: string | undefined, choices: readonly T[], fallback?: undefined, o?: ParseHint): T | undefined;
export function parseChoice<T extends string>(name: string, value: string | undefined, choices: readonly T[], fallback?: T, o: ParseHint = {}): T | undefined {
  if (value === undefined || value.trim() === '') return fallback;
  const v = value.trim();
  if (!(choices as readonly string[]).includes(v)) throw new UsageError(`${name} must be one of ${choices.join(', ')}, got "${value}"`, o.hint ? { hint: o.hint } : {});
  return v as T;
}
