/**
 * The histograms of the cells of results per hour and day (rollup.ts), held in memory between
 * reads. A cell of a closed hour or day stays as it is (only a late result, a deletion or the
 * retention changes it), yet its histogram is most of what reading it costs: the text of about
 * fifty buckets, parsed, for each of the fifty cells of each check of a page. So cells are read
 * without their histograms first (their counts, sums, minimum and maximum), and a histogram held
 * for a cell whose figures are the same as when it was read is used again; only the others (a
 * newly closed hour, a cell that changed) are read with theirs, by one more statement. A change
 * of a cell changes its count, sum or sum of squares, so a held histogram never answers for a
 * cell that changed.
 */
import { type RollupCell, type RollupQuery, type Tally } from './rollup.js';

/** Histograms held at most (each a few KiB): past this the least recently read goes. */
export const MAX_HELD_HISTOGRAMS = 20_000;

/** Most ranges of the second read (the cells whose histogram is not held); beyond, the query's own ranges. */
const MAX_MISSING_RANGES = 32;

/** The figures of a cell that change with its results (all but the histogram). */
function signature(t: Tally): string {
  return `${t.runs},${t.fails},${t.errors},${t.degraded},${t.n},${t.sum},${t.sq},${t.min},${t.max}`;
}

export class HeldHistograms {
  private readonly held = new Map<string, { signature: string; hist: Map<number, number> }>();

  constructor(private readonly max = MAX_HELD_HISTOGRAMS) {}

  /**
   * The cells of `q` as `read` answers them, the histograms of those whose figures did not change
   * since they were read taken from memory. The histograms answered are shared: not to be changed.
   */
  async cells(account: string, kind: string, q: RollupQuery, read: (q: RollupQuery) => Promise<RollupCell[]>): Promise<RollupCell[]> {
    if (q.histograms === false || q.ranges.length === 0) return read(q);
    const checkIds = q.checkIds ?? [q.checkId];
    // Every cell names its check (a query of one check answers without).
    const cells = await read({ ...q, checkIds, histograms: false });
    const key = (c: RollupCell) => `${account}\u0000${kind}\u0000${c.checkId}\u0000${c.span}\u0000${c.start}`;
    const missing: RollupCell[] = [];
    for (const c of cells) {
      const k = key(c);
      const h = this.held.get(k);
      if (h && h.signature === signature(c.tally)) {
        c.tally.hist = h.hist;
        // Most recently read last.
        this.held.delete(k);
        this.held.set(k, h);
      } else missing.push(c);
    }
    let answer = cells;
    if (missing.length > 0) {
      const ids = [...new Set(missing.map((c) => c.checkId!))];
      const full = await read({ checkId: ids[0], checkIds: ids, ranges: rangesOf(missing) ?? q.ranges });
      const byKey = new Map(full.map((c) => [key(c), c]));
      const gone = new Set<RollupCell>();
      for (const c of missing) {
        const f = byKey.get(key(c));
        // Deleted between the two reads: not answered; changed: answered as read the second time.
        if (!f) gone.add(c);
        else {
          c.tally = f.tally;
          this.keep(key(c), f.tally);
        }
      }
      if (gone.size > 0) answer = cells.filter((c) => !gone.has(c));
    }
    if (!q.checkIds) for (const c of answer) delete c.checkId;
    return answer;
  }

  /** Histograms held now. */
  get size(): number {
    return this.held.size;
  }

  private keep(k: string, t: Tally): void {
    this.held.delete(k);
    this.held.set(k, { signature: signature(t), hist: t.hist });
    while (this.held.size > this.max) {
      const oldest = this.held.keys().next();
      if (oldest.done) break;
      this.held.delete(oldest.value);
    }
  }
}

/** The ranges of the cells given: per span, consecutive cells joined; null when too many. */
function rangesOf(cells: readonly RollupCell[]): Array<[number, number, number]> | null {
  const bySpan = new Map<number, number[]>();
  for (const c of cells) {
    const list = bySpan.get(c.span) ?? [];
    if (list.length === 0) bySpan.set(c.span, list);
    list.push(c.start);
  }
  const ranges: Array<[number, number, number]> = [];
  for (const [span, starts] of bySpan) {
    const sorted = [...new Set(starts)].sort((a, b) => a - b);
    let from = sorted[0];
    let last = sorted[0];
    for (const s of sorted.slice(1)) {
      if (s === last + span) last = s;
      else {
        ranges.push([span, from, last + 1]);
        from = last = s;
      }
    }
    ranges.push([span, from, last + 1]);
    if (ranges.length > MAX_MISSING_RANGES) return null;
  }
  return ranges;
}
