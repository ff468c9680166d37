/**
 * The apply lock lives in the account as an environment variable (the API's only create that
 * answers 409 when the key is taken). Its keys are reserved: plans, imports and definitions
 * never see them. One predicate, used by the variable kind's list filter, the import and the
 * rules of the loader.
 */

/** Prefix of every lock variable's key. */
export const LOCK_VARIABLE_PREFIX = 'MAC_LOCK_';

/** The key of a project's lock: `MAC_LOCK_` + the project name upper-cased, `-` as `_` (project names are [a-z0-9-], so it is one-to-one). */
export function lockVariableKey(project: string): string {
  return LOCK_VARIABLE_PREFIX + project.toUpperCase().replace(/-/g, '_');
}

/** Whether a variable key is an apply lock (of any project): such a variable is never planned, imported, pruned or defined. */
export function isLockVariable(key: unknown): boolean {
  return typeof key === 'string' && key.startsWith(LOCK_VARIABLE_PREFIX);
}

/** Prefix of every ownership record's key: `MAC_OWNED_<PROJECT>` lists the API ids a project manages of the kinds without tags. */
export const OWNED_VARIABLE_PREFIX = 'MAC_OWNED_';

/** The key of a project's ownership record (same form as its lock key). */
export function ownedVariableKey(project: string): string {
  return OWNED_VARIABLE_PREFIX + project.toUpperCase().replace(/-/g, '_');
}

/** Whether a variable key is mac's own bookkeeping (a lock or an ownership record): never planned, imported, pruned or defined. */
export function isReservedVariable(key: unknown): boolean {
  return isLockVariable(key) || (typeof key === 'string' && key.startsWith(OWNED_VARIABLE_PREFIX));
}
