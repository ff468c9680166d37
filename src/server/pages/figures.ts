/**
 * What the pictures read: a check's figures per bucket of a window (runs, failed, p50/p95 of the
 * response time) from `checkFigures` (rundata/figures.ts), the one windowed function that the
 * dashboards, status pages, badges and analytics share, computed where the results are; and a
 * check's newest results and heartbeat pings, each a bounded read. Every read is answered off the
 * main thread on a database (Store.aggregateAsync, Store.queryAsync). The pages never list a
 * check's whole history.
 */
import { RUN_COLL } from '../rundata/collections.js';
import { runReads, type CheckFigures, type RunReads } from '../rundata/figures.js';
import type { CheckResult, HeartbeatEvent } from '../rundata/types.js';
import type { Store } from '../store/store.js';
import type { Bucket, Series } from './svg.js';

/** Runs listed on a check's page. */
export const RECENT_RUNS = 20;
/** Pings listed on a heartbeat's page. */
export const RECENT_PINGS = 20;

/** The reads of one account that the pictures need. */
export interface FiguresSource {
  /**
   * The FINAL results of a check in [fromMs, toMs), per bucket of `bucketMs` from fromMs; every
   * bucket of the window, oldest first. `responseTimes: false`: counts only (p50/p95 null), which
   * spares ranking the window's response times (a status page's uptime bars).
   */
  buckets(checkId: string, fromMs: number, toMs: number, bucketMs: number, options?: { responseTimes?: boolean }): Promise<Bucket[]>;
  /** The newest FINAL results of a check, newest first, at most `limit`. */
  recentResults(checkId: string, limit: number): Promise<CheckResult[]>;
  /** The newest heartbeat events of a check, newest first, at most `limit`. */
  recentPings(checkId: string, limit: number): Promise<HeartbeatEvent[]>;
}

/** The figures of an account read from the store. */
export function storeFigures(store: Store, account: string, reads: RunReads = runReads(store, account)): FiguresSource {
  return {
    async buckets(checkId, fromMs, toMs, bucketMs, options = {}) {
      const times = options.responseTimes !== false;
      // The buckets only: a chart has no use for the whole window's percentiles.
      return bucketsOf(await reads.figures(checkId, { fromMs, toMs, bucketMs }, { responseTimes: times, percentiles: [50, 95], total: false }));
    },
    recentResults(checkId, limit) {
      return reads.latest(checkId, limit);
    },
    recentPings(checkId, limit) {
      return store.queryAsync<HeartbeatEvent & { [k: string]: unknown }>(account, RUN_COLL.heartbeatEvents, { checkId, order: 'time-desc', limit });
    },
  };
}

/** The buckets of a chart from a check's figures (a failed run: a failed assertion or an error of the run). */
export function bucketsOf(f: CheckFigures): Bucket[] {
  return f.buckets.map((b) => ({ startMs: b.startMs, runs: b.runs, failed: b.failed, p50: b.responseTime?.p50 ?? null, p95: b.responseTime?.p95 ?? null }));
}

/** Every bucket of a window, without runs. */
export function emptyBuckets(fromMs: number, toMs: number, bucketMs: number): Bucket[] {
  const count = Math.max(1, Math.ceil((toMs - fromMs) / bucketMs));
  return Array.from({ length: count }, (_, i) => ({ startMs: fromMs + i * bucketMs, runs: 0, failed: 0, p50: null, p95: null }));
}

/** A series of a check over a window. */
export async function seriesOf(src: FiguresSource, checkId: string, w: { fromMs: number; toMs: number; bucketMs: number }, createdAt: unknown): Promise<Series> {
  const since = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
  return { ...w, buckets: await src.buckets(checkId, w.fromMs, w.toMs, w.bucketMs), sinceMs: Number.isFinite(since) ? since : null };
}
