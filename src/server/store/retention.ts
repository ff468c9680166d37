import type { Store } from './store.js';

const DAY_MS = 86_400_000;

/** How the retention runs: the period, the pace, and the clock. */
export interface RetentionOptions {
  /** Days run data is kept (divided by `timeScale`, like every period of the service). */
  days: number;
  timeScale: number;
  /** At most this many records are deleted per step; steps follow each other with setImmediate. */
  batch: number;
  /** Pause after a step that found nothing more to delete. */
  idleMs: number;
  now: () => number;
  onError: (err: unknown) => void;
}

/**
 * Deletes expired run data in the background: small steps (one indexed DELETE of at most `batch`
 * records each), yielding to requests between steps, then a pause once nothing old is left.
 * Configuration is never touched: only kinds indexed with `expires` are.
 */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: RetentionOptions,
  ) {}

  /** The oldest time kept (epoch ms). */
  cutoffMs(): number {
    return this.options.now() - (this.options.days * DAY_MS) / this.options.timeScale;
  }

  /** One step: deletes at most `batch` expired records; returns how many. */
  step(): number {
    const cutoff = this.cutoffMs();
    let left = this.options.batch;
    for (const [kind, spec] of Object.entries(this.store.indexed)) {
      if (!spec.expires || left === 0) continue;
      left -= this.store.expire(kind, cutoff, left);
    }
    return this.options.batch - left;
  }

  /**
   * Starts the background steps, the first after `firstDelayMs` (the service starts it once it
   * listens, a little later: a step is a synchronous DELETE, and the first requests after a
   * restart should not wait behind a backlog of expired rows).
   */
  start(firstDelayMs = 0): void {
    this.schedule(firstDelayMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const run = () => {
      let more = false;
      try {
        more = this.step() === this.options.batch;
      } catch (err) {
        this.options.onError(err);
      }
      this.schedule(more ? 0 : this.options.idleMs);
    };
    if (delayMs === 0) {
      this.immediate = setImmediate(run);
      this.immediate.unref();
    } else {
      this.timer = setTimeout(run, delayMs);
      this.timer.unref();
    }
  }
}
