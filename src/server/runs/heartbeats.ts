import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import type { HeartbeatEvent } from '../rundata/types.js';
import type { Alerter, CheckRecord } from './alerts.js';
import type { RunRecorder } from '../rundata/recorder.js';
import { classifyPing, missedDeadlines, nextDeadline, type HeartbeatSpec } from './heartbeat.js';

/** Per heartbeat check: when it last pinged (or began waiting) and the last deadline recorded as missed. */
interface HeartbeatMemory {
  anchorMs: number;
  failedThroughMs: number | null;
}

/** Heartbeat timing memory, journaled with the rest of the state. */
export const HEARTBEAT_STATE_COLL = 'heartbeatStates';

type HeartbeatCheck = CheckRecord & { heartbeat?: Partial<HeartbeatSpec> & { pingToken?: string } };

/** What a ping tells about its caller. */
export interface PingSource {
  source: string;
  userAgent: string;
}

/**
 * Heartbeat checks (api-decisions §5.5): pings become RECEIVED/EARLY/GRACE/LATE events and pass
 * the check; a deadline passing without a ping becomes a FAILING event and fails it.
 */
export class Heartbeats {
  constructor(
    private readonly ctx: ServerContext,
    private readonly recorder: RunRecorder,
    private readonly alerter: Alerter,
  ) {}

  /** Records a ping for the check holding `token`; false when no check does. */
  async ping(token: string, from: PingSource): Promise<boolean> {
    const found = this.byToken(token);
    if (!found) return false;
    const { account, check } = found;
    const now = this.ctx.options.now();
    const memory = this.memory(account, check.id);
    const spec = specOf(check);
    const state = memory === undefined || spec === undefined ? 'RECEIVED' : classifyPing(spec, memory.anchorMs, now, this.ctx.options.timeScale);
    this.event(account, check, state, now, from);
    this.save(account, check.id, { anchorMs: now, failedThroughMs: null });
    await this.alerter.onVerdict(account, check, 'passed', alertAbout(now, null));
    return true;
  }

  /**
   * Records FAILING for every deadline the check missed by `nowMs`, and fails it. `waitFromNow`
   * (a check newly created, activated, or seen after a restart) starts the wait afresh: pings
   * nobody could have received are not held against it.
   */
  checkDeadlines(account: string, check: HeartbeatCheck, nowMs: number, waitFromNow: boolean): void {
    const spec = specOf(check);
    if (spec === undefined) return;
    const memory = this.memory(account, check.id);
    if (memory === undefined || waitFromNow) {
      this.save(account, check.id, { anchorMs: nowMs, failedThroughMs: null });
      return;
    }
    const missed = missedDeadlines(spec, memory.anchorMs, memory.failedThroughMs, nowMs, this.ctx.options.timeScale);
    if (missed.length === 0) return;
    for (const deadline of missed) this.event(account, check, 'FAILING', deadline, { source: 'scheduler', userAgent: 'mac serve' });
    this.save(account, check.id, { ...memory, failedThroughMs: missed[missed.length - 1] });
    const message = `No ping received within ${spec.period} ${spec.periodUnit} plus ${spec.grace} ${spec.graceUnit} of grace`;
    void this.alerter.onVerdict(account, check, 'failed', alertAbout(missed[missed.length - 1], message)).catch(() => undefined);
  }

  /** When checkDeadlines next has something to record for the check (infinity: never, until it pings or changes). */
  nextDeadlineMs(account: string, check: HeartbeatCheck): number {
    const spec = specOf(check);
    const memory = spec && this.memory(account, check.id);
    if (!spec || !memory) return Number.POSITIVE_INFINITY;
    return nextDeadline(spec, memory.anchorMs, memory.failedThroughMs, this.ctx.options.timeScale);
  }

  private byToken(token: string): { account: string; check: HeartbeatCheck } | undefined {
    for (const account of this.ctx.store.accountIds()) {
      const check = this.ctx.store.list<HeartbeatCheck>(account, COLL.checks).find((c) => c.checkType === 'HEARTBEAT' && c.heartbeat?.pingToken === token);
      if (check) return { account, check };
    }
    return undefined;
  }

  private memory(account: string, checkId: string): HeartbeatMemory | undefined {
    return this.ctx.store.get(account, HEARTBEAT_STATE_COLL, checkId) as HeartbeatMemory | undefined;
  }

  private save(account: string, checkId: string, memory: HeartbeatMemory): void {
    const tx = this.ctx.store.begin(account);
    tx.put(HEARTBEAT_STATE_COLL, checkId, { ...memory });
    tx.commit();
  }

  private event(account: string, check: CheckRecord, state: HeartbeatEvent['state'], atMs: number, from: PingSource): void {
    this.recorder.recordHeartbeatEvent(account, { checkId: check.id, state, timestamp: new Date(atMs).toISOString(), source: from.source, userAgent: from.userAgent });
  }
}

function specOf(check: HeartbeatCheck): HeartbeatSpec | undefined {
  const h = check.heartbeat;
  if (!h || typeof h.period !== 'number' || !h.periodUnit) return undefined;
  return { period: h.period, periodUnit: h.periodUnit, grace: h.grace ?? 0, graceUnit: h.graceUnit ?? 'seconds' };
}

function alertAbout(atMs: number, errorMessage: string | null) {
  return { runLocation: 'local', responseTime: 0, startedAt: new Date(atMs).toISOString(), errorMessage, checkResultId: null };
}
