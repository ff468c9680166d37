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
 * - the accounts that may start a run take turns (round robin), oldest waiting run first within
 *   an account.
 */
export class FairPool {
  private readonly queues = new Map<string, Array<() => void>>();
  private readonly active = new Map<string, number>();
  // Accounts in turn order: the one that started a run last goes to the back.
  private readonly turn: string[] = [];
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
      if (!this.turn.includes(account)) this.turn.push(account);
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
      const i = this.turn.findIndex((a) => (this.queues.get(a)?.length ?? 0) > 0 && this.mayStart(a));
      if (i < 0) break;
      const account = this.turn[i];
      const queue = this.queues.get(account)!;
      const start = queue.shift()!;
      if (queue.length === 0) this.queues.delete(account);
      this.turn.splice(i, 1);
      this.turn.push(account);
      this.running += 1;
      this.active.set(account, this.activeOf(account) + 1);
      start();
    }
    // Accounts with nothing waiting or running leave the rotation.
    for (let i = this.turn.length - 1; i >= 0; i--) {
      const a = this.turn[i];
      if (!this.queues.has(a) && !this.active.has(a)) this.turn.splice(i, 1);
    }
  }
}
