/**
 * A concurrency pool shared fairly between accounts, for script runs (child processes, seconds to
 * minutes each). With one first-come queue, two sleeping scripts of one account held every slot
 * and another account's check waited 127 s for its turn. Here:
 *
 * - each account runs at most its share, max(1, floor(concurrency / accounts with work)), where
 *   the accounts with work are those with runs under way or waiting;
 * - an account with nothing running may start one run even when the pool is full, up to a hard
 *   cap of twice the concurrency: the slots others hold with long runs do not make it wait for
 *   them to end (a running script is never preempted);
 * - the accounts that may start a run take turns (the one whose last start is oldest first, a
 *   newcomer before all), oldest waiting run first within an account.
 */
export class FairPool {
  private readonly queues = new Map<string, Array<() => void>>();
  private readonly active = new Map<string, number>();
  // When each account with work last started a run (a sequence number; -1: not yet): the one
  // whose last start is oldest goes next, so an account that just arrived goes first.
  private readonly lastStart = new Map<string, number>();
  private starts = 0;
  private running = 0;

  constructor(
    readonly concurrency: number,
    /** Runs at once at most, counting the ones started beyond `concurrency` for idle accounts. */
    readonly hardCap = 2 * concurrency,
  ) {}

  /** Runs under way. */
  get activeCount(): number {
    return this.running;
  }

  /** Runs waiting, of every account or of one. */
  pendingCount(account?: string): number {
    if (account !== undefined) return this.queues.get(account)?.length ?? 0;
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Runs under way of one account. */
  activeOf(account: string): number {
    return this.active.get(account) ?? 0;
  }

  /** The most runs `account` may have under way now. */
  shareOf(account: string): number {
    const withWork = new Set([...this.active.keys(), ...this.queues.keys()]);
    withWork.add(account);
    return Math.max(1, Math.floor(this.concurrency / withWork.size));
  }

  /** Runs `task` for `account` once the account's turn and share allow. */
  run<T>(account: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        // A task that throws at once fails its run, not the pool.
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            const left = (this.active.get(account) ?? 1) - 1;
            if (left > 0) this.active.set(account, left);
            else this.active.delete(account);
            this.drain();
          });
      };
      let queue = this.queues.get(account);
      if (!queue) this.queues.set(account, (queue = []));
      queue.push(start);
      if (!this.lastStart.has(account)) this.lastStart.set(account, -1);
      this.drain();
    });
  }

  /** Whether a waiting run of `account` may start now. */
  private mayStart(account: string): boolean {
    const active = this.activeOf(account);
    if (active >= this.shareOf(account)) return false;
    return this.running < this.concurrency || (active === 0 && this.running < this.hardCap);
  }

  /** Starts every waiting run that may start, accounts taking turns. */
  private drain(): void {
    for (;;) {
      let next: string | undefined;
      for (const [account, last] of this.lastStart) {
        if (!this.queues.has(account) || !this.mayStart(account)) continue;
        if (next === undefined || last < this.lastStart.get(next)!) next = account;
      }
      if (next === undefined) break;
      const queue = this.queues.get(next)!;
      const start = queue.shift()!;
      if (queue.length === 0) this.queues.delete(next);
      this.lastStart.set(next, this.starts++);
      this.running += 1;
      this.active.set(next, this.activeOf(next) + 1);
      start();
    }
    // Accounts with nothing waiting or running leave the rotation.
    for (const account of this.lastStart.keys()) if (!this.queues.has(account) && !this.active.has(account)) this.lastStart.delete(account);
  }
}
