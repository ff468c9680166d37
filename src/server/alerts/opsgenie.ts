import { sendHttp, urlUnder } from './http.js';
import { failed } from './outcome.js';
import { factsOf, headline, nameOf, oneLine, stateOf } from './render.js';
import type { AlertMessage, SendOutcome, SenderSettings } from './types.js';

/**
 * OPSGENIE channels: Opsgenie's Alert API. A failure (degraded, SSL expiry) creates an alert
 * whose `alias` is the check alert's id, so that Opsgenie folds a retried or repeated create into
 * the open alert; the recovery closes it by that alias. The channel's `apiKey` goes in
 * `Authorization: GenieKey ...` and is never shown. `region` EU uses the EU endpoint.
 */

/** Opsgenie documents 400 (invalid request), 401/403 (key) and 422 as final; 404 from a wrong path is too. */
const PERMANENT = new Set([400, 401, 403, 404, 422]);
const PRIORITIES = new Set(['P1', 'P2', 'P3', 'P4', 'P5']);

/** The body of Opsgenie's create-alert request for `m`. */
export function opsgenieAlert(m: AlertMessage, priority: string): Record<string, unknown> {
  const details: Record<string, string> = {};
  for (const [k, v] of factsOf(m)) details[k] = v;
  details['Check id'] = m.checkId;
  if (m.checkResultId) details['Check result id'] = m.checkResultId;
  return {
    message: oneLine(headline(m), 130),
    alias: m.checkAlertId,
    description: factsOf(m)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    priority,
    source: 'mac',
    entity: nameOf(m).slice(0, 512),
    tags: ['mac', stateOf(m).toLowerCase().replace(/ /g, '-')],
    details,
  };
}

/** Sends `m` to Opsgenie: create for failures, close by alias for recoveries; 202 means accepted. */
export async function sendOpsgenie(settings: SenderSettings, config: Record<string, unknown>, m: AlertMessage): Promise<SendOutcome> {
  const key = typeof config.apiKey === 'string' ? config.apiKey.trim() : '';
  if (!key) return failed('the Opsgenie channel has no apiKey', [], { permanent: true });
  if (!m.checkAlertId) return failed('the alert has no id to use as its alias', [key], { permanent: true });
  const base = config.region === 'EU' ? settings.opsgenieUrl.EU : settings.opsgenieUrl.US;
  const priority = typeof config.priority === 'string' && PRIORITIES.has(config.priority) ? config.priority : 'P3';
  const headers = { authorization: `GenieKey ${key}`, 'content-type': 'application/json' };
  const close = m.alertType === 'ALERT_RECOVERY';
  const url = close ? urlUnder(base, `/v2/alerts/${encodeURIComponent(m.checkAlertId)}/close?identifierType=alias`) : urlUnder(base, '/v2/alerts');
  const body = close ? { source: 'mac', note: oneLine(`${headline(m)}: the check passes again.`, 25_000) } : opsgenieAlert(m, priority);
  return sendHttp(settings, { method: 'POST', url, headers, body: JSON.stringify(body), permanent: PERMANENT, secrets: [key] });
}
