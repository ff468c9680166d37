import { escapeHtml } from '../../html.js';
import type { AlertMessage, AlertMessageType, MailMessage } from './types.js';

/**
 * What an alert says, in the words every channel uses: the new state, the check, why, where and
 * when. A check's name and an error message are whatever the account or the target wrote: each
 * renderer escapes them for its medium (HTML, Slack's mrkdwn, TwiML) and bounds them.
 */

/** The state an alert announces, in subjects and titles. */
const STATE: Record<AlertMessageType, string> = {
  ALERT_FAILURE: 'FAILING',
  ALERT_RECOVERY: 'RECOVERED',
  ALERT_DEGRADED: 'DEGRADED',
  ALERT_SSL_EXPIRY: 'SSL CERTIFICATE EXPIRING',
};

/** `FAILING`, `STILL FAILING` (a reminder), `RECOVERED`, ... */
export function stateOf(m: AlertMessage): string {
  return m.reminder && m.alertType === 'ALERT_FAILURE' ? 'STILL FAILING' : STATE[m.alertType];
}

/** `text` on one line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The check's name as shown (one line, bounded). */
export function nameOf(m: AlertMessage): string {
  return oneLine(m.checkName, 200) || m.checkId;
}

/** `FAILING: <check name>`. */
export function headline(m: AlertMessage): string {
  return `${stateOf(m)}: ${nameOf(m)}`;
}

/** Why the state changed, in one sentence. */
export function reasonOf(m: AlertMessage): string {
  switch (m.alertType) {
    case 'ALERT_RECOVERY':
      return 'The check passes again.';
    case 'ALERT_SSL_EXPIRY': {
      const days = m.sslDaysRemaining;
      const when = m.sslExpiresAt ? ` (${m.sslExpiresAt})` : '';
      return days === undefined ? `The certificate expires soon${when}.` : `The certificate expires in ${days} day${days === 1 ? '' : 's'}${when}.`;
    }
    default:
      return oneLine(m.errorMessage ?? '', 1000) || 'No error message was recorded.';
  }
}

/** The facts of an alert as label/value pairs, in the order every channel shows them. */
export function factsOf(m: AlertMessage): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ['Check', nameOf(m)],
    ['State', stateOf(m)],
    ['Why', reasonOf(m)],
    ['Location', oneLine(m.runLocation, 100) || 'unknown'],
    ['Time', oneLine(m.startedAt, 64)],
  ];
  if (m.alertType !== 'ALERT_SSL_EXPIRY') facts.push(['Response time', `${Math.round(m.responseTime)} ms`]);
  facts.push(['Check type', oneLine(m.checkType, 64)]);
  const link = linkOf(m);
  if (link) facts.push(['Run', link]);
  return facts;
}

/** The run's page, only when it is an http(s) URL (anything else is not a link to follow). */
export function linkOf(m: AlertMessage): string | null {
  if (!m.runUrl) return null;
  try {
    const u = new URL(m.runUrl);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
  } catch {
    return null;
  }
}

/** The alert mail to `to`: subject `[mac] FAILING: <check name>`, a text and an HTML part. */
export function alertMail(m: AlertMessage, to: string): MailMessage {
  const facts = factsOf(m);
  const text = `${headline(m)}\n\n${facts.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n-- \nmac serve\n`;
  const rows = facts
    .map(([k, v]) => {
      const value = k === 'Run' ? `<a href="${escapeHtml(v)}">${escapeHtml(v)}</a>` : escapeHtml(v);
      return `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${value}</td></tr>`;
    })
    .join('\n');
  const html = `<!doctype html>
<html><body style="font-family:sans-serif">
<h2>${escapeHtml(headline(m))}</h2>
<table>
${rows}
</table>
<p style="color:#666">mac serve</p>
</body></html>
`;
  return { to, subject: oneLine(`[mac] ${headline(m)}`, 250), text, html };
}

/** Escapes text for Slack's mrkdwn: `<!channel>` or `<url|label>` in a check's name must stay text. */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** The text of an SMS: one line, short enough for two segments. */
export function smsText(m: AlertMessage): string {
  return oneLine(`[mac] ${headline(m)}: ${reasonOf(m)}`, 300);
}

/** What a call says. */
export function callText(m: AlertMessage): string {
  return oneLine(`Alert from mac. The check ${nameOf(m)} is ${stateOf(m).toLowerCase()}. ${reasonOf(m)}`, 600);
}

/** The JSON body a webhook receives (api-decisions §5.7). */
export function alertPayload(m: AlertMessage): Record<string, unknown> {
  return {
    alertType: m.alertType,
    checkId: m.checkId,
    checkName: m.checkName,
    checkType: m.checkType,
    runLocation: m.runLocation,
    responseTime: m.responseTime,
    startedAt: m.startedAt,
    errorMessage: m.errorMessage,
  };
}

// Template variables: the message's fields in upper snake case, e.g. {{CHECK_NAME}}.
const TEMPLATE_VARS: Record<string, keyof AlertMessage> = {
  ALERT_TYPE: 'alertType',
  CHECK_ID: 'checkId',
  CHECK_NAME: 'checkName',
  CHECK_TYPE: 'checkType',
  RUN_LOCATION: 'runLocation',
  RESPONSE_TIME: 'responseTime',
  STARTED_AT: 'startedAt',
  ERROR_MESSAGE: 'errorMessage',
  CHECK_RESULT_ID: 'checkResultId',
  CHECK_ALERT_ID: 'checkAlertId',
  RUN_URL: 'runUrl',
};

/** Fills `{{VAR}}` placeholders of a webhook template; unknown ones become "". */
export function renderTemplate(template: string, m: Partial<AlertMessage>): string {
  return template.replace(/\{\{\s*([A-Z_]+)\s*\}\}/g, (_, name: string) => {
    const value = TEMPLATE_VARS[name] === undefined ? undefined : m[TEMPLATE_VARS[name]];
    return value === null || value === undefined ? '' : String(value);
  });
}
