/**
 * The persisted queue of everything that leaves the service (alert notifications, mails): an
 * item is written in the transaction of the change that causes it, and a `Deliverer` takes the
 * due items by lease (one taker per item, across instances on one database), attempts each
 * once, and writes how it went: done (the item goes, its notification reads SUCCESS), retried
 * later with exponential backoff, or failed for good (FAILURE with the last error). An item
 * whose taker died is due again when its lease ends, so nothing is lost to a restart or a
 * `kill -9`; delivery is at least once (a taker that dies after the receiver accepted and
 * before it wrote so sends once more on the next taker).
 */

import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { AlertNotification, NotificationStatus } from '../rundata/types.js';
import { MAX_RUN_READ, type Transaction } from '../store/store.js';
import type { StoredRecord } from '../store/backend.js';
import type { AlertMessage, ChannelRecord, MailMessage, SendOutcome } from './types.js';
import type { Senders } from './channels.js';

/** What one queued item delivers. */
export type OutboxWork =
  | { type: 'alert'; account: string; channelId: number; message: AlertMessage }
  | { type: 'mail'; account: string; mail: MailMessage; /** What the mail is for, in the log (e.g. `subscription confirmation`). */ purpose: string };

/** A queued item as stored (RUN_COLL.outbox, indexed by `dueAt`). */
export interface OutboxItem {
  id: string;
  checkId: string | null;
  /** When it is due: its next attempt, or the end of its taker's lease. */
  dueAt: string;
  /** Attempts made. */
  attempts: number;
  createdAt: string;
  /**
   * Set while the item waits for an earlier alert of its channel and check (the id of that one):
   * the delivery of that alert makes it due at once. Only an item that waits is moved so, never
   * one that a taker holds (see Deliverer.deliver).
   */
  waitsFor?: string;
  work: OutboxWork;
}

/** Attempts of one delivery at most (the first one included). */
export const MAX_ATTEMPTS = 10;
/**
 * Waits before attempts 2..10 (ms of the service's clock at --time-scale 1): 15 s doubling to
 * 30 min, 92 minutes in all, so a receiver down for an hour still gets the alert.
 */
export const BACKOFF_MS: readonly number[] = [15_000, 30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000];
/**
 * How long a taker holds an item (real ms): beyond every sender's timeout, so a live taker never
 * loses an item it is sending; a dead taker's items are due again after it.
 */
export const LEASE_MS = 60_000;
/**
 * Items one instance holds at most (under way, or leased and waiting for their channel), and
 * deliveries under way at once to one channel: a slow or dead receiver delays only its own items.
 */
export const MAX_HELD = 256;
export const MAX_IN_FLIGHT_PER_CHANNEL = 8;
/** While more is due than fits, the queue is read again once this much room came free. */
const LEASE_BATCH = 32;
/** How often the queue is read when nothing woke the deliverer (real ms): items queued by other instances. */
export const POLL_MS = 500;
/** Bytes of a receiver's answer or an error kept in `notificationResult`. */
const MAX_RESULT_CHARS = 1000;

/** Keys of a channel's configuration whose values are never shown (notifications' `alertConfig`). */
const SECRET_KEYS = /key|token|secret|password|authorization/i;

/** A channel's configuration with its credentials masked: what a notification shows it was sent with. */
export function maskedConfig(channel: ChannelRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(channel.config ?? {})) {
    if (SECRET_KEYS.test(k)) out[k] = '********';
    else if (k === 'headers' && Array.isArray(v)) out[k] = v.map((h: { key?: unknown }) => ({ key: h?.key, value: '********' }));
    else if (k === 'url' && typeof v === 'string') out[k] = maskedUrl(v, channel.type);
    else if (k === 'queryParameters' && Array.isArray(v)) out[k] = v.map((p: { key?: unknown }) => ({ key: p?.key, value: '********' }));
    else out[k] = v;
  }
  return out;
}

// A Slack incoming-webhook URL is its credential (its path); any URL's user info and query may be.
function maskedUrl(url: string, type: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    if (u.search) u.search = '?***';
    if (type === 'SLACK') u.pathname = '/***';
    return u.toString();
  } catch {
    return '***';
  }
}

/**
 * Stages the notification of one alert to one channel and its queued delivery in `tx` (the
 * transaction of the state change that causes it). Returns the notification as stored.
 */
export function stageAlert(tx: Transaction, channel: ChannelRecord, message: AlertMessage, nowMs: number): AlertNotification {
  const id = tx.uuid();
  const at = new Date(nowMs).toISOString();
  const notification: AlertNotification = {
    id,
    type: channel.type,
    status: 'IN_PROGRESS',
    alertConfig: maskedConfig(channel),
    notificationResult: null,
    timestamp: null,
    checkType: message.checkType,
    checkId: message.checkId,
    checkAlertId: message.checkAlertId,
    alertChannelId: channel.id,
    ...(message.checkResultId ? { checkResultId: message.checkResultId } : {}),
    alertType: message.alertType,
    attempts: 0,
    created_at: at,
  };
  tx.put(RUN_COLL.alertNotifications, id, notification as unknown as StoredRecord);
  const item: OutboxItem = { id, checkId: message.checkId, dueAt: at, attempts: 0, createdAt: at, work: { type: 'alert', account: tx.account, channelId: channel.id, message } };
  tx.put(RUN_COLL.outbox, id, item as unknown as StoredRecord);
  return notification;
}

/** Stages one mail in `tx`. */
export function stageMail(tx: Transaction, mail: MailMessage, purpose: string, nowMs: number): string {
  const id = tx.uuid();
  const at = new Date(nowMs).toISOString();
  const item: OutboxItem = { id, checkId: null, dueAt: at, attempts: 0, createdAt: at, work: { type: 'mail', account: tx.account, mail, purpose } };
  tx.put(RUN_COLL.outbox, id, item as unknown as StoredRecord);
  return id;
}

/** The other queued alerts of `item`'s channel and check (a channel hears of a check in the order its alerts were raised). */
function sameAlert(queued: readonly OutboxItem[], item: OutboxItem): OutboxItem[] {
  const work = item.work;
  if (work.type !== 'alert') return [];
  // Every alert of the check, not only those of one alert id: a new failure must not overtake the
  // recovery of the alert before it, or the receiver ends with the check passing while it fails.
  return queued.filter((o) => o.id !== item.id && o.work.type === 'alert' && o.work.channelId === work.channelId);
}

/** The wait before attempt `attempts + 1` (service-clock ms), given the attempts made and the receiver's ask. */
export function backoffMs(attempts: number, timeScale: number, retryAfterMs?: number): number {
  const base = BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length) - 1] ?? BACKOFF_MS[0];
  return Math.max(base, retryAfterMs ?? 0) / timeScale;
}

/** Bounded text for `notificationResult` and the log. */
export function bounded(text: string): string {
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS - 1)}…` : text;
}

/** How one attempt's outcome moves an item: done, again at a time, or failed for good. */
export type NextStep = { done: true; status: 'SUCCESS' | 'FAILURE'; result: string } | { done: false; status: 'IN_PROGRESS' | 'RATE_LIMITED'; result: string; dueMs: number };

/** Pure: what follows an attempt (the `attempts`-th) that came out as `outcome`. */
export function nextStep(outcome: SendOutcome, attempts: number, nowMs: number, timeScale: number): NextStep {
  if (outcome.ok) return { done: true, status: 'SUCCESS', result: bounded(outcome.result) };
  const error = bounded(outcome.error);
  if (outcome.permanent || attempts >= MAX_ATTEMPTS) {
    return { done: true, status: 'FAILURE', result: outcome.permanent ? error : bounded(`${error} (gave up after ${attempts} attempts)`) };
  }
  return { done: false, status: outcome.rateLimited ? 'RATE_LIMITED' : 'IN_PROGRESS', result: error, dueMs: nowMs + backoffMs(attempts, timeScale, outcome.retryAfterMs) };
}

/** Delivers the queue: see the file's comment. One per service instance. */
export class Deliverer {
  private timer: NodeJS.Timeout | undefined;
  /** A pass at the time a retry of this instance is due, when that comes before the next poll (`wakeIn`). */
  private wake: { timer: NodeJS.Timeout; at: number } | undefined;
  private running = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Per channel (mails: one lane): deliveries under way, and leased items waiting for a slot of it. */
  private readonly lanes = new Map<string, { busy: number; queue: Array<{ account: string; item: OutboxItem; leasedAt: number }> }>();
  /** Items leased and not finished on this instance (under way or waiting in a lane), and their ids. */
  private held = 0;
  private readonly heldIds = new Set<string>();

  /** Deliveries being sent now (the operator metrics). */
  get sending(): number {
    return this.held;
  }
  /** Set when woken during a pass: another pass follows at once. */
  private again = false;
  /** Items the last pass took, and who waits for the next pass to end (`idle`). */
  private lastTaken = 0;
  private passWaiters: Array<() => void> = [];

  /**
   * `senders` may come later (`useSenders`, once the service listens and its network policy is
   * complete); a start without them uses the configured senders without the policy (in-process
   * services that never listen).
   */
  constructor(
    private readonly ctx: ServerContext,
    private senders?: Senders,
    private readonly makeSenders?: () => Senders,
  ) {}

  /** The senders every delivery goes through from now on. */
  useSenders(senders: Senders): void {
    this.senders?.close();
    this.senders = senders;
  }

  /** Starts reading the queue (the first pass now). */
  start(): void {
    this.senders ??= this.makeSenders?.();
    this.stopped = false;
    this.kick();
  }

  /** Reads the queue now (an item was just queued on this instance). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pass(), 0);
  }

  /** Stops taking items and waits up to `graceMs` for the deliveries under way; the rest are due again when their lease ends. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.wake?.timer);
    this.wake = undefined;
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    this.senders?.close();
  }

  /**
   * Resolves once a pass found nothing due and nothing is under way (tests and benches wait for
   * the alerts of a run this way); rejects after `timeoutMs`. Retries waiting for a later time do
   * not count as due.
   */
  async idle(timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await new Promise<void>((resolve) => {
        this.passWaiters.push(resolve);
        this.kick();
      });
      if (this.lastTaken === 0 && this.held === 0) return;
      if (Date.now() > end) throw new Error(`the outbox did not drain in ${timeoutMs} ms`);
    }
  }

  /** Deliveries under way now. */
  get active(): number {
    return this.inFlight.size;
  }

  private pass(): void {
    if (this.stopped) return;
    this.running = true;
    this.again = false;
    this.lastTaken = 0;
    const room = MAX_HELD - this.held;
    const now = this.ctx.options.now();
    // The lease is answered without holding the event loop on a database in another thread.
    const leased = room > 0 ? Promise.resolve().then(() => this.ctx.store.leaseAsync(RUN_COLL.outbox, now, now + LEASE_MS, room)) : Promise.resolve([]);
    void leased
      .then((taken) => {
        this.lastTaken = taken.length;
        // Stopped meanwhile: what was leased is due again when its lease ends.
        if (this.stopped) return;
        for (const { account, record } of taken) this.begin(account, record as unknown as OutboxItem, now);
        // A full batch: more may be due.
        if (room > 0 && taken.length === room) this.again = true;
      })
      .catch((err: unknown) => this.ctx.log.event('outbox.error', { reason: err instanceof Error ? err.message : String(err) }, 'error'))
      .finally(() => {
        this.running = false;
        for (const resolve of this.passWaiters.splice(0)) resolve();
        if (this.stopped) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.pass(), this.again && this.held < MAX_HELD ? 0 : POLL_MS);
        this.timer.unref();
      });
  }

  private begin(account: string, item: OutboxItem, nowMs: number): void {
    const before = item.work.type === 'alert' ? this.earlier(account, item) : undefined;
    if (before) {
      // A recovery never overtakes its failure (PagerDuty would resolve nothing, then page): it
      // waits for it, and is released the moment the failure is done (see deliver).
      const waiting: OutboxItem = { ...item, dueAt: new Date(Math.max(nowMs, Date.parse(before.dueAt)) + 1000).toISOString(), waitsFor: before.id };
      this.write(account, item.id, (tx) => tx.put(RUN_COLL.outbox, item.id, waiting as unknown as StoredRecord));
      return;
    }
    const key = item.work.type === 'alert' ? `${account}\u0000${item.work.channelId}` : 'mail';
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { busy: 0, queue: [] }));
    this.held += 1;
    this.heldIds.add(item.id);
    if (lane.busy >= MAX_IN_FLIGHT_PER_CHANNEL) lane.queue.push({ account, item, leasedAt: Date.now() });
    else this.launch(key, lane, account, item);
  }

  private launch(key: string, lane: { busy: number; queue: Array<{ account: string; item: OutboxItem; leasedAt: number }> }, account: string, item: OutboxItem): void {
    lane.busy += 1;
    const p = this.deliver(account, item)
      .catch((err: unknown) => this.ctx.log.event('outbox.error', { id: item.id, reason: err instanceof Error ? err.message : String(err) }, 'error'))
      .finally(() => {
        this.inFlight.delete(p);
        lane.busy -= 1;
        this.held -= 1;
        this.heldIds.delete(item.id);
        // The next item of this channel; one whose lease is about to end is left to be taken again.
        while (!this.stopped && lane.queue.length > 0 && lane.busy < MAX_IN_FLIGHT_PER_CHANNEL) {
          const next = lane.queue.shift()!;
          this.held -= 1;
          this.heldIds.delete(next.item.id);
          if (Date.now() - next.leasedAt < LEASE_MS / 2) this.begin(next.account, next.item, this.ctx.options.now());
        }
        if (lane.busy === 0 && lane.queue.length === 0) this.lanes.delete(key);
        // Room came free for a batch: due items waiting for it go now (a lease per batch, not per delivery).
        if (this.again && MAX_HELD - this.held >= LEASE_BATCH) this.kick();
      });
    this.inFlight.add(p);
  }

  /** An alert queued before `item` for the same channel and check, still undelivered. */
  private earlier(account: string, item: OutboxItem): OutboxItem | undefined {
    const queued = item.checkId === null ? [] : this.ctx.store.query<OutboxItem & StoredRecord>(account, RUN_COLL.outbox, { checkId: item.checkId, limit: MAX_RUN_READ });
    return sameAlert(queued, item).find((o) => o.createdAt < item.createdAt);
  }

  /**
   * Alerts queued after `item` for the same channel and check that wait for it (postponed by
   * `begin`), as `tx` sees them. Not those a taker holds: an item leased while this one was sent
   * (its lease answered after the delivery ended, or taken by another instance) is being delivered:
   * made due again here, it was leased again and delivered a second time.
   */
  private waiting(tx: Transaction, item: OutboxItem): OutboxItem[] {
    const queued = item.checkId === null ? [] : tx.query<OutboxItem & StoredRecord>(RUN_COLL.outbox, { checkId: item.checkId, limit: MAX_RUN_READ });
    return sameAlert(queued, item).filter((o) => o.createdAt > item.createdAt && o.waitsFor === item.id && !this.heldIds.has(o.id));
  }

  /** Whether something waits for the pass under way to end (a delivery, or `idle`): tests that hold a pass's lease answer it then. */
  get waitsForPass(): boolean {
    return this.passWaiters.length > 0;
  }

  /** Resolves at once when no pass is under way, else when it ended (its lease answered, what it took begun). */
  private passEnded(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise<void>((resolve) => this.passWaiters.push(resolve));
  }

  private async deliver(account: string, item: OutboxItem): Promise<void> {
    const attempts = item.attempts + 1;
    const work = item.work;
    let outcome: SendOutcome;
    let channel: ChannelRecord | undefined;
    if (work.type === 'alert') {
      channel = this.ctx.store.get<ChannelRecord & StoredRecord>(account, COLL.alertChannels, work.channelId);
      outcome = channel ? await this.senders!.send(channel, work.message) : { ok: false, permanent: true, error: `alert channel ${work.channelId} was deleted before the alert was sent` };
    } else {
      outcome = await this.senders!.sendMail(work.mail);
    }
    // A lease under way is answered first: what it took is then held here or waits for this item
    // (see `waiting`), and what this write reads of the queue is what the lease left.
    await this.passEnded();
    const now = this.ctx.options.now();
    const step = nextStep(outcome, attempts, now, this.ctx.options.timeScale);
    let freed = false;
    this.write(account, item.id, (tx) => {
      if (step.done) {
        tx.delete(RUN_COLL.outbox, item.id);
        // What waited for this one (its recovery) may go now.
        for (const later of this.waiting(tx, item)) {
          freed = true;
          const released: OutboxItem = { ...later, dueAt: new Date(now).toISOString() };
          delete released.waitsFor;
          tx.put(RUN_COLL.outbox, later.id, released as unknown as StoredRecord);
        }
      } else {
        // Sent, so it waits for nothing any more.
        const again: OutboxItem = { ...item, attempts, dueAt: new Date(step.dueMs).toISOString() };
        delete again.waitsFor;
        tx.put(RUN_COLL.outbox, item.id, again as unknown as StoredRecord);
      }
      if (work.type !== 'alert') return;
      const stored = tx.get(RUN_COLL.alertNotifications, item.id) as unknown as AlertNotification | undefined;
      // Deleted meanwhile (a check's cascade keeps them, so only by hand): nothing to show.
      if (!stored) return;
      const status: NotificationStatus = step.status;
      tx.put(RUN_COLL.alertNotifications, item.id, {
        ...stored,
        status,
        attempts,
        notificationResult: step.result,
        timestamp: step.status === 'SUCCESS' ? new Date(now).toISOString() : stored.timestamp,
      } as unknown as StoredRecord);
    });
    this.report(work, channel, step, attempts);
    // A retry goes when it is due, and what waited for this item goes now, not at the next poll
    // (up to POLL_MS later: at --time-scale 1000, a 15 ms wait before the second attempt took
    // 500 ms). A retry due after the next poll is left to it.
    if (!step.done) this.wakeIn(step.dueMs - now);
    else if (freed) this.kick();
  }

  /** A pass in `ms` (real time), unless one comes sooner: the next poll, or another wake. */
  private wakeIn(ms: number): void {
    if (this.stopped || ms >= POLL_MS) return;
    const at = Date.now() + Math.max(0, ms);
    if (this.wake && this.wake.at <= at) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.kick();
    }, Math.max(0, ms));
    timer.unref();
    this.wake = { timer, at };
  }

  /**
   * Writes how an attempt went through the group commit (one fsync per batch, at most
   * GROUP_COMMIT_MS later), not one commit per delivery: a synchronous commit per delivery held
   * the event loop for its fsync (35 deliveries a second on SQLite, timeouts under a burst). A
   * write lost to a crash in those milliseconds costs a second delivery, never a lost one: the
   * item is due again when its lease ends.
   */
  private write(account: string, id: string, stage: (tx: Transaction) => void): void {
    try {
      const tx = this.ctx.store.begin(account);
      stage(tx);
      tx.commitDeferred();
    } catch (err) {
      // Not written: the item is due again when its lease ends, and is sent again then.
      this.ctx.log.event('outbox.error', { id, reason: err instanceof Error ? err.message : String(err) }, 'error');
    }
  }

  private report(work: OutboxWork, channel: ChannelRecord | undefined, step: NextStep, attempts: number): void {
    const who =
      work.type === 'alert'
        ? { account: work.account, channel: work.channelId, type: channel?.type, alert: work.message.alertType, check: work.message.checkName }
        : { account: work.account, mail: work.purpose };
    const name = work.type === 'alert' ? 'notification' : 'mail';
    if (step.done && step.status === 'SUCCESS') this.ctx.log.event(`${name}.sent`, { ...who, attempt: attempts });
    else if (step.done) this.ctx.log.event(`${name}.failed`, { ...who, attempts, reason: step.result }, 'error');
    else this.ctx.log.event(`${name}.retry`, { ...who, attempt: attempts, reason: step.result, next: new Date(step.dueMs).toISOString() }, 'warn');
  }
}
