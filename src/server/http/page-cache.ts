import type { Store } from '../store/store.js';

/** One serialized list page: the JSON body as bytes and its headers. */
export interface CachedPage {
  json: Buffer;
  headers: Record<string, string>;
}

// Distinct queries kept per account; past this the account's pages are dropped and rebuilt.
const MAX_PAGES = 32;

/**
 * Serialized pages of one list endpoint per account, valid while every kind the page shows is
 * unchanged (store.version of each). List reads are the hot path of plans and of polling
 * clients; a page is built once per change instead of once per request, and kept as bytes so
 * that answering it neither joins nor encodes a large string.
 */
export class PageCache {
  private readonly accounts = new Map<string, { version: string; pages: Map<string, CachedPage> }>();

  /** `kinds`: every collection whose records the page's JSON depends on. */
  constructor(
    private readonly store: Store,
    private readonly kinds: readonly string[],
  ) {}

  /** The page of `account` for `query` (any string that identifies the parsed query), built by `build` when missing or stale. */
  get(account: string, query: string, build: () => { json: string; headers: Record<string, string> }): CachedPage {
    const version = this.kinds.map((k) => this.store.version(k)).join('/');
    let entry = this.accounts.get(account);
    if (!entry || entry.version !== version) {
      entry = { version, pages: new Map() };
      this.accounts.set(account, entry);
    }
    let page = entry.pages.get(query);
    if (!page) {
      if (entry.pages.size >= MAX_PAGES) entry.pages.clear();
      const built = build();
      page = { json: Buffer.from(built.json, 'utf8'), headers: built.headers };
      entry.pages.set(query, page);
    }
    return page;
  }
}
