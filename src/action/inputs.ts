import { DEFAULT_MAX_DELETES } from '../apply/safety.js';
import { UsageError } from '../errors.js';

/** What the action was asked to do, parsed from its `with:` inputs. */
export interface ActionInputs {
  /** Undefined: decided by the event (plan on pull_request, apply otherwise). */
  command?: 'plan' | 'apply';
  dir: string;
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  githubToken?: string;
  comment: boolean;
  prune: boolean;
  maxDeletes: number;
  concurrency?: number;
  /** Undefined: the pull request's base; null: plan everything (`none`). */
  changedSince?: string | null;
}

/** Reads one input by its action.yml name; '' when unset (as @actions/core's getInput). */
export type InputReader = (name: string) => string;

/** Parses and checks the inputs; every problem is a UsageError naming the input. */
export function parseInputs(read: InputReader): ActionInputs {
  const opt = (name: string) => read(name).trim() || undefined;
  const command = opt('command');
  if (command !== undefined && command !== 'plan' && command !== 'apply') {
    throw new UsageError(`input "command" must be plan or apply, not "${command}"`);
  }
  const changedSince = opt('changed-since');
  return {
    command,
    dir: opt('dir') ?? '.',
    apiUrl: opt('api-url'),
    apiKey: opt('api-key'),
    accountId: opt('account-id'),
    githubToken: opt('github-token'),
    comment: bool(read, 'comment', true),
    prune: bool(read, 'prune', false),
    maxDeletes: int(read, 'max-deletes', 0) ?? DEFAULT_MAX_DELETES,
    concurrency: int(read, 'concurrency', 1),
    changedSince: changedSince === 'none' ? null : changedSince,
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
  throw new UsageError(`input "${name}" must be true or false, not "${v}"`);
}

function int(read: InputReader, name: string, min: number): number | undefined {
  const v = read(name).trim();
  if (v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    throw new UsageError(`input "${name}" must be a whole number >= ${min}, not "${v}"`);
  }
  return n;
}
