import { afterEach, describe, expect, it } from 'vitest';
import { runsHarness, type RunsHarness } from './harness.js';
import { closedPort, startTcpServer } from '../../helpers/tcp-server.js';
import { startSmtpServer, type SmtpServer } from '../../helpers/smtp.js';

// Alert mails end to end in process: a run's state change, the outbox, the SMTP sender
// (nodemailer) and a real SMTP server (smtp-server) on 127.0.0.1.
let h: RunsHarness;
let smtp: SmtpServer | undefined;
afterEach(async () => {
  await h?.close();
  await smtp?.close();
  smtp = undefined;
});

const tcp = (port: number) => ({ hostname: '127.0.0.1', port, data: null, ipFamily: 'IPv4', assertions: [] });

async function run(checkId: string): Promise<void> {
  expect((await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [checkId] } })).status).toBe(201);
  await h.runs.engine.idle();
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const notes = async () => (await h.call('GET', '/v1/alert-notifications?limit=100')).body as any[];

describe('alert mails', () => {
  it('mails the failure, the degraded state and the recovery with the check name and the reason', async () => {
    smtp = await startSmtpServer();
    h = runsHarness({ alerts: { smtpUrl: smtp.url, mailFrom: 'mac <alerts@example.com>' } as never });
    const down = await closedPort();
    const up = await startTcpServer({ banner: '+OK\r\n' });
    try {
      const check = h.seedCheck({ name: 'Orders <db>', request: tcp(down) });
      h.seedChannel(check.id, { type: 'EMAIL', sendDegraded: true, config: { address: 'oncall@example.com' } });
      await run(check.id);
      h.seedCheck({ ...check, degradedResponseTime: 0, request: tcp(up.port) });
      await run(check.id);
      h.seedCheck({ ...check, degradedResponseTime: 3000, request: tcp(up.port) });
      await run(check.id);
      await h.server.deliverer.idle();
      const mails = await smtp.waitFor(3);
      expect(mails.map((m) => m.to)).toEqual([['oncall@example.com'], ['oncall@example.com'], ['oncall@example.com']]);
      const [failure, degraded, recovery] = mails;
      expect(failure.subject).toMatch(/FAILING: Orders <db>/);
      expect(failure.text).toContain(`connect ECONNREFUSED 127.0.0.1:${down}`);
      expect(failure.html).toContain('Orders &lt;db&gt;');
      expect(failure.html).not.toContain('Orders <db>');
      expect(degraded.subject).toMatch(/DEGRADED: Orders <db>/);
      expect(recovery.subject).toMatch(/RECOVERED: Orders <db>/);
      expect((await notes()).map((n) => [n.alertType, n.status])).toEqual([
        ['ALERT_RECOVERY', 'SUCCESS'],
        ['ALERT_DEGRADED', 'SUCCESS'],
        ['ALERT_FAILURE', 'SUCCESS'],
      ]);
    } finally {
      await up.close();
    }
  });

  it('keeps a mail IN_PROGRESS while the SMTP server is down and ends it FAILURE with the error, never SUCCESS', async () => {
    const port = await closedPort();
    // Time scale 100,000: the ten attempts' waits (92 minutes) take about 55 ms.
    h = runsHarness({ timeScale: 100_000, alerts: { smtpUrl: `smtp://127.0.0.1:${port}`, timeoutMs: 2000 } as never });
    const check = h.seedCheck({ name: 'db', request: tcp(await closedPort()) });
    h.seedChannel(check.id, { type: 'EMAIL', config: { address: 'oncall@example.com' } });
    await run(check.id);
    const seen = new Set<string>();
    const final = await waitFor(async () => {
      const [n] = await notes();
      seen.add(n.status);
      return n.status === 'FAILURE' ? n : undefined;
    });
    expect(final.attempts).toBe(10);
    expect(final.notificationResult).toMatch(/ECONNREFUSED.*gave up after 10 attempts/);
    expect(final.timestamp).toBeNull();
    expect(seen.has('SUCCESS')).toBe(false);
  });

  it('delivers exactly one mail when the SMTP server comes back within the retry window: SUCCESS', async () => {
    const port = await closedPort();
    // Time scale 100: 150 ms, then 300 ms, ... between attempts.
    h = runsHarness({ timeScale: 100, alerts: { smtpUrl: `smtp://127.0.0.1:${port}`, timeoutMs: 2000 } as never });
    const check = h.seedCheck({ name: 'db', request: tcp(await closedPort()) });
    h.seedChannel(check.id, { type: 'EMAIL', config: { address: 'oncall@example.com' } });
    await run(check.id);
    const waiting = await waitFor(async () => {
      const [n] = await notes();
      return n?.attempts >= 1 ? n : undefined;
    });
    expect(waiting.status).toBe('IN_PROGRESS');
    expect(waiting.notificationResult).toMatch(/ECONNREFUSED/);
    smtp = await startSmtpServer(port);
    const done = await waitFor(async () => {
      const [n] = await notes();
      return n.status === 'SUCCESS' ? n : undefined;
    });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    // Nothing more goes: no delivery under way, and nothing left queued to go later (a wait for the
    // queue, not a fixed second that a loaded machine could outlast).
    await h.server.deliverer.idle();
    expect(h.server.ctx.store.query('dev', 'outbox', { limit: 1000 })).toEqual([]);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0].subject).toMatch(/FAILING: db/);
  });
});
