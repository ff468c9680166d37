import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** A stored access key: the raw value is never stored, only its masked form. */
export interface StoredKey {
  [key: string]: unknown;
  id: string;
  maskedKey: string;
  created_at: string;
  updated_at: string | null;
}

/** A new key (`pl_` / `dk_` + 32 hex, api-decisions §1.7): what to store, and the raw value to show once. */
export function newKey(prefix: 'pl_' | 'dk_', now: string): { stored: StoredKey; rawKey: string } {
  const rawKey = `${prefix}${randomBytes(16).toString('hex')}`;
  return { stored: { id: randomUUID(), maskedKey: `...${rawKey.slice(-4)}`, created_at: now, updated_at: null }, rawKey };
}

/** The key as shown by the request that created it: with `rawKey`. */
export function withRawKey(key: StoredKey, rawKey: string): Record<string, unknown> {
  return { id: key.id, rawKey, maskedKey: key.maskedKey, created_at: key.created_at, updated_at: key.updated_at };
}

/** sha256 hex of a raw key: what the store keeps to check a dashboard key it never stores raw. */
export function hashKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}
