// Status-page subscriptions, in process (built modules), on SQLite and in memory:
// - the time of one subscribe-form post with 100 and with 20,000 subscriptions stored (each post
//   reads the address's record and the page's tally, never the list of subscriptions);
// - an incident update with notifySubscribers to 10,000 confirmed subscribers: the time of its
//   answer (it stages one job), until the 10,000 mails are in the outbox (200 per transaction,
//   status-pages/fanout.ts), and the longest pause of the event loop meanwhile.
// `npm run build && node bench/subscribers.mjs [--posts 300] [--fanout 10000]`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer } from '../dist/server/server.js';
import { SILENT_LOG } from '../dist/server/log.js';
import { addSubscription } from '../dist/server/status-pages/subscriptions.js';
import { median } from './lib/figures.mjs';

const { values } = parseArgs({ options: { posts: { type: 'string', default: '300' }, fanout: { type: 'string', default: '10000' } } });
const POSTS = Number(values.posts);
const FANOUT = Number(values.fanout);
const AUTH = { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' };

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

async function api(server, method, path, body) {
  const res = await server.request(`http://127.0.0.1${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A service (mails are queued, never sent: no deliverer runs) with a page showing one service. */
async function service(stateFile) {
  const server = createServer({ stateFile, runs: false, log: SILENT_LOG, rateLimit: { limit: 0, windowSeconds: 60 }, subscribeRateLimit: { limit: 0, windowSeconds: 60 } });
  // Mails are counted in the queue, not sent.
  await server.deliverer.stop();
  const svc = await api(server, 'POST', '/v1/status-pages/services', { name: 'API' });
  const page = await api(server, 'POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [{ name: 'Main', services: [{ id: svc.id }] }] });
  return { server, svc, page };
}

/** Stores subscriptions up to `total` (VERIFIED), 1,000 per transaction. */
function seed(server, pageId, from, total) {
  const now = Date.now();
  for (let i = from; i < total; i += 1000) {
    const tx = server.ctx.store.begin('dev');
    for (let j = i; j < Math.min(total, i + 1000); j++) addSubscription(tx, pageId, `seed-${j}@example.com`, 'VERIFIED', now);
    tx.commit();
  }
}

/** Milliseconds of each of `n` form posts of new addresses. */
async function posts(server, n, tag) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await server.request('http://127.0.0.1/status/shop/subscriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: `post-${tag}-${i}@example.com` }),
    });
    await res.text();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`post answered ${res.status}`);
  }
  return times;
}

async function measure(store) {
  const dir = mkdtempSync(join(tmpdir(), 'mac-bench-subs-'));
  const stateFile = store === 'sqlite' ? join(dir, 'state.db') : undefined;
  try {
    const { server, svc, page } = await service(stateFile);
    seed(server, page.id, 0, 100);
    await posts(server, 20, 'warm');
    const few = await posts(server, POSTS, 'few');
    seed(server, page.id, 100, 20_000);
    const many = await posts(server, POSTS, 'many');

    // Fan-out: a second page with FANOUT confirmed subscribers.
    const svc2 = await api(server, 'POST', '/v1/status-pages/services', { name: 'Mail' });
    const page2 = await api(server, 'POST', '/v1/status-pages', { name: 'Mail', url: 'mail', cards: [{ name: 'Main', services: [{ id: svc2.id }] }] });
    seed(server, page2.id, 0, FANOUT);
    const incident = await api(server, 'POST', '/v1/status-pages/incidents', { name: 'Out', severity: 'MAJOR', services: [{ id: svc2.id }], incidentUpdates: [{ description: 'quiet' }] });
    // The longest pause of the event loop while the update is handled (a timer ticking every ms).
    let longest = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const t = performance.now();
      longest = Math.max(longest, t - last);
      last = t;
    }, 1);
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    await api(server, 'POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'Mails for all', notifySubscribers: true });
    const updateMs = performance.now() - t0;
    server.subscriberMail.start();
    await server.subscriberMail.idle(600_000);
    const fanoutMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 20));
    clearInterval(tick);
    const queued = server.ctx.store.countQuery('dev', 'outbox', {});
    await server.close();
    void svc;
    return {
      postMedianMs100: median(few),
      postP95Ms100: p95(few),
      postMedianMs20k: median(many),
      postP95Ms20k: p95(many),
      updateMs,
      fanoutMs,
      fanoutLongestPauseMs: longest,
      queued,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = {};
for (const store of ['memory', 'sqlite']) {
  const r = await measure(store);
  rows[store] = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v.toFixed(2))]));
  console.log(
    `${store.padEnd(7)} form post with 100 subscriptions: median ${r.postMedianMs100.toFixed(2)} ms, p95 ${r.postP95Ms100.toFixed(2)} ms; ` +
      `with 20,000: median ${r.postMedianMs20k.toFixed(2)} ms, p95 ${r.postP95Ms20k.toFixed(2)} ms; ` +
      `update to ${FANOUT} subscribers: answered in ${r.updateMs.toFixed(0)} ms, ${r.queued} mails queued after ${r.fanoutMs.toFixed(0)} ms, longest event-loop pause ${r.fanoutLongestPauseMs.toFixed(0)} ms`,
  );
}
console.log(JSON.stringify({ bench: 'subscribers', posts: POSTS, fanout: FANOUT, ...rows }));
process.exit(0);
