import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type MacServer } from '../../../src/server/server.js';
import type { ServerOptions } from '../../../src/server/options.js';
import { SILENT_LOG, type ServiceLog } from '../../../src/server/log.js';
import { STATUS_COLL } from '../../../src/server/rundata/collections.js';
import { DEFAULT_SUBSCRIBE_RATE_LIMIT } from '../../../src/server/options.js';
import { addressKey, addSubscription, MAX_SUBSCRIPTIONS_PER_PAGE, PENDING_TTL_MS } from '../../../src/server/status-pages/subscriptions.js';
import { FANOUT_CHUNK } from '../../../src/server/status-pages/mails.js';
import { startSmtpServer, smtpSendMail, type ReceivedMail, type SmtpServer } from '../../helpers/smtp.js';
import { testStateFile } from '../../helpers/store-mode.js';

/** A listening service whose mails go to a real SMTP server through nodemailer. */
interface Service {
  server: MacServer;
  url: string;
  events: Array<{ event: string; fields: Record<string, unknown> }>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  post(path: string, form?: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }>;
  get(path: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

let smtp: SmtpServer;
const services: Service[] = [];
let common: Promise<Service> | undefined;

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await (await common)?.close();
  await smtp.close();
});
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

/**
 * The service of the cases that need no option of their own: one per file, not one per case (a
 * service on a fresh database took 0.5-1.5 s to open on PostgreSQL, most of the file's time). Each
 * case has pages, addresses and mails of its own (distinct page URLs and addresses, mails counted
 * from the case's start), and waits until what it sent is delivered. The form's limit per client
 * address is off: the cases together come near what it allows a minute, and it has its own case.
 */
function shared(): Promise<Service> {
  common ??= startService({ subscribeRateLimit: { limit: 0, windowSeconds: 60 } }, false);
  return common;
}

async function startService(options: Partial<ServerOptions> = {}, perCase = true): Promise<Service> {
  const events: Service['events'] = [];
  const log: ServiceLog = { event: (event, fields = {}) => void events.push({ event, fields }) };
  const mail = smtpSendMail(smtp.url);
  const server = createServer(
    { port: 0, runs: false, rateLimit: { limit: 0, windowSeconds: 60 }, stateFile: testStateFile(), log, ...options },
    { senders: { send: () => Promise.resolve({ ok: false, permanent: true, error: 'not in this test' }), sendMail: mail.sendMail, close: mail.close } },
  );
  const url = await server.listen();
  const s: Service = {
    server,
    url,
    events,
    async api(method, path, body) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: 'Bearer mac-dev-key', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async post(path, form) {
      const res = await fetch(path.startsWith('http') ? path : `${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form ? new URLSearchParams(form) : undefined,
      });
      return { status: res.status, text: await res.text(), headers: res.headers };
    },
    async get(path) {
      const res = await fetch(path.startsWith('http') ? path : `${url}${path}`);
      return { status: res.status, text: await res.text() };
    },
    close: () => server.close(),
  };
  if (perCase) services.push(s);
  return s;
}

/** A service, a page showing it, and an incident helper. */
async function pageOf(s: Service, url: string) {
  const service = (await s.api('POST', '/v1/status-pages/services', { name: `${url} API` })).body;
  const page = (await s.api('POST', '/v1/status-pages', { name: `${url} <Shop>`, url, cards: [{ name: 'Main', services: [{ id: service.id }] }] })).body;
  expect(page.id).toBeTruthy();
  return { service, page };
}

/** Mails received from index `from` on, to `to`. */
const mailsTo = (to: string, from = 0): ReceivedMail[] => smtp.messages.slice(from).filter((m) => m.to.includes(to));
/** The first link of a mail's text under `path`. */
const linkIn = (mail: ReceivedMail, kind: 'confirm' | 'unsubscribe') => new RegExp(`https?://\\S+/${kind}/\\S+`).exec(mail.text)?.[0];

describe('status-page subscribers (double opt-in, incident mails, one-click unsubscribe) over a real SMTP server', () => {
  it('subscribe, confirmation mail, confirm, incident update mails with List-Unsubscribe, unsubscribe, next update gives none', async () => {
    const s = await shared();
    const { service, page } = await pageOf(s, 'flow');
    const start = smtp.messages.length;
    const who = 'reader@example.com';

    const posted = await s.post('/status/flow/subscriptions', { email: who });
    expect(posted.status).toBe(200);
    expect(posted.text).toContain('Check your inbox to confirm');
    await s.server.deliverer.idle();
    const [confirmation] = await smtp.waitFor(start + 1).then(() => mailsTo(who, start));
    expect(confirmation.subject).toBe('Confirm your subscription to flow <Shop>');
    expect(confirmation.html).toContain('flow &lt;Shop&gt;');
    const confirm = linkIn(confirmation, 'confirm')!;
    expect(confirm.startsWith(`${s.url}/status/flow/confirm/`)).toBe(true);
    expect(confirmation.html).toContain(`href="${confirm}"`);
    // The address is signed into the link, never written in it.
    expect(confirm).not.toContain('reader');
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body.map((x: any) => x.status)).toEqual(['PENDING']);

    // GET shows a button and changes nothing; its POST confirms.
    const shown = await s.get(confirm);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Confirm subscription');
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body[0].status).toBe('PENDING');
    const confirmed = await s.post(confirm);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Subscription confirmed');
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body).toEqual([
      expect.objectContaining({ type: 'EMAIL', address: who, status: 'VERIFIED', updated_at: expect.any(String) }),
    ]);

    // An incident with notifySubscribers: one mail with a one-click unsubscribe link.
    const before = smtp.messages.length;
    const incident = (
      await s.api('POST', '/v1/status-pages/incidents', {
        name: 'Checkout <b>down</b>',
        severity: 'MAJOR',
        services: [{ id: service.id }],
        incidentUpdates: [{ description: 'We are looking & will report.', notifySubscribers: true }],
      })
    ).body;
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 1);
    const [opened] = mailsTo(who, before);
    expect(opened.subject).toBe('[flow <Shop>] New incident: Checkout <b>down</b>');
    expect(opened.text).toContain('We are looking & will report.');
    expect(opened.html).toContain('Checkout &lt;b&gt;down&lt;/b&gt;');
    expect(opened.html).not.toContain('<b>down');
    const unsubscribe = linkIn(opened, 'unsubscribe')!;
    expect(unsubscribe.startsWith(`${s.url}/status/flow/unsubscribe/`)).toBe(true);
    expect(opened.headers['list-unsubscribe']).toBe(`<${unsubscribe}>`);
    expect(opened.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

    // An update without notifySubscribers sends nothing; one with it sends a mail.
    await s.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'quiet', status: 'IDENTIFIED', notifySubscribers: false });
    await s.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'Fixed the cause', status: 'MONITORING', notifySubscribers: true });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 2);
    expect(mailsTo(who, before).map((m) => m.subject)).toEqual(['[flow <Shop>] New incident: Checkout <b>down</b>', '[flow <Shop>] Monitoring: Checkout <b>down</b>']);

    // One-click unsubscribe, as a mail client does it (RFC 8058).
    const gone = await s.post(unsubscribe, { 'List-Unsubscribe': 'One-Click' });
    expect(gone.status).toBe(200);
    expect(gone.text).toContain('Unsubscribed');
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body).toEqual([]);
    // Used up: the link does nothing more.
    expect((await s.post(unsubscribe)).status).toBe(400);

    const after = smtp.messages.length;
    await s.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'Resolved', status: 'RESOLVED', notifySubscribers: true });
    await s.server.deliverer.idle();
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo(who, after)).toEqual([]);
  });

  it('links start with the public URL when the service has one', async () => {
    const s = await startService({ publicUrl: 'https://status.example.com/mon' });
    await pageOf(s, 'public');
    const before = smtp.messages.length;
    await s.post('/status/public/subscriptions', { email: 'pub@example.com' });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 1);
    const link = linkIn(mailsTo('pub@example.com', before)[0], 'confirm')!;
    expect(link.startsWith('https://status.example.com/mon/status/public/confirm/')).toBe(true);
    expect(mailsTo('pub@example.com', before)[0].text).toContain('(https://status.example.com/mon/status/public)');
    // The same token works on the service itself.
    expect((await s.post(`/status/public/confirm/${link.slice(link.lastIndexOf('/') + 1)}`)).status).toBe(200);
  });

  it('mails only confirmed subscribers of pages that show the incident, one each', async () => {
    const s = await shared();
    const a = await pageOf(s, 'fan-a');
    const b = await pageOf(s, 'fan-b');
    await s.api('POST', `/v1/status-pages/${a.page.id}/subscriptions/bulk`, {
      subscriptions: [{ type: 'EMAIL', config: 'v1@example.com' }, { type: 'EMAIL', config: 'v2@example.com' }],
      autoVerify: true,
    });
    await s.api('POST', `/v1/status-pages/${b.page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'other-page@example.com' }], autoVerify: true });
    const before = smtp.messages.length;
    // Unconfirmed: a confirmation mail only, no incident mail.
    await s.post('/status/fan-a/subscriptions', { email: 'pending@example.com' });
    await s.api('POST', '/v1/status-pages/incidents', { name: 'Slow', severity: 'MINOR', services: [{ id: a.service.id }], incidentUpdates: [{ description: 'slow', notifySubscribers: true }] });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 3);
    await new Promise((r) => setTimeout(r, 200));
    const got = smtp.messages.slice(before).map((m) => `${m.to.join()} ${m.subject}`).sort();
    expect(got).toEqual([
      'pending@example.com Confirm your subscription to fan-a <Shop>',
      'v1@example.com [fan-a <Shop>] New incident: Slow',
      'v2@example.com [fan-a <Shop>] New incident: Slow',
    ]);
  });

  it('the bulk endpoint without autoVerify sends confirmation mails; with it, none', async () => {
    const s = await shared();
    const { page } = await pageOf(s, 'bulk');
    const before = smtp.messages.length;
    const made = await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'b1@example.com' }, { type: 'EMAIL', config: 'B1@example.com' }] });
    expect(made).toEqual({ status: 201, body: { created: 1, skipped: 1, status: 'PENDING' } });
    await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'b2@example.com' }], autoVerify: true });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.messages.slice(before).map((m) => m.to.join())).toEqual(['b1@example.com']);
    const link = linkIn(smtp.messages[before], 'confirm')!;
    expect((await s.post(link)).status).toBe(200);
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body.map((x: any) => [x.address, x.status]).sort()).toEqual([
      ['b1@example.com', 'VERIFIED'],
      ['b2@example.com', 'VERIFIED'],
    ]);
  });

  it('refuses forged, foreign, malformed and expired links with a 400 page and changes nothing', async () => {
    // A clock that runs, moved ahead by the test (the outbox waits on it).
    let ahead = 0;
    const s = await startService({ now: () => Date.now() + ahead });
    const { page } = await pageOf(s, 'links');
    await pageOf(s, 'links-other');
    const before = smtp.messages.length;
    await s.post('/status/links/subscriptions', { email: 'late@example.com' });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 1);
    const link = linkIn(mailsTo('late@example.com', before)[0], 'confirm')!;
    const token = link.slice(link.lastIndexOf('/') + 1);
    const [id, exp, mac] = token.split('.');
    const flipped = `${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.at(-1)}`;
    const forged = [
      `${id}.${exp}.${flipped}`,
      // A later expiry with the same MAC.
      `${id}.${(parseInt(exp, 36) + 86_400_000).toString(36)}.${mac}`,
      'nothing',
      `${id}.${exp}`,
    ];
    for (const t of forged) {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${s.url}/status/links/confirm/${t}`, { method });
        expect(res.status, `${method} ${t}`).toBe(400);
      }
    }
    // A confirmation link is not an unsubscribe link, nor a link of another page.
    expect((await s.post(`/status/links/unsubscribe/${token}`)).status).toBe(400);
    expect((await s.post(`/status/links-other/confirm/${token}`)).status).toBe(400);
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body.map((x: any) => x.status)).toEqual(['PENDING']);

    // Past its time, the link is refused and the unconfirmed subscription is gone.
    ahead += PENDING_TTL_MS + 1000;
    const expired = await s.post(link);
    expect(expired.status).toBe(400);
    expect(expired.text).toContain('expired');
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body).toEqual([]);
    // Subscribing again starts over: a new pending subscription and a new link that works.
    await s.post('/status/links/subscriptions', { email: 'late@example.com' });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 2);
    const again = linkIn(mailsTo('late@example.com', before)[1], 'confirm')!;
    expect(again).not.toBe(link);
    expect((await s.post(again)).status).toBe(200);
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body.map((x: any) => x.status)).toEqual(['VERIFIED']);
  });

  it('answers a new, a pending and a confirmed address byte for byte the same, headers included, and mails no confirmed one', async () => {
    const s = await shared();
    const { page } = await pageOf(s, 'same');
    await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'known@example.com' }], autoVerify: true });
    const before = smtp.messages.length;
    const answer = async (email: string) => {
      const r = await s.post('/status/same/subscriptions', { email });
      return { status: r.status, text: r.text, headers: [...r.headers].filter(([k]) => k !== 'date') };
    };
    const fresh = await answer('new@example.com');
    const pending = await answer('new@example.com');
    const known = await answer('KNOWN@example.com');
    expect(fresh.status).toBe(200);
    expect(pending).toEqual(fresh);
    expect(known).toEqual(fresh);
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 2);
    await new Promise((r) => setTimeout(r, 200));
    // The pending address got its link again; the confirmed one got nothing.
    expect(smtp.messages.slice(before).map((m) => m.to.join())).toEqual(['new@example.com', 'new@example.com']);
  });

  it('limits form posts per client address with a 429 page', async () => {
    // A clock that runs, moved ahead by the test (the outbox waits on it).
    let ahead = 0;
    const s = await startService({ now: () => Date.now() + ahead });
    await pageOf(s, 'rate');
    for (let i = 0; i < DEFAULT_SUBSCRIBE_RATE_LIMIT.limit; i++) expect((await s.post('/status/rate/subscriptions', { email: `r${i}@example.com` })).status).toBe(200);
    const refused = await s.post('/status/rate/subscriptions', { email: 'one-more@example.com' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    ahead += 61_000;
    expect((await s.post('/status/rate/subscriptions', { email: 'one-more@example.com' })).status).toBe(200);
  });

  it('keeps to the hourly mail allowance of an address, and logs what it dropped', async () => {
    // A clock that runs, moved ahead by the test (the outbox waits on it).
    let ahead = 0;
    const s = await startService({ now: () => Date.now() + ahead });
    const { service, page } = await pageOf(s, 'hourly');
    await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'busy@example.com' }], autoVerify: true });
    const before = smtp.messages.length;
    const incident = (await s.api('POST', '/v1/status-pages/incidents', { name: 'Flap', severity: 'MINOR', services: [{ id: service.id }], incidentUpdates: [{ description: '0', notifySubscribers: true }] })).body;
    for (let i = 1; i < 12; i++) await s.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: String(i), notifySubscribers: true });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 10);
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo('busy@example.com', before)).toHaveLength(10);
    expect(s.events.filter((e) => e.event === 'subscription.mail-dropped')).toHaveLength(2);
    ahead += 3_600_000;
    await s.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'next hour', notifySubscribers: true });
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 11);
    expect(mailsTo('busy@example.com', before)).toHaveLength(11);
  });

  it('opens an incident from a check with triggerIncident and mails the subscribers', async () => {
    const s = await shared();
    const { service, page } = await pageOf(s, 'trigger');
    await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'watcher@example.com' }], autoVerify: true });
    const { followIncident } = await import('../../../src/server/runs/incidents.js');
    const before = smtp.messages.length;
    const check = { name: 'web', triggerIncident: { serviceId: service.id, severity: 'MAJOR', name: 'Web down', description: 'The web check fails', notifySubscribers: true } };
    const open = followIncident(s.server.ctx, 'dev', check, 'PASSING', 'FAILING', null);
    expect(open).toBeTruthy();
    followIncident(s.server.ctx, 'dev', check, 'FAILING', 'PASSING', open);
    await s.server.deliverer.idle();
    await smtp.waitFor(before + 2);
    expect(mailsTo('watcher@example.com', before).map((m) => m.subject)).toEqual(['[trigger <Shop>] New incident: Web down', '[trigger <Shop>] Resolved: Web down']);
  });
});

describe('subscription bounds and keyed lookups', () => {
  it('finds an address through its keyed record: a post reads the same records with 1 or 2,000 subscriptions', async () => {
    const s = await shared();
    const { page } = await pageOf(s, 'keyed');
    const store = s.server.ctx.store;
    // Count the reads a post makes of the subscriptions: by id only, never a list.
    const counted = async () => {
      const calls: string[] = [];
      const orig = { get: store.get.bind(store), list: store.list.bind(store), entries: store.entries.bind(store) };
      store.get = ((a: string, k: string, id: string | number) => (calls.push(`get ${k}`), orig.get(a, k, id))) as typeof store.get;
      store.entries = ((a: string, k: string) => (calls.push(`entries ${k}`), orig.entries(a, k))) as typeof store.entries;
      try {
        await s.post('/status/keyed/subscriptions', { email: `probe-${calls.length}-${Math.random()}@example.com` });
      } finally {
        Object.assign(store, orig);
      }
      return calls.filter((c) => c.includes('Subscri'));
    };
    const few = await counted();
    for (let i = 0; i < 20; i++) {
      await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: Array.from({ length: 100 }, (_, j) => ({ type: 'EMAIL', config: `bulk-${i}-${j}@example.com` })), autoVerify: true });
    }
    const many = await counted();
    expect(many).toEqual(few);
    expect(few.every((c) => c.startsWith('get '))).toBe(true);
    expect(store.get('dev', STATUS_COLL.subscribers, addressKey('Bulk-3-7@Example.com'))).toMatchObject({ subscriptions: [{ statusPageId: page.id }] });
    expect(store.get('dev', STATUS_COLL.subscriptionTallies, page.id)).toEqual({ id: page.id, count: 2002 });
  });

  it('refuses subscriptions past the bound of a page: 409 from the API, the same answer from the form (logged)', async () => {
    const s = await shared();
    const logged = s.events.length;
    const { page } = await pageOf(s, 'full');
    // A page one short of its bound (the tally is what the bound reads).
    const tx = s.server.ctx.store.begin('dev');
    tx.put(STATUS_COLL.subscriptionTallies, page.id, { id: page.id, count: MAX_SUBSCRIPTIONS_PER_PAGE - 1 });
    tx.commit();
    expect((await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'last@example.com' }], autoVerify: true })).body).toMatchObject({ created: 1 });
    const refused = await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'more@example.com' }] });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain(`${MAX_SUBSCRIPTIONS_PER_PAGE} subscriptions`);
    const form = await s.post('/status/full/subscriptions', { email: 'more@example.com' });
    expect(form.status).toBe(200);
    expect(form.text).toContain('Check your inbox to confirm');
    expect(s.events.slice(logged).filter((e) => e.event === 'subscription.refused')).toHaveLength(1);
    expect((await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body.map((x: any) => x.address)).toEqual(['last@example.com']);
    // Unsubscribing frees a slot.
    const sub = (await s.api('GET', `/v1/status-pages/${page.id}/subscriptions`)).body[0];
    expect((await s.api('DELETE', `/v1/status-pages/${page.id}/subscriptions/${sub.id}`)).status).toBe(204);
    expect((await s.api('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'more@example.com' }], autoVerify: true })).status).toBe(201);
  });

  it('bounds the subscriptions of an address across pages; deleting a page frees its slots', async () => {
    const s = await shared();
    const pages = [];
    for (let i = 0; i < 21; i++) pages.push((await pageOf(s, `addr-${i}`)).page);
    for (const p of pages) await s.api('POST', `/v1/status-pages/${p.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'many@example.com' }], autoVerify: true });
    const counts = await Promise.all(pages.map(async (p) => (await s.api('GET', `/v1/status-pages/${p.id}/subscriptions`)).body.length));
    expect(counts.slice(0, 20).every((n) => n === 1)).toBe(true);
    expect(counts[20]).toBe(0);
    expect((await s.api('DELETE', `/v1/status-pages/${pages[0].id}`)).status).toBe(204);
    const made = await s.api('POST', `/v1/status-pages/${pages[20].id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'many@example.com' }], autoVerify: true });
    expect(made.body).toMatchObject({ created: 1 });
    expect(s.server.ctx.store.get('dev', STATUS_COLL.subscriptionTallies, pages[0].id)).toBeUndefined();
  });
});

describe('incident mails to many subscribers, in chunks', () => {
  /** An in-process service (no listening, nothing delivered) whose page has `n` confirmed subscribers. */
  async function many(n: number, clock: () => number) {
    const server = createServer({ runs: false, log: SILENT_LOG, stateFile: testStateFile(), now: clock });
    // The queue is counted, not delivered.
    await server.deliverer.stop();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await server.request(`http://127.0.0.1${path}`, { method, headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.json() as Promise<any>;
    };
    const service = await call('POST', '/v1/status-pages/services', { name: 'API' });
    const page = await call('POST', '/v1/status-pages', { name: 'Big', url: 'big', cards: [{ name: 'Main', services: [{ id: service.id }] }] });
    const tx = server.ctx.store.begin('dev');
    for (let i = 0; i < n; i++) addSubscription(tx, page.id, `m${i}@example.com`, 'VERIFIED', clock());
    tx.commit();
    const incident = await call('POST', '/v1/status-pages/incidents', { name: 'Big one', severity: 'MAJOR', services: [{ id: service.id }], incidentUpdates: [{ description: 'quiet' }] });
    const outbox = () => server.ctx.store.query<any>('dev', 'outbox', { limit: 1000 });
    const jobs = () => server.ctx.store.query<any>('dev', STATUS_COLL.mailJobs, { limit: 1000 });
    return { server, call, incident, outbox, jobs };
  }

  it('stages a job with the update, then the mails a chunk per transaction: each subscriber once', async () => {
    const n = FANOUT_CHUNK * 2 + 200;
    const m = await many(n, Date.now);
    try {
      await m.call('POST', `/v1/status-pages/incidents/${m.incident.id}/incident-updates`, { description: 'Everyone', notifySubscribers: true });
      // Nothing is mailed in the update's transaction: one job names every subscriber.
      expect(m.outbox()).toHaveLength(0);
      expect(m.jobs().map((j) => j.pending.length)).toEqual([n]);
      m.server.subscriberMail.start();
      await m.server.subscriberMail.idle();
      const to = m.outbox().map((o) => o.work.mail.to);
      expect(to).toHaveLength(n);
      expect(new Set(to).size).toBe(n);
      expect(m.jobs()).toEqual([]);
    } finally {
      await m.server.close();
    }
  });

  it('a job whose taker died is taken again when its lease ends, and finished', async () => {
    let ahead = 0;
    const m = await many(FANOUT_CHUNK + 10, () => Date.now() + ahead);
    try {
      await m.call('POST', `/v1/status-pages/incidents/${m.incident.id}/incident-updates`, { description: 'Everyone', notifySubscribers: true });
      // Another instance leased it and died.
      const now = Date.now() + ahead;
      expect(m.server.ctx.store.lease(STATUS_COLL.mailJobs, now, now + 60_000, 10)).toHaveLength(1);
      m.server.subscriberMail.start();
      await m.server.subscriberMail.idle();
      expect(m.outbox()).toHaveLength(0);
      ahead += 61_000;
      await m.server.subscriberMail.idle();
      expect(m.outbox()).toHaveLength(FANOUT_CHUNK + 10);
      expect(m.jobs()).toEqual([]);
    } finally {
      await m.server.close();
    }
  });
});

describe('subscriptions stored before subscriber records existed', () => {
  it('get their records and tallies at the next start: the form finds them, the bounds count them', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-subs-')), 'state.db');
    const first = createServer({ runs: false, log: SILENT_LOG, stateFile: file });
    const tx = first.ctx.store.begin('dev');
    tx.put(STATUS_COLL.statusPages, 'p1', { id: 'p1', name: 'Old', url: 'old', cards: [], created_at: new Date().toISOString(), updated_at: null });
    // As an earlier version stored it: the subscription alone.
    tx.put(STATUS_COLL.subscriptions, 's1', { id: 's1', statusPageId: 'p1', type: 'EMAIL', address: 'Old@Example.com', status: 'VERIFIED', created_at: new Date().toISOString(), updated_at: null });
    tx.commit();
    await first.close();
    const second = createServer({ runs: false, log: SILENT_LOG, stateFile: file });
    try {
      const store = second.ctx.store;
      expect(store.get('dev', STATUS_COLL.subscribers, addressKey('old@example.com'))).toMatchObject({ subscriptions: [{ id: 's1', statusPageId: 'p1' }] });
      expect(store.get('dev', STATUS_COLL.subscriptionTallies, 'p1')).toEqual({ id: 'p1', count: 1 });
      const res = await second.request('http://127.0.0.1/status/old/subscriptions', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=old%40example.com' });
      expect(res.status).toBe(200);
      expect(store.list('dev', STATUS_COLL.subscriptions)).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
