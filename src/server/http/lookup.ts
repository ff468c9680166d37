import { notFound } from './errors.js';
import type { AccountView, StoredRecord } from '../store/store.js';

/** A record of the view's account or 404 (missing and foreign look the same). */
export function mustGet<T extends StoredRecord>(view: AccountView, kind: string, id: string | number): T {
  const rec = view.get<T>(kind, id);
  if (!rec) throw notFound();
  return rec;
}
