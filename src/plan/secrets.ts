import type { Kind } from '../schema/kinds.js';
import { SENSITIVE } from './desired.js';
import { kindSpec } from '../kinds/index.js';
import { getAt, isWithin } from '../json/pointer.js';
import type { PatchOp } from './types.js';

/** What a plan tells about the secret values of a resource, which the API never returns. */
export function secretNotes(kind: Kind, body: Record<string, unknown>, rewrite: boolean): string[] {
  const paths = kindSpec(kind).unreadableSecrets(body);
  if (paths.length === 0) return [];
  if (rewrite) return [`secret values (${paths.join(', ')}) are written again (--rewrite-secrets): the live values cannot be read back, so mac sends the current ones`];
  return [
    `secret values (${paths.join(', ')}) cannot be read back: never compared; mac writes them on create and on every update of this ${kind}; to push a changed value alone, plan or apply with --rewrite-secrets`,
  ];
}

/**
 * The operations that write every unreadable secret of `body` again (`--rewrite-secrets`):
 * one replace per secret the live object holds and `patch` does not already touch, shown as
 * "(sensitive) -> (sensitive)".
 */
export function rewriteSecretOps(kind: Kind, body: Record<string, unknown>, live: Record<string, unknown>, patch: readonly PatchOp[]): PatchOp[] {
  return kindSpec(kind)
    .unreadableSecrets(body)
    .filter((path) => getAt(live, path) !== undefined)
    .filter((path) => !patch.some((op) => isWithin(op.path, path) || isWithin(path, op.path)))
    .map((path) => ({ op: 'replace' as const, path, value: SENSITIVE, oldValue: SENSITIVE }));
}
