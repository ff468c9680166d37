import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import type { RunRecorder } from '../rundata/recorder.js';
import { followIncident, type TriggerIncident } from './incidents.js';
import { renderTemplate as renderMessageTemplate } from '../alerts/render.js';
import { resolveSenderSettings } from '../alerts/settings.js';
import type { AlertMessage, ChannelRecord } from '../alerts/types.js';
import { sendWebhook as sendWebhookRequest } from '../alerts/webhook.js';
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

/** Fills `{{VAR}}` placeholders of a webhook template (a payload of `alertPayload`); unknown ones become "". */
export function renderTemplate(template: string, payload: Record<string, unknown>): string {
  return renderMessageTemplate(template, payload as Partial<AlertMessage>);
}

/** Sends one webhook request; returns null when it got a 2xx answer, else what went wrong (never a credential). */
export async function sendWebhook(config: Record<string, unknown>, payload: Record<string, unknown>): Promise<string | null> {
  const outcome = await sendWebhookRequest(resolveSenderSettings({ timeoutMs: WEBHOOK_TIMEOUT_MS }), config, payload as Partial<AlertMessage>);
  return outcome.ok ? null : outcome.error;
}
