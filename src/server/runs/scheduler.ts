import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { EXECUTED, type RunEngine } from './engine.js';
import type { CheckRecord } from './alerts.js';
import { HEARTBEAT_STATE_COLL, type Heartbeats } from './heartbeats.js';
import { firstRunDelayMs, nextDueMs, periodMs } from './schedule.js';
import { multiStepLoad, stopMultiStepRuns } from '../../runner/index.js';
import { DatabaseUnavailable } from '../store/errors.js';

/** How often the scheduler looks for due checks (real ms); bounds the precision of sub-minute runs. */
export const TICK_MS = 50;

/**
 * Scheduled sessions running at once, across all checks (each check has at most one: a run still
 * going skips the next). A session mostly waits on the network (a socket per location), so the
 * bound is high: with 16, as before, 16 checks whose targets do not answer (each session lasting
 * its whole timeout) took every slot and every other check stopped running while they waited,
 * which is when monitoring matters most.
 */
export const MAX_CONCURRENT_SESSIONS = 512;

/**
 * Multi-step runs are child processes in a small pool shared fairly between accounts: a due run
 * waits (keeping its due time, oldest first) while a full round of its account's runs already
 * waits in the pool, so that a short period or a high time scale cannot pile up processes.
 * Counted per account: another account's waiting runs do not hold this account's checks.
 */
/** How soon (real ms) a scan looks again for multi-step runs waiting for their account's round. */
const MULTI_STEP_RECHECK_MS = 500;

function multiStepBusy(account: string): boolean {
  const load = multiStepLoad(account);
  return load.pending >= load.concurrency;
}

/** Multi-step and browser checks share the script runner's pool. */
function isScripted(checkType: string): boolean {
  return checkType === 'MULTI_STEP' || checkType === 'BROWSER';
}

interface Plan {
  period: number;
  offset: number | undefined;
  nextDueMs: number;
}

/** A due run of this scan, started when a slot is free. */
interface Waiting {
  account: string;
  checkId: string;
  dueMs: number;
  check: CheckRecord;
  plan: Plan;
}

/**
 * Runs every activated TCP, DNS, URL, API, ICMP and multi-step check when due (api-decisions §5.1) and lets heartbeat
 * checks miss their deadlines. A check is first due `frequencyOffset` seconds after the
 * scheduler first sees it, then every period; a run still going when the next is due skips it.
 */
export class Scheduler {
  private readonly plans = new Map<string, Plan>();
  private timer: NodeJS.Timeout | undefined;
  // Activated checks of the previous scan: a heartbeat check not among them starts waiting afresh.
  private watching = new Set<string>();
  // What the last scan saw: the store versions it read, and the earliest time anything is due.
  private scannedVersions = '';
  private wakeMs = Number.NEGATIVE_INFINITY;
  // Whether the last scan left due runs waiting for a slot.
  private waitingForSlot = false;
  // Runs claimed and not answered yet (Store.claimRunsAsync): they hold their slots meanwhile,
  // and their checks (account and id) are not claimed again until the answer.
  private claiming = 0;
  private readonly claimingChecks = new Set<string>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly engine: RunEngine,
    private readonly heartbeats: Heartbeats,
    /** Scheduled sessions at once (MAX_CONCURRENT_SESSIONS; lower in tests that overload it). */
    private readonly maxSessions = MAX_CONCURRENT_SESSIONS,
  ) {}

  /** Starts ticking. */
  start(): void {
    this.timer ??= setInterval(() => this.safeTick(), TICK_MS);
  }

  /**
   * A tick from the timer: while the database is unavailable the tick is skipped (the store
   * reports the outage once) and the next one tries again; the scan resumes where it stood.
   */
  private safeTick(): void {
    try {
      this.tick();
    } catch (err) {
      if (!(err instanceof DatabaseUnavailable)) throw err;
    }
  }

  /**
   * Stops ticking, stops multi-step scripts under way, and waits for the sessions under way: all
   * of them, or up to `graceMs` (or until `cut` aborts) and then abandons the rest (see
   * RunEngine.settle). Returns how many were abandoned.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY, cut?: AbortSignal): Promise<number> {
    clearInterval(this.timer);
    this.timer = undefined;
    // Claims under way are answered first: their runs start (or their claims roll back), and
    // are waited for with the others.
    await this.ctx.store.claimsSettled();
    stopMultiStepRuns();
    return this.engine.settle(graceMs, cut);
  }

  /**
   * Scans every check of every account when one is due, when a slot came free for runs left
   * waiting, or when checks or heartbeat timings changed since the last scan; otherwise returns
   * at once, so that a tick costs nothing per stored check while nothing is due.
   */
  tick(): void {
    const now = this.ctx.options.now();
    const slotFreed = this.waitingForSlot && this.engine.activeSessions + this.claiming < this.maxSessions;
    if (now < this.wakeMs && !slotFreed && this.versions() === this.scannedVersions) return;
    this.wakeMs = this.scan(now);
    // Read after the scan: its own writes (heartbeat timings) need no second look.
    this.scannedVersions = this.versions();
  }

  private versions(): string {
    return `${this.ctx.store.version(COLL.checks)}/${this.ctx.store.version(HEARTBEAT_STATE_COLL)}`;
  }

  /**
   * One look at every check of every account; returns when the next one is due.
   *
   * A due run waits while every slot is taken (its due time is kept, not skipped), and the slots
   * free go to the runs due longest ago. Each is claimed under the latest point of its grid it has
   * reached. Overload is thus shed evenly over all checks: each one
   * waits its turn, and one whose wait outlasts its period skips the runs it missed. Starting the
   * runs met first instead gave every slot that came free to the same checks, and the checks met
   * last in each scan almost never ran.
   */
  private scan(now: number): number {
    const scale = this.ctx.options.timeScale;
    const seen = new Set<string>();
    let wake = Number.POSITIVE_INFINITY;
    const waiting: Waiting[] = [];
    for (const account of this.ctx.store.accountIds()) {
      for (const check of this.ctx.store.list<CheckRecord>(account, COLL.checks)) {
        if (check.activated === false) continue;
        const key = `${account}\u0000${check.id}`;
        if (check.checkType === 'HEARTBEAT') {
          seen.add(key);
          this.heartbeats.checkDeadlines(account, check, now, !this.watching.has(key));
          wake = Math.min(wake, this.heartbeats.nextDeadlineMs(account, check));
          continue;
        }
        if (!EXECUTED.has(check.checkType)) continue;
        seen.add(key);
        const period = periodMs(check, scale);
        let plan = this.plans.get(key);
        if (!plan || plan.period !== period || plan.offset !== check.frequencyOffset) {
          // On a database shared by several instances, the first one to see the plan sets its grid.
          const first = this.ctx.store.runAnchor(account, check.id, `${period}/${check.frequencyOffset ?? ''}`, now + firstRunDelayMs(check, scale), period, now);
          plan = { period, offset: check.frequencyOffset, nextDueMs: first };
          this.plans.set(key, plan);
        }
        if (now >= plan.nextDueMs) {
          // A claim of the check still under way: this due time waits for its answer (a second
          // claim would start a second run of the check beside the first). The answer rescans.
          if (this.claimingChecks.has(key)) continue;
          // A run still going skips this due time. A multi-step run whose account already has a
          // full round waiting keeps its due time and waits for the pool: skipping it gave the
          // slots to the same checks at every due time and the account's other checks never ran.
          if (this.engine.isRunning(check.id)) plan.nextDueMs = nextDueMs(plan.nextDueMs, period, now);
          else if (isScripted(check.checkType) && multiStepBusy(account)) {
            wake = Math.min(wake, now + MULTI_STEP_RECHECK_MS);
            continue;
          } else {
            waiting.push({ account, checkId: check.id, dueMs: plan.nextDueMs, check, plan });
            continue;
          }
        }
        wake = Math.min(wake, plan.nextDueMs);
      }
    }
    const free = Math.max(0, this.maxSessions - this.engine.activeSessions - this.claiming);
    // Oldest due first; the sort is stable, so runs due at the same time keep the checks' order.
    // Multi-step runs waiting for their account's round count too, so they are always sorted.
    if (waiting.length > free || waiting.some((w) => isScripted(w.check.checkType))) waiting.sort((a, b) => a.dueMs - b.dueMs);
    const due: Waiting[] = [];
    for (const run of waiting.slice(0, free)) {
      // The account's round filled up during this scan: the run keeps its due time.
      if (isScripted(run.check.checkType) && multiStepBusy(run.account)) {
        wake = Math.min(wake, now + MULTI_STEP_RECHECK_MS);
        continue;
      }
      // A run that waited past later points of its grid claims the latest one: another instance
      // that planned the check meanwhile (a restart) knows only those, and claiming the first
      // would let both run in one period.
      const { period } = run.plan;
      // The due times passed over are runs shed: they never run.
      const skipped = period > 0 ? Math.floor((now - run.dueMs) / period) : 0;
      if (skipped > 0) this.ctx.metrics?.runsShed(skipped);
      if (period > 0) run.dueMs += skipped * period;
      run.plan.nextDueMs = nextDueMs(run.dueMs, period, now);
      wake = Math.min(wake, run.plan.nextDueMs);
      // A multi-step run starts at once: the next one's multiStepBusy counts it. Its claim is the
      // synchronous hold, which would end a hold of claimRunsAsync under way: it then waits.
      if (!isScripted(run.check.checkType)) due.push(run);
      else if (this.ctx.store.claimsUnderWay > 0) {
        run.plan.nextDueMs = run.dueMs;
        wake = Math.min(wake, now + MULTI_STEP_RECHECK_MS);
      } else this.ctx.store.claimRuns([run], () => this.engine.startSession(run.account, run.check, { dueMs: run.dueMs }));
    }
    // The claim makes one instance of several run a due time (always granted on one, and started
    // at once); on a shared database the claims are sent without holding the event loop and the
    // granted runs start once they are committed (Store.claimRunsAsync).
    this.claimAndStart(due);
    // Runs left waiting look again at the first tick that finds a slot free. The log says when
    // overload begins and ends (not at every tick of it).
    const shedding = waiting.length > free;
    this.ctx.metrics?.runsWaiting(Math.max(0, waiting.length - free));
    const running = this.engine.activeSessions + this.claiming;
    if (shedding && !this.waitingForSlot) this.ctx.log.event('runs.shed', { waiting: waiting.length - free, running, slots: this.maxSessions }, 'warn');
    else if (!shedding && this.waitingForSlot) this.ctx.log.event('runs.caught-up', { running, slots: this.maxSessions });
    this.waitingForSlot = shedding;
    // Deleted or deactivated checks start afresh if they come back.
    for (const key of this.plans.keys()) if (!seen.has(key)) this.plans.delete(key);
    this.watching = seen;
    return wake;
  }

  /**
   * Claims the due runs and starts those granted. While the claims are under way their runs hold
   * their slots (`claiming`) and their checks are not claimed again (`claimingChecks`).
   *
   * A claim answered after later points of its check's grid were reached (the database was slow,
   * or another instance held the same due time): the run starts late, and those points are passed
   * over, since the check is running then: they count as shed, as when a scan falls behind. A
   * claim that is not granted (another instance took the due time) leaves the check's next due
   * time as the scan set it, claimed at the next scan. A claim that fails starts nothing: its due
   * time is passed over and counts as shed; an outage is reported once by the store, anything
   * else on its error path. Every answer makes the next tick scan again.
   */
  private claimAndStart(due: readonly Waiting[]): void {
    if (due.length === 0) return;
    this.claiming += due.length;
    const keys = due.map((run) => `${run.account}\u0000${run.checkId}`);
    for (const key of keys) this.claimingChecks.add(key);
    const answered = due.map(() => false);
    let counted = true;
    const release = () => {
      if (counted) this.claiming -= due.length;
      counted = false;
    };
    this.ctx.store
      .claimRunsAsync(due, (i) => {
        // The slots pass from the claims to the sessions in the same turn.
        release();
        answered[i] = true;
        this.claimingChecks.delete(keys[i]);
        const run = due[i];
        const { period } = run.plan;
        const now = this.ctx.options.now();
        if (period > 0 && now >= run.plan.nextDueMs) {
          this.ctx.metrics?.runsShed(Math.floor((now - run.plan.nextDueMs) / period) + 1);
          run.plan.nextDueMs = nextDueMs(run.dueMs, period, now);
        }
        this.engine.startSession(run.account, run.check, { dueMs: run.dueMs });
      })
      .then(
        () => answered.fill(true),
        (err: unknown) => {
          if (!(err instanceof DatabaseUnavailable)) this.ctx.store.onError(err);
        },
      )
      .finally(() => {
        release();
        const lost = answered.filter((a) => !a).length;
        if (lost > 0) this.ctx.metrics?.runsShed(lost);
        for (const key of keys) this.claimingChecks.delete(key);
        this.wakeMs = Number.NEGATIVE_INFINITY;
      });
  }
}
