/**
 * Timeouts that measure the other side's silence, not mac's own busyness.
 *
 * A plain `setTimeout` counts every millisecond, including those in which this process's event
 * loop was held by synchronous work (a plan parsing and validating its definitions while its
 * requests are in flight) or the process was not scheduled at all (a loaded machine). An answer
 * that arrived during such a stretch sits unread in the socket: after a held loop the timers
 * phase runs before the poll phase that would read it, so the timer aborts a request whose answer
 * came long ago. A deadline here counts only the time in which the loop was free to read
 * answers: the time the loop was held is measured and the deadline moves by as much.
 *
 * How the held time is measured: while at least one deadline is pending, a sampler timer ticks
 * every SAMPLE_MS; a tick (or a deadline firing) that comes more than TOLERANCE_MS after it was due
 * means the loop did not turn for that long, and the whole stretch since the previous tick counts
 * as held (an answer that arrived in it could not be read). The sampler is unref'd and stops
 * with the last deadline, so it neither keeps a process alive nor runs when nothing waits.
 */

/** Interval of the held-loop sampler. */
export const SAMPLE_MS = 20;

/** Lateness of a tick taken as normal timer jitter rather than a held loop. */
export const TOLERANCE_MS = 30;

/** Milliseconds, monotonic. */
type Now = () => number;

const monotonic: Now = () => performance.now();

/** One sampler shared by every deadline of the process (one per clock in tests). */
class HeldLoopSampler {
  /** Sum of the held stretches seen so far, in ms. */
  private held = 0;
  private last = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private users = 0;

  constructor(private readonly now: Now) {}

  /** The held time so far, counting the stretch since the last tick if it is a held one. */
  heldMs(): number {
    this.sample();
    return this.held;
  }

  acquire(): void {
    if (this.users++ === 0) {
      this.last = this.now();
      this.schedule();
    }
  }

  release(): void {
    if (--this.users === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.sample();
      if (this.users > 0) this.schedule();
    }, SAMPLE_MS);
    this.timer.unref();
  }

  /** Counts the stretch since the previous sample as held when it is longer than a tick plus jitter. */
  private sample(): void {
    const now = this.now();
    const gap = now - this.last;
    if (gap > SAMPLE_MS + TOLERANCE_MS) this.held += gap - SAMPLE_MS;
    this.last = now;
  }
}

const samplers = new Map<Now, HeldLoopSampler>();

function samplerOf(now: Now): HeldLoopSampler {
  let sampler = samplers.get(now);
  if (sampler === undefined) samplers.set(now, (sampler = new HeldLoopSampler(now)));
  return sampler;
}

/** A pending deadline; `clear()` stops it (idempotent). */
export interface Deadline {
  clear(): void;
}

/**
 * Calls `onExpire` once `ms` milliseconds passed in which the event loop was free, i.e. wall time
 * minus the stretches in which the loop was held (see the module's comment). A deadline whose
 * due time finds the loop was held moves by the held time and waits again; each move is bounded
 * by time actually held, so a silent peer is still given up on once the loop has been free for
 * `ms`.
 */
export function loopDeadline(ms: number, onExpire: () => void, now: Now = monotonic): Deadline {
  const sampler = samplerOf(now);
  sampler.acquire();
  const armedAt = now();
  const heldAtArm = sampler.heldMs();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    if (timer !== undefined) clearTimeout(timer);
    sampler.release();
  };
  const check = () => {
    const free = now() - armedAt - (sampler.heldMs() - heldAtArm);
    const left = ms - free;
    if (left > 0) {
      timer = setTimeout(check, left);
      return;
    }
    finish();
    onExpire();
  };
  timer = setTimeout(check, ms);
  return { clear: finish };
}
