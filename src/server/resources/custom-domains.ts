import { domainToASCII } from 'node:url';
import type { Store, Transaction } from '../store/store.js';
import { conflict, invalid } from '../http/errors.js';
import { COLL } from '../kinds.js';
import { STATUS_COLL } from '../rundata/collections.js';

/**
 * Custom domains of status pages and dashboards. A request is matched to a page by its `Host`,
 * which names one domain whatever its letter case, trailing dot or Unicode form: so a domain
 * belongs to one page or dashboard of one account at most, compared in that normalized form,
 * across both kinds and every account (an account claiming another's domain in another case
 * would take over its public page).
 */

/** The collections whose records have a `customDomain`, and the field that is their store id. */
const DOMAIN_KINDS: ReadonlyArray<{ coll: string; idField: string }> = [
  { coll: STATUS_COLL.statusPages, idField: 'id' },
  { coll: COLL.dashboards, idField: 'dashboardId' },
];

/** The field a record keeps its domain's normalized form in (for the rule's re-check in a shared database). */
export const DOMAIN_KEY_FIELD = 'customDomainKey';

/**
 * The form two domains are compared in: lower case, no trailing dot, IDN as punycode
 * (`Bücher.Example.` -> `xn--bcher-kva.example`). A text that is no domain name stays lower case.
 */
export function domainKey(domain: string): string {
  const lower = domain.trim().toLowerCase().replace(/\.+$/, '');
  return domainToASCII(lower) || lower;
}

/** Whether a stored `customDomain` names `host` (a request's Host without its port). */
export function sameDomain(stored: unknown, host: string): boolean {
  return typeof stored === 'string' && stored !== '' && domainKey(stored) === domainKey(host);
}

/** The record without the field kept for the uniqueness rule (what the API shows). */
export function withoutDomainKey<T extends Record<string, unknown>>(record: T): T {
  if (!(DOMAIN_KEY_FIELD in record)) return record;
  const { [DOMAIN_KEY_FIELD]: _key, ...rest } = record;
  return rest as T;
}

/** A record's domain key as stored with it: null when it has no domain. */
export function domainKeyOf(domain: unknown): string | null {
  return typeof domain === 'string' && domain !== '' ? domainKey(domain) : null;
}

/**
 * 409 when a status page or dashboard of any account, other than `self` (the record being
 * written, of collection `self.coll`), has the same domain in normalized form; the commit of `tx`
 * checks it again for both collections (on a database shared by several instances, inside its
 * transaction, on the records' `customDomainKey`).
 */
export function claimDomain(store: Store, tx: Transaction, domain: string, self: { coll: string; id: string | undefined }): void {
  // A host name, or nothing a Host header could ever name (control characters, spaces, ...).
  const lower = domain.trim().toLowerCase().replace(/\.+$/, '');
  if (domainToASCII(lower) === '' || !/^[a-z0-9.-]+$/.test(domainToASCII(lower))) throw invalid('payload', 'customDomain', 'must be a host name, e.g. status.example.com');
  const key = domainKey(domain);
  const taken = () => conflict(`Custom domain "${domain}" is already taken`);
  for (const { coll, idField } of DOMAIN_KINDS) {
    for (const { account, record } of store.everywhere<Record<string, unknown>>(coll)) {
      if (coll === self.coll && account === tx.account && record[idField] === self.id) continue;
      if (sameDomain(record.customDomain, key)) throw taken();
    }
    tx.unique(coll, DOMAIN_KEY_FIELD, key, coll === self.coll ? self.id : undefined, taken);
  }
}
