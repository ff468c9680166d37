import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import type { RunRecorder } from '../rundata/recorder.js';
import { followIncident, type TriggerIncident } from './incidents.js';
import { activeWindow, type MaintenanceWindowRecord } from './maintenance.js';
import { INITIAL_ALERT_MEMORY, SEND_FLAG, stepAlertState, type AlertMemory, type AlertSettings, type AlertType, type SessionVerdict } from './alert-state.js';

/** What is stored per check: its alert memory and the incident it has open. */
type StoredAlertState = AlertMemory & { openIncidentId?: string | null };

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

/** An alert channel as stored (api-decisions §3.5). */
interface ChannelRecord {
  id: number;
  type: string;
  config: Record<string, unknown>;
  sendFailure?: boolean;
  sendRecovery?: boolean;
  sendDegraded?: boolean;
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

/** Per-check alert memory, journaled with the rest of the state. */
export const ALERT_STATE_COLL = 'alertStates';

/** Webhook requests give up after this long (api-decisions §5.7). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Moves a check's alert state by each finished session and delivers the alerts it produces:
 * webhooks over HTTP, every other channel type to the outbox; nothing when the check is muted.
 */
export class Alerter {
  constructor(
    private readonly ctx: ServerContext,
    private readonly recorder: RunRecorder,
  ) {}

  /** Applies one session's verdict; resolves once every alert of it is delivered or recorded as failed. */
  async onVerdict(account: string, check: CheckRecord, verdict: SessionVerdict, about: AlertContext): Promise<AlertType[]> {
    const minuteMs = 60_000 / this.ctx.options.timeScale;
    const stored = this.ctx.store.get(account, ALERT_STATE_COLL, check.id) as StoredAlertState | undefined;
    const step = stepAlertState(stored ?? INITIAL_ALERT_MEMORY, verdict, check.alertSettings ?? {}, this.ctx.options.now(), minuteMs);
    const openIncidentId = followIncident(this.ctx, account, check, step.previous, step.memory.state, stored?.openIncidentId ?? null);
    const next = { ...step.memory, openIncidentId };
    // Most sessions leave the state as it was: then there is nothing to write.
    if (!stored || !sameState(stored, next)) {
      const tx = this.ctx.store.begin(account);
      tx.put(ALERT_STATE_COLL, check.id, next);
      tx.commit();
    }
    if (check.muted === true || step.events.length === 0) return [];
    if (activeWindow(this.ctx.store.list<MaintenanceWindowRecord>(account, COLL.maintenanceWindows), check.tags ?? [], this.ctx.options.now()) !== null) return [];
    const channels = this.subscribedChannels(account, check);
    await Promise.all(
      step.events.flatMap((event) =>
        channels.filter((ch) => ch[SEND_FLAG[event.alertType]] ?? SEND_DEFAULT[event.alertType]).map((ch) => this.deliver(account, ch, event.alertType, check, about)),
      ),
    );
    return step.events.map((e) => e.alertType);
  }

  /** Channels of the check's activated subscriptions (its own, or its group's). */
  private subscribedChannels(account: string, check: CheckRecord): ChannelRecord[] {
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

  private async deliver(account: string, channel: ChannelRecord, alertType: AlertType, check: CheckRecord, about: AlertContext): Promise<void> {
    let error: string | null = null;
    if (channel.type === 'WEBHOOK') error = await sendWebhook(channel.config, alertPayload(alertType, check, about));
    this.recorder.recordNotification(account, {
      alertChannelId: channel.id,
      channelType: channel.type,
      alertType,
      checkId: check.id,
      checkResultId: about.checkResultId,
      status: error === null ? 'SENT' : 'FAILED',
      error,
    });
  }
}

/** Whether two alert states hold the same values (flat records). */
function sameState(a: StoredAlertState, b: StoredAlertState): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if ((a as unknown as Record<string, unknown>)[k] !== (b as unknown as Record<string, unknown>)[k]) return false;
  return true;
}

/** The JSON body a webhook receives (api-decisions §5.7). */
export function alertPayload(alertType: AlertType, check: CheckRecord, about: AlertContext): Record<string, unknown> {
  return {
    alertType,
    checkId: check.id,
    checkName: check.name,
    checkType: check.checkType,
    runLocation: about.runLocation,
    responseTime: about.responseTime,
    startedAt: about.startedAt,
    errorMessage: about.errorMessage,
  };
}

// Template variables: the payload's fields in upper snake case, e.g. {{CHECK_NAME}}.
const TEMPLATE_VARS: Record<string, string> = {
  ALERT_TYPE: 'alertType',
  CHECK_ID: 'checkId',
  CHECK_NAME: 'checkName',
  CHECK_TYPE: 'checkType',
  RUN_LOCATION: 'runLocation',
  RESPONSE_TIME: 'responseTime',
  STARTED_AT: 'startedAt',
  ERROR_MESSAGE: 'errorMessage',
};

/** Fills `{{VAR}}` placeholders of a webhook template; unknown ones become "". */
export function renderTemplate(template: string, payload: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([A-Z_]+)\s*\}\}/g, (_, name: string) => {
    const value = TEMPLATE_VARS[name] === undefined ? undefined : payload[TEMPLATE_VARS[name]];
    return value === null || value === undefined ? '' : String(value);
  });
}

/** Sends one webhook request; returns null when it got a 2xx answer, else what went wrong. */
export async function sendWebhook(config: Record<string, unknown>, payload: Record<string, unknown>): Promise<string | null> {
  const url = new URL(String(config.url));
  for (const p of (config.queryParameters as Array<{ key: string; value: string }> | undefined) ?? []) url.searchParams.append(p.key, p.value);
  const method = typeof config.method === 'string' ? config.method : 'POST';
  const headers: Record<string, string> = {};
  for (const h of (config.headers as Array<{ key: string; value: string }> | undefined) ?? []) headers[h.key] = h.value;
  const template = typeof config.template === 'string' ? config.template : '';
  const body = method === 'GET' || method === 'HEAD' ? undefined : template ? renderTemplate(template, payload) : JSON.stringify(payload);
  if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
    headers['content-type'] = template ? 'text/plain; charset=utf-8' : 'application/json';
  }
  try {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? null : `HTTP ${res.status}`;
  } catch (err) {
    // fetch wraps network errors; the cause names what happened (ECONNREFUSED 127.0.0.1:9).
    const cause = (err as { cause?: { message?: string } }).cause;
    if ((err as Error).name === 'TimeoutError') return `timeout after ${WEBHOOK_TIMEOUT_MS} ms`;
    return cause?.message ?? (err as Error).message;
  }
}
