import { notFound } from './errors.js';
import type { StoredRecord, Transaction } from '../store/store.js';
import type { Store } from '../store/store.js';

/** A record of the caller's account or 404 (missing and foreign look the same). */
export function mustGet<T extends StoredRecord>(source: Store | Transaction, account: string, kind: string, id: string | number): T {
  const rec = 'begin' in source ? source.get<T>(account, kind, id) : source.get<T>(kind, id);
  if (!rec) throw notFound();
  return rec;
}
