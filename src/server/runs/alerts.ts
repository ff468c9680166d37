import { randomUUID } from 'node:crypto';
import type { ServerContext } from '../context.js';
import { stageAlert } from '../alerts/outbox.js';
import type { AlertMessage, ChannelRecord } from '../alerts/types.js';
import type { TlsCertificate } from '../../runner/probe.js';
import { COLL } from '../kinds.js';
import type { RunRecorder } from '../rundata/recorder.js';
import { stageIncident, type TriggerIncident } from './incidents.js';
import { kickMail } from '../status-pages/mails.js';
import { revisionOf, StaleWrite } from '../store/store.js';
import { activeWindow, type MaintenanceWindowRecord } from './maintenance.js';
import { INITIAL_ALERT_MEMORY, SEND_FLAG, stepAlertState, type AlertMemory, type AlertSettings, type AlertType, type SessionVerdict } from './alert-state.js';

/**
 * What is stored per check: its alert memory, the incident it has open, and the id of the check
 * alert under way (set when the check leaves PASSING, shared by its reminders and its recovery).
 */
type StoredAlertState = AlertMemory & { openIncidentId?: string | null; checkAlertId?: string | null; rev?: number };

/**
 * How many times a verdict is applied again after losing the compare-and-set of the check's alert
 * state to another writer. Each loss means another writer's transition committed, so this bounds
 * only a burst of simultaneous results of one check (every instance retries at once).
 */
const MAX_VERDICT_ATTEMPTS = 16;

/** The stored check fields the runs read (the API's check body plus `id`). */
export interface CheckRecord {
  [key: string]: unknown;
  id: string;
  name: string;
  checkType: string;
  activated?: boolean;
  muted?: boolean;
  tags?: string[];
  groupId?: number | null;
  locations?: string[] | null;
  privateLocations?: string[] | null;
  runParallel?: boolean;
  frequency?: number;
  frequencyOffset?: number;
  shouldFail?: boolean;
  alertSettings?: AlertSettings;
  alertChannelSubscriptions?: Array<{ alertChannelId: number; activated: boolean }>;
  triggerIncident?: TriggerIncident | null;
}

/** What an alert says about the run that caused it. */
export interface AlertContext {
  runLocation: string;
  responseTime: number;
  startedAt: string;
  errorMessage: string | null;
  checkResultId: string | null;
}

// Channel defaults (api-decisions §3.5), for records stored without the flags.
const SEND_DEFAULT: Record<AlertType, boolean> = { ALERT_FAILURE: true, ALERT_RECOVERY: true, ALERT_DEGRADED: false };

/** Per check: which certificate each channel was last told about, and on which day. */
export const SSL_ALERT_COLL = 'sslAlerts';
const DAY_MS = 86_400_000;

/** Per-check alert memory, journaled with the rest of the state. */
export const ALERT_STATE_COLL = 'alertStates';

/**
 * Moves a check's alert state by each finished session and queues the alerts it produces: the
 * new state and one notification per channel (IN_PROGRESS) are one transaction, and the outbox's
 * deliverer sends them (alerts/outbox.ts). Nothing is queued when the check is muted.
 */
export class Alerter {
  constructor(
    private readonly ctx: ServerContext,
    // Kept for the heartbeats and engine that build it with their recorder.
    _recorder?: RunRecorder,
  ) {}

  /**
   * Applies one session's verdict; resolves once its state and alerts are written. The state is
   * read, moved and written back with its incident and its notifications in one transaction that
   * is a compare-and-set on the state's revision: when another writer (another instance on the
   * same database, receiving a result of the same check from another location or agent) moved the
   * state in between, nothing is written and the verdict is applied again to the state as it is
   * now. So each transition is announced once, by the writer that made it, and none is lost.
   */
  async onVerdict(account: string, check: CheckRecord, verdict: SessionVerdict, about: AlertContext): Promise<AlertType[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.applyVerdict(account, check, verdict, about);
      } catch (err) {
        if (!(err instanceof StaleWrite) || attempt >= MAX_VERDICT_ATTEMPTS) throw err;
      }
    }
  }

  /** One read-decide-write of `onVerdict`; throws StaleWrite when the state moved meanwhile. */
  private applyVerdict(account: string, check: CheckRecord, verdict: SessionVerdict, about: AlertContext): AlertType[] {
    const now = this.ctx.options.now();
    const minuteMs = 60_000 / this.ctx.options.timeScale;
    // What the database holds now (another instance may have written it since this one last read).
    const stored = this.ctx.store.getLatest(account, ALERT_STATE_COLL, check.id) as StoredAlertState | undefined;
    const rev = revisionOf(stored);
    const step = stepAlertState(stored ?? INITIAL_ALERT_MEMORY, verdict, check.alertSettings ?? {}, now, minuteMs);
    const tx = this.ctx.store.begin(account);
    const incident = stageIncident(this.ctx, tx, check, step.previous, step.memory.state, stored?.openIncidentId ?? null);
    // A check alert begins when the check leaves PASSING and ends with its return to it.
    let checkAlertId = stored?.checkAlertId ?? null;
    if (step.previous === 'PASSING' && step.memory.state !== 'PASSING') checkAlertId = randomUUID();
    const alertId = checkAlertId ?? randomUUID();
    if (step.memory.state === 'PASSING') checkAlertId = null;
    const next: StoredAlertState = { ...step.memory, openIncidentId: incident.openIncidentId, checkAlertId, rev: rev + 1 };
    // Muted checks, and checks in a maintenance window in progress, alert no one (their state still moves).
    const silenced = check.muted === true || (step.events.length > 0 && this.inMaintenance(account, check, now));
    const channels = silenced || step.events.length === 0 ? [] : this.subscribedChannels(account, check);
    const sends = step.events.flatMap((event) => channels.filter((ch) => ch[SEND_FLAG[event.alertType]] ?? SEND_DEFAULT[event.alertType]).map((ch) => ({ ch, event })));
    const events = silenced ? [] : step.events.map((e) => e.alertType);
    // Most sessions leave the state as it was and alert no one: then there is nothing to write.
    if (stored && sameState(stored, next) && sends.length === 0 && !incident.mails) return events;
    tx.expect(ALERT_STATE_COLL, check.id, rev);
    tx.put(ALERT_STATE_COLL, check.id, next as unknown as Record<string, unknown>);
    for (const { ch, event } of sends) stageAlert(tx, ch, alertMessage(event.alertType, alertId, check, about, this.runUrl(check, about), event.reminder), now);
    tx.commit();
    if (step.previous !== step.memory.state) {
      this.ctx.log.event('check.state', { account, check: check.name, checkId: check.id, from: step.previous, to: step.memory.state, location: about.runLocation });
    }
    if (incident.mails) kickMail(this.ctx, incident.mails);
    if (sends.length > 0) this.ctx.outbox.kick();
    return events;
  }

  /**
   * The certificate an HTTPS check saw: each subscribed channel with `sslExpiry` gets one
   * ALERT_SSL_EXPIRY once the days left drop to its `sslExpiryThreshold` (default 30) or below,
   * at most one per certificate and channel per day (remembered per check in SSL_ALERT_COLL).
   */
  onCertificate(account: string, check: CheckRecord, certificate: TlsCertificate, about: AlertContext): void {
    if (check.muted === true) return;
    const now = this.ctx.options.now();
    const daysLeft = Math.floor((Date.parse(certificate.validTo) - now) / DAY_MS);
    const watching = this.subscribedChannels(account, check).filter((ch) => ch.sslExpiry === true && daysLeft <= (ch.sslExpiryThreshold ?? 30));
    if (watching.length === 0) return;
    const day = new Date(now).toISOString().slice(0, 10);
    const mark = `${certificate.fingerprint256 || certificate.validTo}@${day}`;
    const sent = (this.ctx.store.get(account, SSL_ALERT_COLL, check.id) as { byChannel?: Record<string, string> } | undefined)?.byChannel ?? {};
    const due = watching.filter((ch) => sent[String(ch.id)] !== mark);
    if (due.length === 0) return;
    const tx = this.ctx.store.begin(account);
    const byChannel = { ...sent };
    for (const ch of due) {
      byChannel[String(ch.id)] = mark;
      const message: AlertMessage = {
        ...alertMessage('ALERT_FAILURE', randomUUID(), check, about, this.runUrl(check, about)),
        alertType: 'ALERT_SSL_EXPIRY',
        errorMessage: daysLeft < 0 ? `the certificate of ${certificate.subject || 'the server'} expired on ${certificate.validTo}` : `the certificate of ${certificate.subject || 'the server'} expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'} (${certificate.validTo})`,
        sslDaysRemaining: daysLeft,
        sslExpiresAt: certificate.validTo,
      };
      stageAlert(tx, ch, message, now);
    }
    tx.put(SSL_ALERT_COLL, check.id, { id: check.id, byChannel });
    tx.commit();
    this.ctx.log.event('check.certificate', { account, check: check.name, checkId: check.id, daysLeft, validTo: certificate.validTo, channels: due.length });
    this.ctx.outbox.kick();
  }

  /** Channels of the check's activated subscriptions (its own, or its group's). */
  subscribedChannels(account: string, check: CheckRecord): ChannelRecord[] {
    const ids = new Set<number>();
    for (const s of this.ctx.store.list(account, COLL.alertSubscriptions)) {
      const matches = s.checkId === check.id || (s.groupId !== null && s.groupId !== undefined && s.groupId === check.groupId);
      if (matches && s.activated !== false) ids.add(Number(s.alertChannelId));
    }
    // A check record may carry its subscriptions inline instead of in the shared collection.
    for (const s of check.alertChannelSubscriptions ?? []) if (s.activated !== false) ids.add(Number(s.alertChannelId));
    return [...ids]
      .sort((a, b) => a - b)
      .map((id) => this.ctx.store.get(account, COLL.alertChannels, id) as ChannelRecord | undefined)
      .filter((ch): ch is ChannelRecord => ch !== undefined);
  }

  /** Whether a maintenance window in progress covers the check (runs/maintenance.ts). */
  private inMaintenance(account: string, check: CheckRecord, nowMs: number): boolean {
    return activeWindow(this.ctx.store.list<MaintenanceWindowRecord>(account, COLL.maintenanceWindows), check.tags ?? [], nowMs) !== null;
  }

  /** The public page of the run, when the service knows its public URL. */
  private runUrl(check: CheckRecord, about: AlertContext): string | null {
    const base = this.ctx.options.alerts.publicUrl ?? this.ctx.options.publicUrl;
    if (!base || !about.checkResultId) return null;
    return `${base.replace(/\/+$/, '')}/checks/${encodeURIComponent(check.id)}/results/${encodeURIComponent(about.checkResultId)}`;
  }
}

/** The message of one alert (every channel renders it). */
export function alertMessage(alertType: AlertType, checkAlertId: string, check: CheckRecord, about: AlertContext, runUrl: string | null, reminder = false): AlertMessage {
  return {
    alertType,
    checkAlertId,
    checkId: check.id,
    checkName: check.name,
    checkType: check.checkType,
    runLocation: about.runLocation,
    responseTime: about.responseTime,
    startedAt: about.startedAt,
    errorMessage: alertType === 'ALERT_RECOVERY' ? null : about.errorMessage,
    checkResultId: about.checkResultId,
    runUrl,
    ...(reminder ? { reminder } : {}),
  };
}

/** Whether two alert states hold the same values (flat records; the revision aside). */
function sameState(a: StoredAlertState, b: StoredAlertState): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('rev');
  for (const k of keys) if ((a as unknown as Record<string, unknown>)[k] !== (b as unknown as Record<string, unknown>)[k]) return false;
  return true;
}
