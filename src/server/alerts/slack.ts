import { sendHttp } from './http.js';
import { failed } from './outcome.js';
import { escapeSlack, factsOf, headline, linkOf, oneLine, reasonOf } from './render.js';
import type { AlertMessage, SendOutcome, SenderSettings } from './types.js';

/**
 * SLACK channels: a POST of Slack's message shape (`text` for notifications, `blocks` for the
 * message) to the channel's incoming-webhook URL. The URL is the credential: it is never shown.
 */

/**
 * Slack's incoming webhooks answer 400 invalid_payload, 403 action_prohibited, 404
 * channel_not_found / no_service and 410 channel_is_archived: the same message can never pass.
 */
const PERMANENT = new Set([400, 403, 404, 410]);

/** The body Slack receives for `m` (`channel` overrides the webhook's default channel when configured). */
export function slackBody(m: AlertMessage, channel?: string): Record<string, unknown> {
  const emoji = m.alertType === 'ALERT_RECOVERY' ? ':white_check_mark:' : m.alertType === 'ALERT_FAILURE' ? ':red_circle:' : ':warning:';
  const facts = factsOf(m).filter(([k]) => k !== 'Check' && k !== 'State' && k !== 'Why' && k !== 'Run');
  const link = linkOf(m);
  const blocks: Array<Record<string, unknown>> = [
    { type: 'header', text: { type: 'plain_text', text: oneLine(`${headline(m)}`, 150), emoji: false } },
    { type: 'section', text: { type: 'mrkdwn', text: `${emoji} ${escapeSlack(oneLine(reasonOf(m), 2900))}` } },
    { type: 'section', fields: facts.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${escapeSlack(v)}` })) },
  ];
  if (link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${escapeSlack(link).replace(/\|/g, '%7C')}|View the run>` } });
  const body: Record<string, unknown> = { text: escapeSlack(`[mac] ${headline(m)}`), blocks };
  if (channel) body.channel = channel;
  return body;
}

/** Posts `m` to the channel's incoming webhook. */
export async function sendSlack(settings: SenderSettings, config: Record<string, unknown>, m: AlertMessage): Promise<SendOutcome> {
  const raw = typeof config.url === 'string' ? config.url : '';
  const secrets = slackSecrets(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return failed('the Slack webhook URL is not a valid URL', secrets, { permanent: true });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return failed('the Slack webhook URL must be https', secrets, { permanent: true });
  const channel = typeof config.channel === 'string' && config.channel.trim() ? config.channel.trim() : undefined;
  return sendHttp(settings, {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(slackBody(m, channel)),
    permanent: PERMANENT,
    secrets,
  });
}

/** The secret parts of an incoming-webhook URL: its path segments (`/services/T.../B.../TOKEN`), user info and query. */
function slackSecrets(raw: string): string[] {
  try {
    const u = new URL(raw);
    const parts = u.pathname.split('/').filter((s) => s.length >= 12);
    return [...parts, u.pathname, u.username, u.password, ...u.searchParams.values()].filter(Boolean);
  } catch {
    return [raw];
  }
}
