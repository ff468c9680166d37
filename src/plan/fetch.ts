import type { ApiClient } from '../api/client.js';
import { listAll } from '../api/paginate.js';
import type { Kind } from '../schema/kinds.js';
import { kindSpec } from './kinds/index.js';

/** The live objects of each fetched kind, as the API returned them. */
export type LiveState = Map<Kind, Record<string, unknown>[]>;

/**
 * Fetches the live objects of `kinds`: one paginated list per distinct list endpoint (the four
 * check kinds share /v1/checks), all lists at once. Lists carry full objects, so no item GETs.
 */
export async function fetchLive(client: ApiClient, kinds: Iterable<Kind>): Promise<LiveState> {
  const byList = new Map<string, Kind[]>();
  for (const kind of new Set(kinds)) {
    const list = kindSpec(kind).api.list;
    byList.set(list, [...(byList.get(list) ?? []), kind]);
  }
  const state: LiveState = new Map();
  await Promise.all(
    [...byList].map(async ([list, listKinds]) => {
      const items = await listAll<Record<string, unknown>>(client, list);
      for (const kind of listKinds) state.set(kind, items.filter((item) => kindSpec(kind).accepts(item)));
    }),
  );
  return state;
}
