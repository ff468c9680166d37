import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runsHarness, type RunsHarness } from './harness.js';
import { closedPort } from '../../helpers/tcp-server.js';
import { backoffMs, MAX_ATTEMPTS, nextStep } from '../../../src/server/alerts/outbox.js';

let h: RunsHarness;
afterEach(async () => {
  await h?.close();
});

/** A webhook receiver answering each request with the next status of `statuses` (the last one repeats). */
async function scripted(statuses: number[]): Promise<{ url: string; bodies: string[]; accepted: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const accepted: string[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      res.statusCode = statuses[Math.min(bodies.length - 1, statuses.length - 1)];
      if (res.statusCode === 200) accepted.push(body);
      res.end(res.statusCode === 200 ? 'ok' : 'busy');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, bodies, accepted, close: () => new Promise((r) => srv.close(() => r())) };
}

async function failOnce(check: Record<string, any>): Promise<void> {
  const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
  expect(res.status).toBe(201);
  await h.runs.engine.idle();
}

describe('alert delivery', () => {
  it('retries a receiver that answers 500 and delivers once when it answers 200: SUCCESS after two attempts', async () => {
    // Time scale 1000: the 15 s backoff before the second attempt is 15 ms.
    h = runsHarness({ timeScale: 1000 });
    const receiver = await scripted([500, 200]);
    try {
      const check = h.seedCheck({ name: 'db', request: { hostname: '127.0.0.1', port: await closedPort(), data: null, ipFamily: 'IPv4', assertions: [] } });
      h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
      await failOnce(check);
      await waitFor(async () => (await h.call('GET', '/v1/alert-notifications')).body[0]?.status === 'SUCCESS');
      const [n] = (await h.call('GET', '/v1/alert-notifications')).body;
      expect(n).toMatchObject({ type: 'WEBHOOK', alertType: 'ALERT_FAILURE', status: 'SUCCESS', attempts: 2, checkId: check.id });
      expect(receiver.bodies).toHaveLength(2);
      expect(new Set(receiver.bodies).size).toBe(1);
      // Nothing left queued.
      expect(h.server.ctx.store.query('dev', 'outbox', { limit: 1000 })).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('never overtakes a failure with its recovery: the recovery waits until the failure is delivered', async () => {
    h = runsHarness({ timeScale: 1000 });
    const receiver = await scripted([500, 500, 200]);
    try {
      const port = await closedPort();
      const check = h.seedCheck({ name: 'db', request: { hostname: '127.0.0.1', port, data: null, ipFamily: 'IPv4', assertions: [] } });
      h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
      await failOnce(check);
      // Recovered while the failure is still being retried.
      const { startTcpServer } = await import('../../helpers/tcp-server.js');
      const tcp = await startTcpServer({ banner: '+OK\r\n' });
      try {
        h.seedCheck({ ...check, request: { hostname: '127.0.0.1', port: tcp.port, data: null, ipFamily: 'IPv4', assertions: [] } });
        await failOnce(check);
      } finally {
        await tcp.close();
      }
      await waitFor(async () => (await h.call('GET', '/v1/alert-notifications')).body.every((n: any) => n.status === 'SUCCESS'));
      const types = receiver.bodies.map((b) => JSON.parse(b).alertType);
      expect(types.lastIndexOf('ALERT_FAILURE')).toBeLessThan(types.indexOf('ALERT_RECOVERY'));
      expect(types.filter((t) => t === 'ALERT_RECOVERY')).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('a recovery leased while its failure is being sent', () => {
  it('is delivered once: the failure\'s delivery does not make due again what a lease under way took', async () => {
    // The failure's receiver holds its answer; meanwhile the check recovers and the deliverer
    // leases the recovery. That lease is answered only after the failure's delivery ended (the
    // database answers in another thread, and the answer can come after the receiver's): the
    // failure's delivery must not make the recovery due again meanwhile, or the next lease takes
    // it a second time and the channel hears of the recovery twice.
    h = runsHarness();
    const bodies: string[] = [];
    let answerFailure!: () => void;
    const failureHeld = new Promise<void>((resolve) => (answerFailure = resolve));
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push(body);
        if (JSON.parse(body).alertType === 'ALERT_FAILURE') void failureHeld.then(() => res.end('ok'));
        else res.end('ok');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { startTcpServer } = await import('../../helpers/tcp-server.js');
    const tcp = await startTcpServer({ banner: '+OK\r\n' });
    const store = h.server.ctx.store;
    const leaseAsync = store.leaseAsync.bind(store);
    // The lease that takes the recovery: its answer waits for the failure's delivery to end.
    let recoveryLeased: (() => void) | undefined;
    const leaseOfRecovery = new Promise<void>((resolve) => (recoveryLeased = resolve));
    let answerLease!: () => void;
    const leaseAnswered = new Promise<void>((resolve) => (answerLease = resolve));
    let held = false;
    store.leaseAsync = async (...args) => {
      const taken = await leaseAsync(...args);
      const recovery = taken.some(({ record }) => (record as any).work?.message?.alertType === 'ALERT_RECOVERY');
      if (recovery && !held) {
        held = true;
        recoveryLeased?.();
        await leaseAnswered;
      }
      return taken;
    };
    try {
      const down = { hostname: '127.0.0.1', port: await closedPort(), data: null, ipFamily: 'IPv4', assertions: [] };
      const check = h.seedCheck({ name: 'db', request: down });
      h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, method: 'POST' } });
      await failOnce(check);
      await waitFor(async () => bodies.length === 1);
      h.seedCheck({ ...check, request: { ...down, port: tcp.port } });
      await failOnce(check);
      await leaseOfRecovery;
      // The failure is answered while the recovery's lease is under way; its delivery ends, and the
      // lease is answered once the failure is written as delivered (the outbox no longer holds it as
      // this instance reads it), or, when the deliverer waits for the lease before that write, once
      // the delivery waits for it (a waiter of the pass under way: no fixed wait that a loaded
      // machine could outlast).
      const failureId = store.query<any>('dev', 'outbox', { checkId: check.id, limit: 10 }).find((o) => o.work.message.alertType === 'ALERT_FAILURE').id as string;
      answerFailure();
      const end = Date.now() + 20_000;
      while (store.get('dev', 'outbox', failureId) && !h.server.deliverer.waitsForPass && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
      answerLease();
      await h.server.deliverer.idle();
      await waitFor(async () => (await h.call('GET', '/v1/alert-notifications')).body.every((n: any) => n.status === 'SUCCESS'));
      // Passes that would take the recovery again, had it been made due.
      await new Promise((r) => setTimeout(r, 1200));
      await h.server.deliverer.idle();
      expect(bodies.map((b) => JSON.parse(b).alertType)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
      expect(store.query('dev', 'outbox', { checkId: check.id, limit: 10 })).toEqual([]);
    } finally {
      answerFailure();
      answerLease();
      await tcp.close();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('alert order per channel and check', () => {
  it('delivers a new alert of the check after the recovery of the one before: failure, recovery, failure arrive in that order', async () => {
    // Time scale 1000: the backoffs are 15, 30, 60 and 120 ms. The receiver refuses the first
    // four requests, so the first failure is still being retried while the check recovers and
    // fails again (a new alert, with its own id).
    h = runsHarness({ timeScale: 1000 });
    const receiver = await scripted([500, 500, 500, 500, 200]);
    const { startTcpServer } = await import('../../helpers/tcp-server.js');
    const tcp = await startTcpServer({ banner: '+OK\r\n' });
    try {
      const down = { hostname: '127.0.0.1', port: await closedPort(), data: null, ipFamily: 'IPv4', assertions: [] };
      const up = { ...down, port: tcp.port };
      const check = h.seedCheck({ name: 'db', request: down });
      h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
      await failOnce(check);
      h.seedCheck({ ...check, request: up });
      await failOnce(check);
      h.seedCheck({ ...check, request: down });
      await failOnce(check);
      await waitFor(async () => {
        const body = (await h.call('GET', '/v1/alert-notifications')).body;
        return body.length === 3 && body.every((n: any) => n.status === 'SUCCESS');
      });
      const delivered = receiver.accepted.map((b) => JSON.parse(b) as { alertType: string; checkAlertId?: string });
      expect(delivered.map((d) => d.alertType)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_FAILURE']);
    } finally {
      await tcp.close();
      await receiver.close();
    }
  });
});

describe('the retry schedule (pure)', () => {
  it('makes at least 10 attempts over at least an hour, then gives up with FAILURE and the last error', () => {
    let waited = 0;
    let at = 0;
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const step = nextStep({ ok: false, error: 'connect ECONNREFUSED' }, attempt, at, 1);
      expect(step.done).toBe(false);
      if (!step.done) {
        waited += step.dueMs - at;
        at = step.dueMs;
      }
    }
    expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(10);
    expect(waited).toBeGreaterThanOrEqual(3_600_000);
    expect(nextStep({ ok: false, error: 'connect ECONNREFUSED' }, MAX_ATTEMPTS, at, 1)).toEqual({ done: true, status: 'FAILURE', result: 'connect ECONNREFUSED (gave up after 10 attempts)' });
  });

  it('stops at once on a permanent failure, waits as asked on a 429, and reads SUCCESS only when accepted', () => {
    expect(nextStep({ ok: false, error: 'no SMTP server is configured', permanent: true }, 1, 0, 1)).toMatchObject({ done: true, status: 'FAILURE' });
    expect(nextStep({ ok: false, error: 'HTTP 429', rateLimited: true, retryAfterMs: 120_000 }, 1, 0, 1)).toEqual({ done: false, status: 'RATE_LIMITED', result: 'HTTP 429', dueMs: 120_000 });
    expect(nextStep({ ok: true, result: '250 2.0.0 OK' }, 3, 0, 1)).toEqual({ done: true, status: 'SUCCESS', result: '250 2.0.0 OK' });
    expect(backoffMs(1, 1000)).toBe(15);
  });
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
