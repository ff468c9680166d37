import type { KindApi, KindSpec } from './types.js';

/** The API of a kind kept in one collection: list and POST at `base`; PUT, GET and DELETE at `base/{id}`. */
export function collectionApi(base: string): KindApi {
  const item = (id: string | number) => `${base}/${encodeURIComponent(String(id))}`;
  return {
    list: base,
    create: { method: 'POST', path: base },
    update: (id) => ({ method: 'PUT', path: item(id) }),
    item,
  };
}

/** What a kind without a shared list, write-only fields, secrets or notes has: none of them. */
export const PLAIN_KIND: Pick<KindSpec, 'accepts' | 'writeOnly' | 'unreadableSecrets' | 'sensitive' | 'notes'> = {
  accepts: () => true,
  writeOnly: [],
  unreadableSecrets: () => [],
  sensitive: () => [],
  notes: () => [],
};
