/**
 * A fixed window per client address for the public forms (no API key to count by), kept in
 * memory per instance and bounded: at most `maxClients` windows are held; when that many are
 * live, the oldest is forgotten (a flood of distinct addresses costs each of them one window).
 */
export class ClientLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxClients = 10_000,
  ) {}

  /** Counts one request of `client` at `nowMs`: 0 when allowed, else the seconds until the window ends. */
  take(client: string, nowMs: number): number {
    let w = this.windows.get(client);
    if (!w || nowMs >= w.start + this.windowMs) {
      this.windows.delete(client);
      if (this.windows.size >= this.maxClients) this.evict(nowMs);
      this.windows.set(client, (w = { start: nowMs, count: 0 }));
    }
    if (w.count >= this.limit) return Math.max(1, Math.ceil((w.start + this.windowMs - nowMs) / 1000));
    w.count += 1;
    return 0;
  }

  /** Windows held now. */
  get size(): number {
    return this.windows.size;
  }

  // A window is (re)inserted when it opens, so the Map's order is by start: the ended ones lead.
  // They go; if none had ended, the oldest live one does. Amortized O(1) per new client.
  private evict(nowMs: number): void {
    for (const [k, w] of this.windows) {
      if (nowMs < w.start + this.windowMs) break;
      this.windows.delete(k);
    }
    if (this.windows.size >= this.maxClients) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
  }
}
