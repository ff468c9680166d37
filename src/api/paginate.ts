import { MacError } from '../errors.js';
import type { ApiClient, Query } from './client.js';

/** Items per page the engine asks for (the API's maximum). */
export const PAGE_SIZE = 100;

/** Reads the total of a `content-range: 0-99/250` (or `*\/250`) header. */
export function totalFromContentRange(header: string | undefined): number | undefined {
  const m = header === undefined ? null : /(\d+)$/.exec(header.trim());
  return m ? Number(m[1]) : undefined;
}

/**
 * Every item of a page-based list (api-decisions §1.4): the first page, then all remaining
 * pages at once from the content-range total. Without the header, pages are read one by one
 * until a short page. A caller that knows at least `atLeast` items exist (objects it just
 * wrote) has their pages asked for together with the first, saving a round trip.
 */
export async function listAll<T>(client: ApiClient, path: string, query: Query = {}, atLeast = 0): Promise<T[]> {
  const page = (n: number) => client.request<T[]>('GET', path, { query: { ...query, limit: PAGE_SIZE, page: n } });
  const known = Math.max(1, Math.ceil(atLeast / PAGE_SIZE));
  const [first, ...early] = await Promise.all(Array.from({ length: known }, (_, i) => page(i + 1)));
  const items = asArray<T>(first!.body, path).concat(...early.map((r) => asArray<T>(r.body, path)));
  const total = totalFromContentRange(first!.headers['content-range']);
  if (total !== undefined) {
    const pages = Math.ceil(total / PAGE_SIZE);
    const rest = await Promise.all(
      Array.from({ length: Math.max(0, pages - known) }, (_, i) =>
        client.get<T[]>(path, { ...query, limit: PAGE_SIZE, page: known + i + 1 }).then((body) => asArray<T>(body, path)),
      ),
    );
    return items.concat(...rest);
  }
  let last = asArray<T>((early.at(-1) ?? first!).body, path);
  for (let n = known + 1; last.length === PAGE_SIZE; n++) {
    last = asArray<T>(await client.get<T[]>(path, { ...query, limit: PAGE_SIZE, page: n }), path);
    items.push(...last);
  }
  return items;
}

/** The envelope of cursor lists (status pages, services, incidents). */
interface CursorPage<T> {
  entries: T[];
  nextId: string | number | null;
}

/** Every item of a cursor list: follows `nextId` until it is null. */
export async function listCursor<T>(client: ApiClient, path: string, query: Query = {}): Promise<T[]> {
  const items: T[] = [];
  let nextId: string | undefined;
  do {
    const page = await client.get<CursorPage<T>>(path, { ...query, limit: PAGE_SIZE, nextId });
    if (!page || !Array.isArray(page.entries)) throw new MacError(`GET ${path}: expected a cursor list {entries, nextId}`);
    items.push(...page.entries);
    nextId = page.nextId === null || page.nextId === undefined ? undefined : String(page.nextId);
  } while (nextId !== undefined);
  return items;
}

function asArray<T>(body: unknown, path: string): T[] {
  if (!Array.isArray(body)) throw new MacError(`GET ${path}: expected a JSON array, got ${body === undefined ? 'no body' : typeof body}`);
  return body as T[];
}
