/**
 * The mails of status-page subscriptions: the confirmation mail of the double opt-in, and one
 * mail per confirmed subscriber for an incident and each incident update with
 * `notifySubscribers`. They are staged in the outbox (alerts/outbox.ts) in the transaction of the
 * change that causes them; everything from the page, the incident and the address is escaped in
 * the HTML part.
 */
import type { ServerContext } from '../context.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { Transaction } from '../store/store.js';
import { stageMail } from '../alerts/outbox.js';
import type { MailMessage } from '../alerts/types.js';
import { html } from '../pages/html.js';
import { statusPath } from '../pages/status.js';
import { linkKey, linkUrl, publicBase, signLink } from './links.js';
import type { IncidentUpdate, StoredIncident, StoredStatusPage, Subscription } from './model.js';
import { pendingUntilMs, takeMailAllowance } from './subscriptions.js';

/** Characters of a page's, incident's or update's text put in a subject line at most. */
const SUBJECT_CHARS = 150;

const oneLine = (s: string, max = SUBJECT_CHARS) => {
  const flat = s.replace(/[\r\n\t\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const titleCase = (status: string) => status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, ' ');

function mailHtml(title: string, body: ReturnType<typeof html>, footer: ReturnType<typeof html>): string {
  return html`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;max-width:40em">${body}<hr><p style="color:#555;font-size:small">${footer}</p></body></html>`.value;
}

/** The confirmation mail of a new (or repeated) subscription: the link to confirm it, valid until the subscription expires. */
export function confirmationMail(page: StoredStatusPage, sub: Subscription, confirmUrl: string, pageUrl: string): MailMessage {
  const until = new Date(pendingUntilMs(sub)).toISOString().slice(0, 16).replace('T', ' ');
  const name = oneLine(page.name);
  return {
    to: sub.address,
    subject: `Confirm your subscription to ${name}`,
    text: [
      `Someone, hopefully you, asked to receive e-mail updates of the status page "${name}" (${pageUrl}) at this address.`,
      '',
      `To confirm, open this link before ${until} UTC:`,
      confirmUrl,
      '',
      'If you did not ask for this, ignore this mail: nothing will be sent to you.',
    ].join('\n'),
    html: mailHtml(
      `Confirm your subscription to ${name}`,
      html`<p>Someone, hopefully you, asked to receive e-mail updates of the status page <a href="${pageUrl}">${name}</a> at this address.</p>
<p><a href="${confirmUrl}">Confirm the subscription</a> (before ${until} UTC).</p>`,
      html`If you did not ask for this, ignore this mail: nothing will be sent to you.`,
    ),
  };
}

/** The mail of an incident update to one subscriber, with its one-click unsubscribe link (RFC 8058). */
export function incidentMail(page: StoredStatusPage, incident: StoredIncident, update: IncidentUpdate, first: boolean, sub: Subscription, urls: { page: string; unsubscribe: string }): MailMessage {
  const name = oneLine(page.name);
  const status = titleCase(update.status);
  const subject = `[${name}] ${first ? 'New incident' : status}: ${oneLine(incident.name)}`;
  const when = `${update.publicIncidentUpdateDate.slice(0, 16).replace('T', ' ')} UTC`;
  return {
    to: sub.address,
    subject,
    text: [
      `${incident.name}`,
      `Status: ${status} · Severity: ${incident.severity.toLowerCase()} · ${when}`,
      '',
      update.description,
      '',
      `Status page: ${urls.page}`,
      '',
      `You receive this mail because you subscribed to updates of ${name}. Unsubscribe: ${urls.unsubscribe}`,
    ].join('\n'),
    html: mailHtml(
      subject,
      html`<h1 style="font-size:1.3em">${incident.name}</h1>
<p><strong>${status}</strong> · Severity: ${incident.severity.toLowerCase()} · ${when}</p>
<p style="white-space:pre-wrap">${update.description}</p>
<p><a href="${urls.page}">${name}</a></p>`,
      html`You receive this mail because you subscribed to updates of ${name}. <a href="${urls.unsubscribe}">Unsubscribe</a>.`,
    ),
    headers: { 'List-Unsubscribe': `<${urls.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** Stages the confirmation mail of a PENDING subscription when the address's hourly allowance lets it; returns whether it did. */
export function stageConfirmation(ctx: ServerContext, tx: Transaction, page: StoredStatusPage, sub: Subscription, nowMs: number): boolean {
  if (!takeMailAllowance(tx, sub.address, nowMs)) {
    ctx.log.event('subscription.mail-dropped', { account: tx.account, page: page.id, reason: 'hourly allowance of the address spent', mail: 'confirmation' }, 'warn');
    return false;
  }
  const token = signLink(linkKey(ctx.store), 'confirm', page.id, sub, pendingUntilMs(sub));
  stageMail(tx, confirmationMail(page, sub, linkUrl(ctx, page, 'confirm', token), `${publicBase(ctx)}${statusPath(page.url)}`), 'subscription confirmation', nowMs);
  return true;
}

/** Subscribers mailed per transaction: an update with more stages a job worked off in chunks this size (fanout.ts). */
export const FANOUT_CHUNK = 200;

/** A stored job of fanout.ts: the subscriptions still to mail about one update. */
export interface MailJob {
  [key: string]: unknown;
  id: string;
  incidentId: string;
  updateId: string;
  /** When it is due: now, or the end of its taker's lease. */
  dueAt: string;
  /** Subscription ids not mailed yet, in order. */
  pending: string[];
}

/** What notifying the subscribers of one update came to. */
export interface NotifyCount {
  queued: number;
  /** Mails not queued because the address's hourly allowance was spent. */
  dropped: number;
  /** Subscribers left to a job (more than FANOUT_CHUNK of them). */
  deferred: number;
}

/** The account's pages that show one of the incident's services, by id. */
export function subscriberPages(tx: Transaction, incident: StoredIncident): Map<string, StoredStatusPage> {
  const serviceIds = new Set(incident.services.map((s) => s.id));
  const pages = tx.list<StoredStatusPage>(STATUS_COLL.statusPages).filter((p) => p.cards.some((c) => c.services.some((s) => serviceIds.has(s.id))));
  return new Map(pages.map((p) => [p.id, p]));
}

/**
 * Stages the mail of `update` to each of `subs` that is confirmed and subscribed to one of
 * `pages`, within the hourly allowance of its address (the rest dropped, with a log line).
 */
export function mailSubscribers(
  ctx: ServerContext,
  tx: Transaction,
  incident: StoredIncident,
  update: IncidentUpdate,
  pages: Map<string, StoredStatusPage>,
  subs: Subscription[],
  nowMs: number,
): NotifyCount {
  const count: NotifyCount = { queued: 0, dropped: 0, deferred: 0 };
  const key = linkKey(ctx.store);
  const base = publicBase(ctx);
  const first = incident.incidentUpdates[0]?.id === update.id;
  for (const sub of subs) {
    const page = pages.get(sub.statusPageId);
    if (!page || sub.status !== 'VERIFIED') continue;
    if (!takeMailAllowance(tx, sub.address, nowMs)) {
      count.dropped++;
      continue;
    }
    const unsubscribe = linkUrl(ctx, page, 'unsubscribe', signLink(key, 'unsubscribe', page.id, sub, 0));
    stageMail(tx, incidentMail(page, incident, update, first, sub, { page: `${base}${statusPath(page.url)}`, unsubscribe }), 'incident update to a subscriber', nowMs);
    count.queued++;
  }
  if (count.dropped > 0) {
    ctx.log.event('subscription.mail-dropped', { account: tx.account, incident: incident.id, mails: count.dropped, reason: 'hourly allowance of the addresses spent' }, 'warn');
  }
  return count;
}

/**
 * Stages, in `tx` (the transaction of the incident or update), the mails of `update` (which the
 * caller saw has `notifySubscribers`) to every confirmed subscriber of the account's pages that
 * show one of the incident's services: at once for up to FANOUT_CHUNK subscribers, else as a job
 * the SubscriberMailer works off in chunks. A subscriber of two such pages gets one mail per page
 * (each with its own unsubscribe link). The caller commits, then calls `kickMail`.
 */
export function notifySubscribers(ctx: ServerContext, tx: Transaction, incident: StoredIncident, update: IncidentUpdate, nowMs: number): NotifyCount {
  const pages = subscriberPages(tx, incident);
  if (pages.size === 0) return { queued: 0, dropped: 0, deferred: 0 };
  const subs = tx.list<Subscription>(STATUS_COLL.subscriptions).filter((s) => s.status === 'VERIFIED' && pages.has(s.statusPageId));
  if (subs.length <= FANOUT_CHUNK) return mailSubscribers(ctx, tx, incident, update, pages, subs, nowMs);
  const job: MailJob = { id: tx.uuid(), incidentId: incident.id, updateId: update.id, dueAt: new Date(nowMs).toISOString(), pending: subs.map((s) => s.id) };
  tx.put(STATUS_COLL.mailJobs, job.id, job);
  return { queued: 0, dropped: 0, deferred: subs.length };
}

/** After the commit of what `notifySubscribers` staged: the outbox and the mailer look at once. */
export function kickMail(ctx: ServerContext, count: NotifyCount): void {
  if (count.queued > 0) ctx.outbox.kick();
  if (count.deferred > 0) ctx.subscriberMail.kick();
}
