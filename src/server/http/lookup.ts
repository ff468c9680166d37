import { notFound } from './errors.js';
import { Store, type AccountView, type StoredRecord, type Transaction } from '../store/store.js';

/**
 * A record of the view's account or 404 (missing and foreign look the same). The
 * `(store | transaction, account, kind, id)` form is kept for callers written against the
 * earlier signature; a transaction is already scoped to its account.
 */
export function mustGet<T extends StoredRecord>(view: AccountView, kind: string, id: string | number): T;
export function mustGet<T extends StoredRecord>(source: Store | Transaction, account: string, kind: string, id: string | number): T;
export function mustGet<T extends StoredRecord>(source: AccountView | Store, a: string, b: string | number, c?: string | number): T {
  let rec: T | undefined;
  if (c === undefined) rec = (source as AccountView).get<T>(a, b);
  else rec = source instanceof Store ? source.get<T>(a, String(b), c) : (source as AccountView).get<T>(String(b), c);
  if (!rec) throw notFound();
  return rec;
}
