import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import type { RunEngine } from './engine.js';
import type { CheckRecord } from './alerts.js';
import type { Heartbeats } from './heartbeats.js';
import { firstRunDelayMs, nextDueMs, periodMs } from './schedule.js';

/** How often the scheduler looks for due checks (real ms); bounds the precision of sub-minute runs. */
export const TICK_MS = 50;

/** Scheduled sessions running at once, across all checks. */
const MAX_CONCURRENT_SESSIONS = 16;

interface Plan {
  period: number;
  offset: number | undefined;
  nextDueMs: number;
}

/**
 * Runs every activated TCP and DNS check when due (api-decisions §5.1) and lets heartbeat
 * checks miss their deadlines. A check is first due `frequencyOffset` seconds after the
 * scheduler first sees it, then every period; a run still going when the next is due skips it.
 */
export class Scheduler {
  private readonly plans = new Map<string, Plan>();
  private timer: NodeJS.Timeout | undefined;
  // Activated checks of the previous tick: a heartbeat check not among them starts waiting afresh.
  private watching = new Set<string>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly engine: RunEngine,
    private readonly heartbeats: Heartbeats,
  ) {}

  /** Starts ticking. */
  start(): void {
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
  }

  /** Stops ticking and waits for the sessions under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.engine.idle();
  }

  /** One look at every check of every account. */
  tick(): void {
    const now = this.ctx.options.now();
    const scale = this.ctx.options.timeScale;
    const seen = new Set<string>();
    for (const account of this.ctx.store.accountIds()) {
      for (const check of this.ctx.store.list<CheckRecord>(account, COLL.checks)) {
        if (check.activated === false) continue;
        const key = `${account}\u0000${check.id}`;
        if (check.checkType === 'HEARTBEAT') {
          seen.add(key);
          this.heartbeats.checkDeadlines(account, check, now, !this.watching.has(key));
          continue;
        }
        if (check.checkType !== 'TCP' && check.checkType !== 'DNS') continue;
        seen.add(key);
        const period = periodMs(check, scale);
        let plan = this.plans.get(key);
        if (!plan || plan.period !== period || plan.offset !== check.frequencyOffset) {
          plan = { period, offset: check.frequencyOffset, nextDueMs: now + firstRunDelayMs(check, scale) };
          this.plans.set(key, plan);
        }
        if (now < plan.nextDueMs) continue;
        plan.nextDueMs = nextDueMs(plan.nextDueMs, period, now);
        if (this.engine.isRunning(check.id) || this.engine.activeSessions >= MAX_CONCURRENT_SESSIONS) continue;
        this.engine.startSession(account, check);
      }
    }
    // Deleted or deactivated checks start afresh if they come back.
    for (const key of this.plans.keys()) if (!seen.has(key)) this.plans.delete(key);
    this.watching = seen;
  }
}
