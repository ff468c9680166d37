import { sendHttp, urlUnder } from './http.js';
import { failed } from './outcome.js';
import { headline, linkOf, nameOf, oneLine, reasonOf } from './render.js';
import type { AlertMessage, AlertMessageType, SendOutcome, SenderSettings } from './types.js';

/**
 * PAGERDUTY channels: PagerDuty's Events API v2 (`POST {pagerdutyUrl}/v2/enqueue`). The check
 * alert's id is the `dedup_key`: a retried or repeated trigger joins the open alert instead of
 * paging again, and the recovery resolves exactly that alert. The channel's `serviceKey` is the
 * integration's routing key, a credential: never shown.
 *
 * Degraded and SSL-expiry alerts trigger too, with severity `warning` (failures are `critical`):
 * a channel receives degraded alerts only when its owner turned `sendDegraded` on, and the
 * service's urgency rules in PagerDuty decide whether a warning wakes anyone.
 */

/**
 * PagerDuty answers 400 to an event it will never accept (a bad routing key, a missing field);
 * 401, 403, 404, 413 and 422 come from a proxy or a changed API and are as final.
 */
const PERMANENT = new Set([400, 401, 403, 404, 413, 422]);

const SEVERITY: Record<AlertMessageType, string> = {
  ALERT_FAILURE: 'critical',
  ALERT_DEGRADED: 'warning',
  ALERT_SSL_EXPIRY: 'warning',
  ALERT_RECOVERY: 'info',
};

/** The Events API v2 body for `m`: `trigger` for failures (and degraded, SSL expiry), `resolve` for recoveries. */
export function pagerdutyEvent(m: AlertMessage, routingKey: string): Record<string, unknown> {
  const link = linkOf(m);
  const event: Record<string, unknown> = {
    routing_key: routingKey,
    event_action: m.alertType === 'ALERT_RECOVERY' ? 'resolve' : 'trigger',
    dedup_key: m.checkAlertId,
  };
  if (m.alertType !== 'ALERT_RECOVERY') {
    const timestamp = Number.isNaN(Date.parse(m.startedAt)) ? undefined : new Date(m.startedAt).toISOString();
    event.payload = {
      summary: oneLine(`${headline(m)}: ${reasonOf(m)}`, 1024),
      source: oneLine(m.runLocation, 255) || 'mac',
      severity: SEVERITY[m.alertType],
      ...(timestamp ? { timestamp } : {}),
      component: nameOf(m),
      group: oneLine(m.checkType, 255),
      class: m.alertType,
      custom_details: {
        checkId: m.checkId,
        checkName: m.checkName,
        checkType: m.checkType,
        runLocation: m.runLocation,
        responseTime: m.responseTime,
        startedAt: m.startedAt,
        errorMessage: m.errorMessage,
        checkResultId: m.checkResultId,
        ...(m.sslDaysRemaining !== undefined ? { sslDaysRemaining: m.sslDaysRemaining, sslExpiresAt: m.sslExpiresAt } : {}),
      },
    };
    event.client = 'mac';
    if (link) {
      event.client_url = link;
      event.links = [{ href: link, text: 'The run' }];
    }
  }
  return event;
}

/** Sends `m` to PagerDuty; 202 means the event was accepted. */
export async function sendPagerduty(settings: SenderSettings, config: Record<string, unknown>, m: AlertMessage): Promise<SendOutcome> {
  const key = typeof config.serviceKey === 'string' ? config.serviceKey.trim() : '';
  if (!key) return failed('the PagerDuty channel has no serviceKey', [], { permanent: true });
  if (!m.checkAlertId) return failed('the alert has no id to deduplicate it by', [key], { permanent: true });
  return sendHttp(settings, {
    method: 'POST',
    url: urlUnder(settings.pagerdutyUrl, '/v2/enqueue'),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(pagerdutyEvent(m, key)),
    permanent: PERMANENT,
    secrets: [key],
  });
}
