import type { ApiClient } from '../api/client.js';
import { listAll, listCursor, type ListOptions } from '../api/paginate.js';
import type { Query } from '../api/client.js';
import type { KindApi } from '../kinds/types.js';
import { KINDS, type Kind } from '../schema/kinds.js';
import { kindSpec } from '../kinds/index.js';

/** The live objects of each fetched kind, as the API returned them. */
export type LiveState = Map<Kind, Record<string, unknown>[]>;

/**
 * Fetches the live objects of `kinds`: one paginated list per distinct list endpoint, all lists
 * at once. Lists carry full objects, so no item GETs. The four check kinds share /v1/checks, so
 * fetching one check kind yields all four (owned checks of a kind no longer defined included).
 * `prefetched` holds lists already read whole, by list path.
 */
export async function fetchLive(client: ApiClient, kinds: Iterable<Kind>, prefetched: ReadonlyMap<string, Record<string, unknown>[] | Promise<Record<string, unknown>[]>> = new Map()): Promise<LiveState> {
  const lists = new Set([...kinds].map((k) => kindSpec(k).api.list));
  const byList = new Map<string, Kind[]>();
  for (const kind of KINDS) {
    const list = kindSpec(kind).api.list;
    if (lists.has(list)) byList.set(list, [...(byList.get(list) ?? []), kind]);
  }
  const state: LiveState = new Map();
  await Promise.all(
    [...byList].map(async ([list, listKinds]) => {
      // A list already read whole (the variables, for the ownership records) is not read again.
      const items = (await prefetched.get(list)) ?? (await listLive(client, kindSpec(listKinds[0]!).api, {}, { idOf: kindSpec(listKinds[0]!).remoteId }));
      for (const kind of listKinds) state.set(kind, items.filter((item) => kindSpec(kind).accepts(item)));
    }),
  );
  return state;
}

/** Every object of a kind's list, page-based or cursor-based as the kind's API says. */
export function listLive(client: ApiClient, api: KindApi, query: Query = {}, options: ListOptions = {}): Promise<Record<string, unknown>[]> {
  return api.cursor ? listCursor(client, api.list, query, { idOf: options.idOf }) : listAll(client, api.list, query, options);
}
