/** Query parameters shared by the run-data routes. */
import { z } from 'zod';
import { stringParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { COLL } from '../kinds.js';
import type { Store } from '../store/store.js';

/** A unix time (seconds, or ms above 10^11): a non-negative number. */
export function unixParam() {
  return stringParam()
    .pipe(z.string().regex(/^\d+(?:\.\d+)?$/, { error: 'must be a unix timestamp' }))
    .transform(Number)
    // The latest time a date can hold (8.64e15 ms; read as seconds up to 1e11, as ms above).
    .pipe(z.number().max(8.64e15, { error: 'must be a unix timestamp' }));
}

/** An ISO 8601 date or date-time, read as epoch ms. */
export function dateParam() {
  return stringParam()
    .pipe(z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date or date-time' }))
    .transform((s) => Date.parse(s));
}

/** The check fields the read endpoints echo. */
export interface CheckRef {
  [key: string]: unknown;
  id: string;
  name: string;
  checkType: string;
  activated: boolean;
  muted: boolean;
  frequency: number;
  tags: string[];
}

/** A check of the caller's account, or 404 (missing and foreign alike). */
export function mustCheck(store: Store, account: string, checkId: string): CheckRef {
  return mustGet<CheckRef>(store.view(account), COLL.checks, checkId);
}
