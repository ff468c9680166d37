/**
 * Incident mails to many subscribers, in chunks. An update whose confirmed subscribers are more
 * than FANOUT_CHUNK stages, in its own transaction, one job naming them (STATUS_COLL.mailJobs,
 * indexed by when it is due); a `SubscriberMailer` takes due jobs by lease (one taker across
 * instances on one database) and, per step, stages the mails of FANOUT_CHUNK subscribers and the
 * rest of the job in one transaction, then yields the event loop. A taker that dies leaves the
 * job due again when its lease ends, from the first subscriber not yet written: nothing is lost,
 * nothing is queued twice, and no request waits behind thousands of mails.
 */
import type { ServerContext } from '../context.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { StoredRecord } from '../store/backend.js';
import { FANOUT_CHUNK, mailSubscribers, subscriberPages, type MailJob } from './mails.js';
import type { StoredIncident, Subscription } from './model.js';
/** How long a taker holds a job (real ms): far beyond one step. */
const LEASE_MS = 60_000;
/** How often due jobs are looked for when nothing woke the mailer (real ms): jobs of other instances, or left by a dead one. */
const POLL_MS = 1_000;
/** Jobs taken per pass. */
const JOBS_PER_PASS = 4;

/** Takes the due jobs and works them off a chunk at a time. One per service instance. */
export class SubscriberMailer {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private stopped = true;
  private running = false;
  private kickedWhileRunning = false;
  private lastTaken = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly ctx: ServerContext) {}

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Looks for due jobs now (one was just staged on this instance). */
  kick(): void {
    if (this.stopped || this.immediate) return;
    clearTimeout(this.timer);
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.pass();
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  /** Resolves once a pass found no due job (tests and benches); rejects after `timeoutMs`. */
  async idle(timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        this.kick();
      });
      if (this.lastTaken === 0) return;
      if (Date.now() > end) throw new Error(`the subscriber mail jobs did not finish in ${timeoutMs} ms`);
    }
  }

  private pass(): void {
    if (this.stopped) return;
    // Kicked while a pass waits for its lease: one more pass after it.
    if (this.running) {
      this.kickedWhileRunning = true;
      return;
    }
    this.kickedWhileRunning = false;
    this.running = true;
    this.lastTaken = 0;
    const now = this.ctx.options.now();
    // The lease is answered without holding the event loop on a database in another thread.
    void Promise.resolve()
      .then(() => this.ctx.store.leaseAsync(STATUS_COLL.mailJobs, now, now + LEASE_MS, JOBS_PER_PASS))
      .then((taken) => {
        this.lastTaken = taken.length;
        // Stopped meanwhile: what was leased is due again when its lease ends.
        if (this.stopped) return;
        for (const { account, record } of taken) this.step(account, record as MailJob, now);
      })
      .catch((err: unknown) => this.ctx.log.event('subscription.error', { reason: err instanceof Error ? err.message : String(err) }, 'error'))
      .finally(() => {
        this.running = false;
        for (const resolve of this.waiters.splice(0)) resolve();
        if (this.stopped) return;
        // More may be due at once (the rest of the jobs just written): the next pass after other work.
        if (this.lastTaken > 0 || this.kickedWhileRunning) this.kick();
        else {
          this.timer = setTimeout(() => this.pass(), POLL_MS);
          this.timer.unref();
        }
      });
  }

  /** Mails one chunk of a job and writes the rest (or deletes the job) in the same transaction. */
  private step(account: string, job: MailJob, nowMs: number): void {
    const tx = this.ctx.store.begin(account);
    const incident = tx.get<StoredIncident>(STATUS_COLL.incidents, job.incidentId);
    const update = incident?.incidentUpdates.find((u) => u.id === job.updateId) ;
    const chunk = job.pending.slice(0, FANOUT_CHUNK);
    const rest = job.pending.slice(FANOUT_CHUNK);
    let queued = 0;
    // An incident or update deleted meanwhile: nothing more to tell.
    if (incident && update) {
      const pages = subscriberPages(tx, incident);
      const subs = chunk.map((id) => tx.get<Subscription>(STATUS_COLL.subscriptions, id)).filter((s): s is Subscription => s !== undefined);
      queued = mailSubscribers(this.ctx, tx, incident, update, pages, subs, nowMs).queued;
    }
    if (rest.length > 0 && incident && update) tx.put(STATUS_COLL.mailJobs, job.id, { ...job, pending: rest, dueAt: new Date(nowMs).toISOString() } as StoredRecord);
    else tx.delete(STATUS_COLL.mailJobs, job.id);
    try {
      tx.commit();
    } catch (err) {
      // Not written: the job is due again when its lease ends, from the same chunk.
      this.ctx.log.event('subscription.error', { account, incident: job.incidentId, reason: err instanceof Error ? err.message : String(err) }, 'error');
      return;
    }
    if (queued > 0) this.ctx.outbox.kick();
  }
}
