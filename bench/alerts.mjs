// Alert delivery: (1) latency from a failing run recorded to the receiver's answer, at
// --time-scale 1, with a local webhook receiver (the check alternates between failing and
// recovering, so every run sends an alert); (2) the drain rate of 1,000 notifications queued at
// once in a SQLite database (10 channels, one local receiver).
// `node bench/alerts.mjs [--alerts N] [--queued N]`; `npm run bench -- --only alerts`.
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer } from '../dist/server/server.js';
import { COLL } from '../dist/server/kinds.js';
import { stageAlert } from '../dist/server/alerts/outbox.js';
import { SILENT_LOG } from '../dist/server/log.js';

const pct = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];

/** A webhook receiver that notes when each alert arrived. */
async function receiver() {
  const arrivals = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      arrivals.push({ at: Date.now(), body });
      res.end('ok');
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}/hook`, arrivals, close: () => new Promise((r) => srv.close(r)) };
}

/** A TCP listener the check passes against, and a port nothing listens on, where it fails. */
async function targets() {
  const up = net.createServer((s) => s.end('+OK\r\n'));
  await new Promise((r) => up.listen(0, '127.0.0.1', r));
  const probe = net.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const down = probe.address().port;
  await new Promise((r) => probe.close(r));
  return { up: up.address().port, down, close: () => new Promise((r) => up.close(r)) };
}

function service(file) {
  return createServer({ stateFile: file, port: 0, rateLimit: { limit: 0, windowSeconds: 60 }, runs: false, log: process.env.BENCH_LOG ? undefined : SILENT_LOG });
}

/** Latency of `n` alerts: each run alternates failing and passing, each change alerts the webhook. */
export async function latency({ n = 100 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mac-bench-alerts-'));
  const rx = await receiver();
  const tcp = await targets();
  const server = service(join(dir, 'state.db'));
  const base = await server.listen();
  const auth = { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: auth, body: body && JSON.stringify(body) });
    return res.json();
  };
  try {
    const channel = await call('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'bench', url: rx.url, method: 'POST' } });
    const request = (port) => ({ hostname: '127.0.0.1', port, ipFamily: 'IPv4', assertions: [] });
    const check = await call('POST', '/v1/checks/tcp', { name: 'bench', activated: true, frequency: 10, locations: ['eu-west-1'], request: request(tcp.down), alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }] });
    const delays = [];
    for (let i = 0; i < n; i++) {
      await call('PUT', `/v1/checks/tcp/${check.id}`, { request: request(i % 2 === 0 ? tcp.down : tcp.up) });
      const before = rx.arrivals.length;
      await call('POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
      const end = Date.now() + 10_000;
      while (rx.arrivals.length === before && Date.now() < end) await new Promise((r) => setTimeout(r, 1));
      if (rx.arrivals.length === before) throw new Error(`alert ${i} did not arrive in 10 s`);
      // The run ended (its result recorded) at startedAt + responseTime.
      const alert = JSON.parse(rx.arrivals.at(-1).body);
      delays.push(rx.arrivals.at(-1).at - (Date.parse(alert.startedAt) + alert.responseTime));
    }
    delays.sort((a, b) => a - b);
    return { bench: 'alert-latency', n, p50Ms: pct(delays, 50), p95Ms: pct(delays, 95), maxMs: delays.at(-1) };
  } finally {
    await server.close();
    await rx.close();
    await tcp.close();
  }
}

/** Drain rate of `n` notifications queued at once in SQLite, over 10 channels to one receiver. */
export async function drain({ n = 1000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mac-bench-drain-'));
  const rx = await receiver();
  const server = service(join(dir, 'state.db'));
  await server.listen();
  await server.deliverer.stop(0);
  const { store } = server.ctx;
  try {
    const tx = store.begin('dev');
    const channels = Array.from({ length: 10 }, () => {
      const id = tx.nextInt(COLL.alertChannels);
      const ch = { id, type: 'WEBHOOK', config: { name: `c${id}`, url: rx.url, method: 'POST' }, sendFailure: true, sendRecovery: true, sendDegraded: false };
      tx.put(COLL.alertChannels, id, ch);
      return ch;
    });
    tx.commit();
    const now = Date.now();
    const queue = store.begin('dev');
    for (let i = 0; i < n; i++) {
      const message = { alertType: 'ALERT_FAILURE', checkAlertId: `a${i}`, checkId: `check-${i}`, checkName: `check ${i}`, checkType: 'TCP', runLocation: 'eu-west-1', responseTime: 1, startedAt: new Date(now).toISOString(), errorMessage: 'connect ECONNREFUSED', checkResultId: null, runUrl: null };
      stageAlert(queue, channels[i % channels.length], message, now);
    }
    queue.commit();
    const t0 = performance.now();
    server.deliverer.start();
    while (rx.arrivals.length < n) {
      if (performance.now() - t0 > 120_000) throw new Error(`only ${rx.arrivals.length} of ${n} delivered in 120 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const seconds = (performance.now() - t0) / 1000;
    await server.deliverer.idle(30_000);
    const left = store.query('dev', 'outbox', { limit: 50_000 }).length;
    return { bench: 'alert-drain', n, seconds: Number(seconds.toFixed(2)), perSecond: Math.round(n / seconds), delivered: rx.arrivals.length, left };
  } finally {
    await server.close();
    await rx.close();
  }
}

export async function main({ quick = false, log = () => {} } = {}) {
  const n = quick ? 40 : 100;
  log(`alerts: ${n} alerts, failing run to receiver ...`);
  const a = await latency({ n });
  log(`alerts: 1,000 queued notifications drained on SQLite ...`);
  const b = await drain({ n: 1000 });
  return { latency: a, drain: b };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { alerts: { type: 'string', default: '100' }, queued: { type: 'string', default: '1000' } } });
  console.log(JSON.stringify(await latency({ n: Number(values.alerts) })));
  console.log(JSON.stringify(await drain({ n: Number(values.queued) })));
}
