import { DEFAULT_MAX_DELETES, MAX_CONCURRENCY, MAX_LOCK_TIMEOUT, parseChoice, parseCount, parseSeconds } from '../config/options.js';
import { UsageError } from '../errors.js';
import { parseAccountHeader } from '../config/connection.js';

/** What the action was asked to do, parsed from its `with:` inputs. */
export interface ActionInputs {
  /** Undefined: decided by the event (plan on pull_request, apply otherwise). */
  command?: 'plan' | 'apply';
  dir: string;
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  /** The header the account id is sent in (as `--account-header`); undefined: MAC_ACCOUNT_HEADER, else x-service-account. */
  accountHeader?: string;
  githubToken?: string;
  comment: boolean;
  prune: boolean;
  maxDeletes: number;
  concurrency?: number;
  /** Highlight the changes of files changed since this ref. Undefined: the pull request's base; null: no highlight (`none`). */
  changedSince?: string | null;
  /** Narrow the plan to files changed since this ref (as `--only-changed-since`). */
  onlyChangedSince?: string;
  /** `*.mac.ts` files: allow, deny, or auto (deny on a pull request from a fork). */
  typescript: 'allow' | 'deny' | 'auto';
  /** Apply this saved plan (the `mac plan --out` format) exactly, as `mac apply FILE`. */
  planFile?: string;
  /** Seconds an apply waits for another apply of the project to end before it fails naming the holder. */
  lockTimeout: number;
}

/** How long an apply of the Action waits for another apply of the project by default (two merges in a row). */
export const DEFAULT_ACTION_LOCK_TIMEOUT = 300;

/** Reads one input by its action.yml name; '' when unset (as @actions/core's getInput). */
export type InputReader = (name: string) => string;

/** Parses and checks the inputs; every problem is a UsageError naming the input. */
export function parseInputs(read: InputReader): ActionInputs {
  const opt = (name: string) => read(name).trim() || undefined;
  const command = parseChoice('input "command"', read('command'), ['plan', 'apply'] as const);
  const changedSince = opt('changed-since');
  const onlyChangedSince = opt('only-changed-since');
  if (changedSince !== undefined && changedSince !== 'none' && onlyChangedSince !== undefined) {
    throw new UsageError('inputs "changed-since" and "only-changed-since" exclude each other', {
      hint: 'changed-since highlights the changed files in a plan of everything; only-changed-since narrows the plan to them',
    });
  }
  const typescript = parseChoice('input "typescript"', read('typescript'), ['allow', 'deny', 'auto'] as const, 'auto');
  const planFile = opt('plan-file');
  if (planFile !== undefined && command === 'plan') {
    throw new UsageError('input "plan-file" applies a saved plan; it cannot be used with command: plan');
  }
  return {
    command,
    dir: opt('dir') ?? '.',
    apiUrl: opt('api-url'),
    apiKey: opt('api-key'),
    accountId: opt('account-id'),
    accountHeader: opt('account-header') === undefined ? undefined : parseAccountHeader('input "account-header"', read('account-header')),
    githubToken: opt('github-token'),
    comment: bool(read, 'comment', true),
    prune: bool(read, 'prune', false),
    // The same numbers as `mac apply --max-deletes` and `--concurrency`.
    maxDeletes: parseCount('input "max-deletes"', read('max-deletes'), { fallback: DEFAULT_MAX_DELETES, min: 0 }),
    concurrency: parseCount('input "concurrency"', read('concurrency'), { min: 1, max: MAX_CONCURRENCY }),
    changedSince: changedSince === 'none' || onlyChangedSince !== undefined ? null : changedSince,
    onlyChangedSince,
    typescript,
    planFile,
    lockTimeout: parseSeconds('input "lock-timeout"', read('lock-timeout'), { fallback: DEFAULT_ACTION_LOCK_TIMEOUT, max: MAX_LOCK_TIMEOUT }),
  };
}

// The YAML 1.2 core booleans, as @actions/core's getBooleanInput accepts them.
const TRUE = new Set(['true', 'True', 'TRUE']);
const FALSE = new Set(['false', 'False', 'FALSE']);

function bool(read: InputReader, name: string, fallback: boolean): boolean {
  const v = read(name).trim();
  if (v === '') return fallback;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new UsageError(`input "${name}" must be true or false, got "${v}"`);
}
