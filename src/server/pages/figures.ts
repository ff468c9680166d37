/**
 * What the pictures read: a check's FINAL results reduced per bucket of a window (runs, failed,
 * p50/p95 of the response time), computed where the results are (the store's `aggregate`: one
 * SQL statement on a database), and a check's newest results and heartbeat pings, each a bounded
 * read. The pages never list a check's whole history.
 */
import { RUN_COLL } from '../rundata/collections.js';
import type { CheckResult, HeartbeatEvent } from '../rundata/types.js';
import type { Store } from '../store/store.js';
import type { Bucket, Series } from './svg.js';

/** Runs listed on a check's page. */
export const RECENT_RUNS = 20;
/** Pings listed on a heartbeat's page. */
export const RECENT_PINGS = 20;

/** The reads of one account that the pictures need. */
export interface FiguresSource {
  /** The FINAL results of a check in [fromMs, toMs), per bucket of `bucketMs` from fromMs; every bucket of the window, oldest first. */
  buckets(checkId: string, fromMs: number, toMs: number, bucketMs: number): Bucket[];
  /** The newest FINAL results of a check, newest first, at most `limit`. */
  recentResults(checkId: string, limit: number): CheckResult[];
  /** The newest heartbeat events of a check, newest first, at most `limit`. */
  recentPings(checkId: string, limit: number): HeartbeatEvent[];
}

/** The figures of an account read from the store. */
export function storeFigures(store: Store, account: string): FiguresSource {
  return {
    buckets(checkId, fromMs, toMs, bucketMs) {
      const rows = store.aggregate(account, RUN_COLL.checkResults, {
        checkId,
        fromMs,
        toMs,
        bucketMs,
        filters: [{ path: 'resultType', in: ['FINAL'] }],
        values: [
          { path: 'responseTime', percentiles: [50, 95] },
          { path: 'hasFailures', percentiles: [] },
        ],
      });
      return fillBuckets(rows.map((r) => ({ bucket: r.bucket, rt: r.values[0], failed: r.values[1] })), fromMs, toMs, bucketMs);
    },
    recentResults(checkId, limit) {
      // ATTEMPT results sit between the FINAL ones: read a bounded few more and keep the FINAL.
      return store
        .query<CheckResult & { [k: string]: unknown }>(account, RUN_COLL.checkResults, { checkId, order: 'time-desc', limit: limit * 4 })
        .filter((r) => r.resultType === 'FINAL')
        .slice(0, limit);
    },
    recentPings(checkId, limit) {
      return store.query<HeartbeatEvent & { [k: string]: unknown }>(account, RUN_COLL.heartbeatEvents, { checkId, order: 'time-desc', limit });
    },
  };
}

/** Every bucket of the window from the reduced rows (a bucket without results has runs 0). */
export function fillBuckets(
  rows: Array<{ bucket: number; rt: { n: number; percentiles: Array<number | null> }; failed: { n: number; sum: number | null } }>,
  fromMs: number,
  toMs: number,
  bucketMs: number,
): Bucket[] {
  const count = Math.max(1, Math.ceil((toMs - fromMs) / bucketMs));
  const out: Bucket[] = Array.from({ length: count }, (_, i) => ({ startMs: fromMs + i * bucketMs, runs: 0, failed: 0, p50: null, p95: null }));
  for (const r of rows) {
    const b = out[r.bucket];
    if (!b) continue;
    b.runs = r.failed.n;
    b.failed = Math.round(r.failed.sum ?? 0);
    b.p50 = r.rt.n > 0 ? r.rt.percentiles[0] : null;
    b.p95 = r.rt.n > 0 ? r.rt.percentiles[1] : null;
  }
  return out;
}

/** A series of a check over a window. */
export function seriesOf(src: FiguresSource, checkId: string, w: { fromMs: number; toMs: number; bucketMs: number }, createdAt: unknown): Series {
  const since = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
  return { ...w, buckets: src.buckets(checkId, w.fromMs, w.toMs, w.bucketMs), sinceMs: Number.isFinite(since) ? since : null };
}
