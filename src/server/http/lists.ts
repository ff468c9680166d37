import { z } from 'zod';
import { invalid } from './errors.js';
import { intParam } from './query.js';

/** Query of page-based lists: `limit` 1..100 (default 10), `page` >= 1 (default 1). */
export const pageQuery = z.object({
  limit: intParam(1, 100).default(10),
  page: intParam(1).default(1),
});

/** Parsed page-based list query. */
export type PageQuery = z.output<typeof pageQuery>;

/** `content-range` of items start..end (inclusive, 0-based) out of total; `*\/total` when empty. */
export function contentRange(start: number, count: number, total: number): string {
  return count === 0 ? `*/${total}` : `${start}-${start + count - 1}/${total}`;
}

/** One page of `items` and its `content-range` header (api-decisions §1.4). */
export function pageOf<T>(items: readonly T[], query: PageQuery): { body: T[]; contentRange: string } {
  const start = (query.page - 1) * query.limit;
  const body = items.slice(start, start + query.limit);
  return { body, contentRange: contentRange(start, body.length, items.length) };
}

/** Query of cursor lists; the default limit differs per list (20 pages/services, 100 incidents). */
export function cursorQuery(defaultLimit: number) {
  return z.object({
    limit: intParam(1, 100).default(defaultLimit),
    nextId: z.union([z.string(), z.array(z.string()).transform((a) => a[a.length - 1])]).optional(),
  });
}

/** Parsed cursor list query. */
export interface CursorQuery {
  limit: number;
  nextId?: string;
}

/** The cursor envelope of status pages, services and incidents. */
export interface CursorPage<T> {
  length: number;
  entries: T[];
  nextId: string | null;
}

/**
 * One batch of `items` (already in list order, newest first) starting at the `nextId` cursor.
 * The cursor is the id of the first item of the next batch; an unknown cursor -> 400 (query).
 */
export function cursorOf<T>(items: readonly T[], query: CursorQuery, idOf: (item: T) => string): CursorPage<T> {
  let start = 0;
  if (query.nextId !== undefined) {
    start = items.findIndex((item) => idOf(item) === query.nextId);
    if (start < 0) throw invalid('query', 'nextId', 'is not a known cursor');
  }
  const entries = items.slice(start, start + query.limit);
  const next = items[start + query.limit];
  return { length: entries.length, entries, nextId: next === undefined ? null : idOf(next) };
}
