/**
 * How the CLI's shared options are declared: the same words on every command, choices and
 * defaults shown as values. Read at every start (each command's declaration in ./declare), so
 * it imports constants only: parsing is in options.ts, loaded with the command's action.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_ACCOUNT_HEADER, DEFAULT_API_URL } from '../config/connection.js';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_DELETES, MAX_CONCURRENCY, MAX_COUNT, MAX_LOCK_TIMEOUT } from '../config/options.js';
import { RESULT_FORMATS } from '../render/formats.js';

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
