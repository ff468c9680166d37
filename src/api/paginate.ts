import { ReadBudget, type ApiClient, type ApiResponse, type Query } from './client.js';
import { BadResponseError, printable } from './errors.js';

/** Items per page the engine asks for (the API's maximum). */
export const PAGE_SIZE = 100;

/** A parsed `content-range`: `start-end/total`, `start-end/*` (no total) or `*\/total` (empty page). */
export interface ContentRange {
  start?: number;
  end?: number;
  total?: number;
}

/**
 * Parses a `content-range` header (an optional unit word first, as in `items 0-99/250`);
 * undefined when it is not one of the three forms or a number is not a safe integer.
 */
export function parseContentRange(header: string): ContentRange | undefined {
  const m = /^(?:[A-Za-z]+\s+)?(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/.exec(header.trim());
  if (!m) return undefined;
  const num = (s: string | undefined) => (s === undefined || s === '*' ? undefined : Number(s));
  const [start, end, total] = [num(m[1]), num(m[2]), num(m[3])];
  if ([start, end, total].some((n) => n !== undefined && !Number.isSafeInteger(n))) return undefined;
  if (start === undefined && total === undefined) return undefined; // `*/*` says nothing
  return { start, end, total };
}

/** Reads the total of a `content-range: 0-99/250` (or `*\/250`) header; undefined without one. */
export function totalFromContentRange(header: string | undefined): number | undefined {
  return header === undefined ? undefined : parseContentRange(header)?.total;
}

/** How a list is read. */
export interface ListOptions {
  /** Objects the caller knows exist (it just wrote them): their pages are asked for with the first. */
  atLeast?: number;
  /** The API id of a listed object, to refuse a list that repeats one; default its `id`. */
  idOf?: (item: Record<string, unknown>) => unknown;
}

type Item = Record<string, unknown>;

const defaultId = (item: Item): unknown => item.id;

/** One page read and checked. */
interface Page {
  items: Item[];
  total?: number;
  url: URL;
}

/**
 * Every item of a page-based list (api-decisions §1.4): the first page, then all remaining
 * pages at once from the content-range total. Without a total, pages are read one by one until
 * a short page. A caller that knows at least `atLeast` items exist (objects it just wrote) has
 * their pages asked for together with the first, saving a round trip.
 *
 * Bounded against a hostile or broken API (each a BadResponseError naming the page's URL):
 * a total over the client's `maxListItems`, a content-range that is malformed or does not match
 * the page asked for, a page longer than the limit asked for, an item that is not an object,
 * an id listed twice, and (without a total) more full pages than `maxPagesWithoutTotal` (or
 * `maxListItems`) allow. All pages of a list share one byte budget (`maxListBytes`).
 */
export async function listAll<T>(client: ApiClient, path: string, query: Query = {}, options: number | ListOptions = {}): Promise<T[]> {
  const { atLeast = 0, idOf = defaultId } = typeof options === 'number' ? { atLeast: options } : options;
  const maxItems = client.limits.maxListItems;
  const maxPages = Math.max(1, Math.ceil(maxItems / PAGE_SIZE));
  const budget = new ReadBudget(client.limits.maxListBytes);
  const page = async (n: number): Promise<Page> =>
    checkPage(await client.request<unknown>('GET', path, { query: { ...query, limit: PAGE_SIZE, page: n }, budget }), n, maxItems);
  const known = Math.min(maxPages, Math.max(1, Math.ceil(atLeast / PAGE_SIZE)));
  const early = await Promise.all(Array.from({ length: known }, (_, i) => page(i + 1)));
  // With a kind's idOf (a plan's lists), every object must carry its id: mac addresses it by it.
  const ids = new IdSet(idOf, typeof options !== 'number' && options.idOf !== undefined);
  for (const p of early) ids.add(p);
  const items = early.flatMap((p) => p.items);
  const first = early[0]!;
  if (first.total !== undefined) {
    const pages = Math.ceil(first.total / PAGE_SIZE); // <= maxPages: checkPage refused larger totals
    const rest = await Promise.all(Array.from({ length: Math.max(0, pages - known) }, (_, i) => page(known + i + 1)));
    for (const p of rest) {
      ids.add(p);
      items.push(...p.items);
    }
    return items as T[];
  }
  let last = early.at(-1)!;
  const maxUntotalled = Math.min(maxPages, client.limits.maxPagesWithoutTotal);
  for (let n = known + 1; last.items.length === PAGE_SIZE; n++) {
    if (n > maxUntotalled) {
      throw new BadResponseError(
        `${n - 1} full pages (${items.length} objects) and still no end, without a total in content-range; mac reads at most ${maxUntotalled} pages of a list without a total`,
        { method: 'GET', url: last.url, status: 200 },
        { hint: 'the API keeps answering full pages; check that MAC_API_URL / --api-url points at the monitoring API (see "Hostile or broken APIs" in docs/plan.md)' },
      );
    }
    last = await page(n);
    ids.add(last);
    items.push(...last.items);
  }
  return items as T[];
}

/** Checks one page of a page-based list: an array of at most PAGE_SIZE objects whose content-range fits page `n`. */
function checkPage(res: ApiResponse<unknown>, n: number, maxItems: number): Page {
  const source = { method: 'GET', url: res.url, status: res.status };
  const items = objectArray(res.body, source, 'a JSON array of objects');
  if (items.length > PAGE_SIZE) throw new BadResponseError(`the page holds ${items.length} objects, more than the limit=${PAGE_SIZE} asked for`, source);
  const header = res.headers['content-range'];
  if (header === undefined) return { items, url: res.url };
  const shown = `content-range "${printable(header.slice(0, 100))}"`;
  const range = parseContentRange(header);
  if (range === undefined) throw new BadResponseError(`${shown} is not \`start-end/total\` or \`*/total\``, source);
  const { start, end, total } = range;
  if (total !== undefined && total > maxItems) {
    throw new BadResponseError(`${shown} announces ${total} objects; mac reads at most ${maxItems} objects per list`, source, {
      hint: 'no account holds this many; check that MAC_API_URL / --api-url points at the monitoring API (see "Hostile or broken APIs" in docs/plan.md)',
    });
  }
  const offset = (n - 1) * PAGE_SIZE;
  if (start !== undefined && end !== undefined) {
    if (end < start) throw new BadResponseError(`${shown} ends before it starts`, source);
    if (start !== offset || end - start + 1 !== items.length) {
      throw new BadResponseError(`${shown} does not match page ${n} (items ${offset}-${offset + items.length - 1} of what was received: ${items.length} objects)`, source);
    }
  }
  if (total !== undefined && items.length > 0 && offset + items.length > total) {
    throw new BadResponseError(`${shown} announces ${total} objects, but page ${n} alone reaches object ${offset + items.length}`, source);
  }
  return { items, total, url: res.url };
}

function objectArray(body: unknown, source: { method: string; url: URL; status: number }, expected: string): Item[] {
  if (!Array.isArray(body)) throw new BadResponseError(`expected ${expected}, got ${describe(body)}`, source);
  const bad = body.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item));
  if (bad >= 0) throw new BadResponseError(`expected ${expected}, but item ${bad} is ${describe(body[bad])}`, source);
  return body as Item[];
}

/** What a JSON value is, for messages: `an array`, `null`, `a string`, `no body`. */
export function describe(value: unknown): string {
  if (value === undefined) return 'no body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The ids seen so far in one list; a second sighting fails with the URL of the page that repeated it. */
class IdSet {
  private readonly seen = new Set<string>();
  constructor(
    private readonly idOf: (item: Item) => unknown,
    private readonly required = false,
  ) {}
  add(page: { items: Item[]; url: URL }): void {
    for (const item of page.items) {
      const id = this.idOf(item);
      if (typeof id !== 'string' && typeof id !== 'number') {
        if (!this.required) continue;
        throw new BadResponseError(`an object of the list has no id (a string or a number), got ${id === null ? 'null' : Array.isArray(id) ? 'an array' : typeof id === 'object' ? 'an object' : typeof id}`, { method: 'GET', url: page.url, status: 200 }, {
          hint: 'no monitoring API answers this; check that MAC_API_URL / --api-url points at the API, or report it to the API\'s operator',
        });
      }
      const key = String(id);
      if (this.seen.has(key)) {
        throw new BadResponseError(`the list repeats id ${printable(key.slice(0, 100))}, already listed`, { method: 'GET', url: page.url, status: 200 }, {
          hint: 'the API pages inconsistently (or ignores the page parameter); check MAC_API_URL / --api-url',
        });
      }
      this.seen.add(key);
    }
  }
}

/** The envelope of cursor lists (status pages, services, incidents). */
interface CursorPage {
  entries: unknown;
  nextId?: unknown;
}

/**
 * Every item of a cursor list: follows `nextId` until it is null. Bounded like `listAll`: a
 * page that is not `{entries: [objects], nextId}`, a cursor seen before, an id listed twice, a
 * page longer than the limit asked for, or more than `maxListItems` objects fail with a
 * BadResponseError naming the URL.
 */
export async function listCursor<T>(client: ApiClient, path: string, query: Query = {}, options: Pick<ListOptions, 'idOf'> = {}): Promise<T[]> {
  const maxItems = client.limits.maxListItems;
  const ids = new IdSet(options.idOf ?? defaultId);
  const cursors = new Set<string>();
  const items: Item[] = [];
  const maxPages = Math.max(1, Math.ceil(maxItems / PAGE_SIZE));
  const budget = new ReadBudget(client.limits.maxListBytes);
  let nextId: string | undefined;
  let pages = 0;
  do {
    const res = await client.request<unknown>('GET', path, { query: { ...query, limit: PAGE_SIZE, nextId }, budget });
    const source = { method: 'GET', url: res.url, status: res.status };
    const body = res.body as CursorPage | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadResponseError(`expected a cursor list {entries, nextId}, got ${describe(body)}`, source);
    }
    const entries = objectArray(body.entries, source, '`entries` to be an array of objects');
    if (entries.length > PAGE_SIZE) throw new BadResponseError(`the page holds ${entries.length} entries, more than the limit=${PAGE_SIZE} asked for`, source);
    ids.add({ items: entries, url: res.url });
    items.push(...entries);
    if (items.length > maxItems || ++pages > maxPages) {
      throw new BadResponseError(`the list goes past ${maxItems} objects or ${maxPages} pages, the most mac reads per list`, source, {
        hint: 'the API keeps answering with a next cursor; check that MAC_API_URL / --api-url points at the monitoring API (see "Hostile or broken APIs" in docs/plan.md)',
      });
    }
    const next = body.nextId;
    if (next !== null && next !== undefined && typeof next !== 'string' && typeof next !== 'number') {
      throw new BadResponseError(`expected nextId to be a string, a number or null, got ${describe(next)}`, source);
    }
    nextId = next === null || next === undefined ? undefined : String(next);
    if (nextId !== undefined) {
      if (cursors.has(nextId)) {
        throw new BadResponseError(`nextId ${printable(nextId.slice(0, 100))} was already followed; the list would never end`, source, {
          hint: 'the API returns a cursor it returned before; check MAC_API_URL / --api-url',
        });
      }
      cursors.add(nextId);
    }
  } while (nextId !== undefined);
  return items as T[];
}

/**
 * The body of an answer that must be one JSON object (an item GET, a create's answer), or a
 * BadResponseError naming the URL.
 */
export function objectBody(res: ApiResponse<unknown>, method: string, what = 'a JSON object'): Item {
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadResponseError(`expected ${what}, got ${describe(body)}`, { method, url: res.url, status: res.status });
  }
  return body as Item;
}
