/**
 * The public pages by their address: status pages by `url`, dashboards by `customUrl`, either by
 * its `customDomain`. A request's page is found in maps held in memory, rebuilt when the kind's
 * version changes (any write of a status page or dashboard, in any account, on any instance), so a
 * visit reads nothing of the store to find its page. On a shared database the records are read
 * off the main thread (Store.everywhereAsync) and the version is the followed one
 * (Store.followedVersion: no database read; what another instance wrote is seen after the next
 * Store.followOthers, this instance's own writes at once).
 */
import type { Store, StoredRecord } from '../store/store.js';
import { domainKey } from '../resources/custom-domains.js';

/** A record found, and its account. */
export type Found<T> = { account: string; record: T } | undefined;

interface Index<T> {
  version: number;
  byAddress: Map<string, { account: string; record: T }>;
  byDomain: Map<string, { account: string; record: T }>;
}

export class PageDirectory<T extends StoredRecord> {
  private index: Index<T> | undefined;
  private building: { version: number; done: Promise<Index<T>> } | undefined;

  /** `address`: the field that holds the page's path segment (`url`, `customUrl`). */
  constructor(
    private readonly store: Store,
    private readonly kind: string,
    private readonly address: string,
  ) {}

  /** The page at `/{kind's prefix}/{address}`, or undefined. */
  async byAddress(address: string): Promise<Found<T>> {
    return (await this.current()).byAddress.get(address);
  }

  /** The page whose custom domain is `host` (a request's Host without its port), or undefined. */
  async byDomain(host: string): Promise<Found<T>> {
    return (await this.current()).byDomain.get(domainKey(host));
  }

  /** The maps as of the kind's version now: those held, or built again (one build at a time per version). */
  private current(): Promise<Index<T>> | Index<T> {
    const version = this.store.followedVersion(this.kind);
    if (this.index?.version === version) return this.index;
    if (this.building?.version === version) return this.building.done;
    const done = this.build(version);
    const building = { version, done };
    this.building = building;
    void done.then(
      () => {
        if (this.building === building) this.building = undefined;
      },
      () => {
        if (this.building === building) this.building = undefined;
      },
    );
    return done;
  }

  private async build(version: number): Promise<Index<T>> {
    // Read after the version was taken: the records are at least as new as it says.
    const all = await this.store.everywhereAsync<T>(this.kind);
    const byAddress = new Map<string, { account: string; record: T }>();
    const byDomain = new Map<string, { account: string; record: T }>();
    // In creation order, the first record of an address or domain wins (the uniqueness rules keep one anyway).
    for (const found of all) {
      const address = found.record[this.address];
      if (typeof address === 'string' && !byAddress.has(address)) byAddress.set(address, found);
      const domain = found.record.customDomain;
      if (typeof domain === 'string' && domain !== '') {
        const key = domainKey(domain);
        if (!byDomain.has(key)) byDomain.set(key, found);
      }
    }
    const index: Index<T> = { version, byAddress, byDomain };
    // A newer build that finished first is kept (versions only grow).
    if (!this.index || this.index.version <= version) this.index = index;
    return index;
  }
}
