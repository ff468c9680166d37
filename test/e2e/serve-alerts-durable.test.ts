import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, callApi, startServe, startServes, waitFor, type Served } from '../helpers/serve.js';
import { closedPort } from '../helpers/tcp-server.js';
import { pgDatabase } from '../helpers/pg-url.js';
import { startSmtpServer, type SmtpServer } from '../helpers/smtp.js';
import { LEASE_MS } from '../../src/server/alerts/outbox.js';

// Alerts go through a persisted queue: nothing is lost to a kill -9, and on PostgreSQL exactly
// one instance sends each notification. Real processes (the point is the process dying) and real
// receivers on 127.0.0.1. Each case has its database, services and receiver: the cases run at once,
// with a time limit for a loaded machine (three at once took over 60 s each at load 39).
const CASE = { timeout: 240_000 };

/** A webhook receiver on `port` (0: any) that counts every alert it accepted. */
async function webhookReceiver(port = 0): Promise<{ url: string; port: number; alerts: Array<{ checkId: string; alertType: string }>; close(): Promise<void> }> {
  const alerts: Array<{ checkId: string; alertType: string }> = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const a = JSON.parse(body) as { checkId: string; alertType: string };
      alerts.push({ checkId: a.checkId, alertType: a.alertType });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r));
  const bound = (srv.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${bound}/hook`, port: bound, alerts, close: () => new Promise((r) => srv.close(() => r())) };
}

const tcpCheck = (name: string, port: number, channelId: number) => ({
  name,
  activated: true,
  frequency: 10,
  locations: ['eu-west-1'],
  request: { hostname: '127.0.0.1', port, ipFamily: 'IPv4', assertions: [] },
  alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
});

async function notifications(s: Served): Promise<any[]> {
  return (await callApi(s, 'GET', '/v1/alert-notifications?limit=100')).body;
}

describe.concurrent('alerts survive a kill -9 (SQLite)', CASE, () => {
  it('an alert queued while its receiver was down is delivered once after the service is killed and restarted', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'mac-alerts-kill-')), 'state.db');
    // Time scale 6: the 15 s wait before the second attempt is 2.5 s, time enough to kill the
    // service between two attempts (at time scale 60 they came every 0.25-1 s, and a kill during
    // one, with the alert leased, made the restarted service wait out the lease: 60 s).
    const args = ['--state', state, '--no-runs', '--time-scale', '6'];
    const hookPort = await closedPort();
    const down = await closedPort();
    const a = await startServe(args);
    let b: Served | undefined;
    const receiver = { close: async () => undefined } as Awaited<ReturnType<typeof webhookReceiver>>;
    try {
      const channel = await apiOk(a, 'POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: `http://127.0.0.1:${hookPort}/hook`, method: 'POST' } });
      const check = await apiOk(a, 'POST', '/v1/checks/tcp', tcpCheck('db', down, channel.id));
      await apiOk(a, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
      // Recorded and attempted: the receiver is not there yet.
      // A bound for a loaded machine (load 25 took over 20 s from the trigger to the first attempt).
      await waitFor(async () => ((await notifications(a))[0]?.attempts >= 1 ? true : undefined), 60_000);
      const before = (await notifications(a))[0];
      expect(before).toMatchObject({ status: 'IN_PROGRESS', alertType: 'ALERT_FAILURE', type: 'WEBHOOK' });
      expect(before.notificationResult).toMatch(/ECONNREFUSED/);
      await a.stop('SIGKILL');

      Object.assign(receiver, await webhookReceiver(hookPort));
      b = await startServe(args);
      const served = b;
      // Killed while it held the alert (an attempt under way, at a loaded machine's pace), the
      // first instance leaves it leased: the second takes it when that lease ends (LEASE_MS, 60 s).
      await waitFor(async () => ((await notifications(served))[0]?.status === 'SUCCESS' ? true : undefined), LEASE_MS + 30_000);
      // Give a second delivery the time to happen, if one were to.
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.alerts).toEqual([{ checkId: check.id, alertType: 'ALERT_FAILURE' }]);
      expect(b.log()).toMatch(/notification\.sent .*type=WEBHOOK/);
    } finally {
      await a.stop('SIGKILL');
      await b?.stop();
      await receiver.close();
    }
  });
});

describe.concurrent('alert mails survive a kill -9 (SQLite)', CASE, () => {
  it('a failure mail not yet sent when the service is killed arrives once after the restart', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'mac-mail-kill-')), 'state.db');
    const smtpPort = await closedPort();
    // Time scale 6: attempts 2.5 s apart and more, as above.
    const args = ['--state', state, '--no-runs', '--time-scale', '6', '--smtp', `smtp://127.0.0.1:${smtpPort}`, '--alert-timeout', '30000'];
    // A long limit per attempt: a mail that reaches the server after the limit (a loaded machine
    // took longer than 2 s) is sent again, as at-least-once delivery must, and arrives twice.
    const down = await closedPort();
    const a = await startServe(args);
    let b: Served | undefined;
    let smtp: SmtpServer | undefined;
    try {
      const channel = await apiOk(a, 'POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@example.com' } });
      const check = await apiOk(a, 'POST', '/v1/checks/tcp', tcpCheck('orders db', down, channel.id));
      await apiOk(a, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
      // The failing run is recorded and its mail queued; the SMTP server is not there yet.
      await waitFor(async () => ((await notifications(a))[0]?.attempts >= 1 ? true : undefined), 60_000);
      expect((await notifications(a))[0]).toMatchObject({ status: 'IN_PROGRESS', type: 'EMAIL' });
      await a.stop('SIGKILL');

      smtp = await startSmtpServer(smtpPort);
      b = await startServe(args);
      const served = b;
      // Killed while it held the mail (an attempt under way), the first instance leaves it leased:
      // the second takes it when that lease ends (LEASE_MS, 60 s).
      await waitFor(async () => ((await notifications(served))[0]?.status === 'SUCCESS' ? true : undefined), LEASE_MS + 30_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0].subject).toMatch(/FAILING: orders db/);
      expect(smtp.messages[0].text).toContain(`ECONNREFUSED 127.0.0.1:${down}`);
    } finally {
      await a.stop('SIGKILL');
      await b?.stop();
      await smtp?.close();
    }
  });
});

describe.concurrent('two instances on one PostgreSQL database', CASE, () => {
  it('deliver each of 50 alerts exactly once, counted at the receiver', async () => {
    const db = pgDatabase();
    // A long limit per attempt, as for the mails above: a webhook answered after the limit is sent
    // again, as at-least-once delivery must, and arrives twice (50 at once to a receiver in the
    // test's process, at load 25 with the default limit of 10 s: 52 arrived).
    const args = ['--database', db, '--no-runs', '--rate-limit', '0/60', '--alert-timeout', '60000'];
    const receiver = await webhookReceiver();
    const down = await closedPort();
    const [a, b] = await startServes(args, args);
    try {
      const channel = await apiOk(a, 'POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
      const checks = await Promise.all(Array.from({ length: 50 }, (_, i) => apiOk(a, 'POST', '/v1/checks/tcp', tcpCheck(`db ${i}`, down, channel.id))));
      // Half the sessions run on each instance; both deliverers take from the one queue.
      await Promise.all(checks.map((c, i) => apiOk(i % 2 === 0 ? a : b, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [c.id] } })));
      await waitFor(async () => (receiver.alerts.length >= 50 ? true : undefined), 60_000);
      let all: any[] = [];
      await waitFor(async () => {
        all = (await callApi(a, 'GET', '/v1/alert-notifications?limit=100')).body as any[];
        return all.length === 50 && all.every((n) => n.status === 'SUCCESS') ? true : undefined;
      }, 30_000);
      await new Promise((r) => setTimeout(r, 1500));
      const perCheck = new Map<string, number>();
      for (const x of receiver.alerts) perCheck.set(x.checkId, (perCheck.get(x.checkId) ?? 0) + 1);
      // On a failure, the deliveries attempted more than once say why.
      const retried = JSON.stringify(all.filter((n) => n.attempts > 1).map((n) => ({ checkId: n.checkId, attempts: n.attempts, result: n.notificationResult })));
      expect(receiver.alerts, `notifications attempted more than once: ${retried}`).toHaveLength(50);
      expect([...perCheck.values()].every((n) => n === 1)).toBe(true);
      expect(new Set(perCheck.keys())).toEqual(new Set(checks.map((c) => c.id)));
      // Both instances sent some (the queue is shared, not partitioned by who queued).
      const sentBy = [a, b].map((s) => (s.log().match(/notification\.sent/g) ?? []).length);
      expect(sentBy[0] + sentBy[1]).toBe(50);
    } finally {
      await a.stop();
      await b.stop();
      await receiver.close();
    }
  });
});
