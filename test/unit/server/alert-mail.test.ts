import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSenders } from '../../../src/server/alerts/channels.js';
import { resolveSenderSettings } from '../../../src/server/alerts/settings.js';
import type { AlertMessage, ChannelRecord, SenderSettings } from '../../../src/server/alerts/types.js';
import { selfSignedCert } from '../../helpers/http-target.js';
import { mailHeader, mailPart, startSmtpServer, type SmtpReceiver } from '../../helpers/smtp-server.js';

// EMAIL channels and subscriber mails against a real SMTP server (smtp-server) on 127.0.0.1.

const PASSWORD = 'pw-Zq7/secret@x';
let smtp: SmtpReceiver | undefined;
let closers: Array<() => unknown> = [];

afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
  await smtp?.close();
  smtp = undefined;
});

function message(over: Partial<AlertMessage> = {}): AlertMessage {
  return {
    alertType: 'ALERT_FAILURE',
    checkAlertId: 'ca-1',
    checkId: 'chk-1',
    checkName: 'Checkout <script>alert(1)</script> & co',
    checkType: 'API',
    runLocation: 'eu-west-1',
    responseTime: 1234,
    startedAt: '2026-11-27T19:00:00.000Z',
    errorMessage: 'Expected status 200, got 503',
    checkResultId: 'res-9',
    runUrl: 'https://mon.example.com/runs/res-9?a=1&b=2',
    ...over,
  };
}

const email = (address = 'ops@example.com'): ChannelRecord => ({ id: 1, type: 'EMAIL', config: { address } });

function senders(over: Partial<SenderSettings>) {
  const s = createSenders(resolveSenderSettings({ timeoutMs: 3000, mailFrom: 'Monitoring <alerts@example.com>', ...over }));
  closers.push(() => s.close());
  return s;
}

describe('EMAIL over SMTP', () => {
  it('sends a failure mail with the check, the state, why, where, when and a link, in a text and an escaped HTML part', async () => {
    smtp = await startSmtpServer();
    const s = senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    const outcome = await s.send(email(), message());
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome.ok && outcome.result).toMatch(/^SMTP 250 /);
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    expect(mail.from).toBe('alerts@example.com');
    expect(mail.to).toEqual(['ops@example.com']);
    expect(mailHeader(mail.raw, 'Subject')).toBe('[mac] FAILING: Checkout <script>alert(1)</script> & co');
    const text = mailPart(mail.raw, 'text/plain')!;
    for (const s of ['Checkout <script>alert(1)</script> & co', 'FAILING', 'Expected status 200, got 503', 'eu-west-1', '2026-11-27T19:00:00.000Z', 'https://mon.example.com/runs/res-9?a=1&b=2']) {
      expect(text).toContain(s);
    }
    const html = mailPart(mail.raw, 'text/html')!;
    expect(html).not.toContain('<script>');
    expect(html).toContain('Checkout &lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
    expect(html).toContain('Expected status 200, got 503');
    expect(html).toContain('<a href="https://mon.example.com/runs/res-9?a=1&amp;b=2">');
  });

  it('says RECOVERED, DEGRADED and STILL FAILING in the subject, and leaves out the link without a public URL', async () => {
    smtp = await startSmtpServer();
    const s = senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    await s.send(email(), message({ alertType: 'ALERT_RECOVERY', errorMessage: null, runUrl: null, checkName: 'api' }));
    await s.send(email(), message({ alertType: 'ALERT_DEGRADED', checkName: 'api', errorMessage: 'slow: 4100 ms' }));
    await s.send(email(), message({ reminder: true, checkName: 'api' }));
    expect(smtp.mails.map((m) => mailHeader(m.raw, 'Subject'))).toEqual(['[mac] RECOVERED: api', '[mac] DEGRADED: api', '[mac] STILL FAILING: api']);
    const recovery = mailPart(smtp.mails[0].raw, 'text/plain')!;
    expect(recovery).toContain('The check passes again.');
    expect(recovery).not.toContain('Run:');
    expect(mailPart(smtp.mails[1].raw, 'text/plain')).toContain('slow: 4100 ms');
  });

  it('logs in with the user and password of the URL', async () => {
    smtp = await startSmtpServer({ users: { alerts: PASSWORD } });
    const s = senders({ smtpUrl: `smtp://alerts:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}` });
    expect(await s.send(email(), message())).toMatchObject({ ok: true });
    expect(smtp.mails[0].user).toBe('alerts');
  });

  it('logs in with the password of --smtp-password-file, and a wrong one fails without showing either', async () => {
    smtp = await startSmtpServer({ users: { alerts: PASSWORD } });
    const ok = await senders({ smtpUrl: `smtp://alerts@127.0.0.1:${smtp.port}`, smtpPassword: PASSWORD }).send(email(), message());
    expect(ok).toMatchObject({ ok: true });
    expect(smtp.mails[0].user).toBe('alerts');
    const wrong = 'wrong-Pa55word';
    const bad = await senders({ smtpUrl: `smtp://alerts@127.0.0.1:${smtp.port}`, smtpPassword: wrong }).send(email(), message());
    expect(bad.ok).toBe(false);
    // A login refused may be mended by the operator: not final.
    expect(bad).not.toHaveProperty('permanent');
    const error = !bad.ok ? bad.error : '';
    expect(error).toMatch(/535|Invalid/);
    expect(error).not.toContain(wrong);
    expect(error).not.toContain(PASSWORD);
    expect(smtp.mails).toHaveLength(1);
  });

  it('fails, not final and without the password, when the SMTP server is down', async () => {
    const port = await closedPort();
    const outcome = await senders({ smtpUrl: `smtp://alerts:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}` }).send(email(), message());
    expect(outcome.ok).toBe(false);
    expect(outcome).not.toHaveProperty('permanent');
    const error = !outcome.ok ? outcome.error : '';
    expect(error).toContain('ECONNREFUSED');
    expect(error).not.toContain(PASSWORD);
    expect(error).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('delivers once the SMTP server is back, and after it restarted under a kept connection', async () => {
    const port = await closedPort();
    const s = senders({ smtpUrl: `smtp://127.0.0.1:${port}` });
    expect((await s.send(email(), message())).ok).toBe(false);
    // A restart ends the connections it holds, as a server that stops does (smtp-server's close
    // otherwise waits up to 30 s for the client to end its kept connection).
    smtp = await startSmtpServer({ port, extra: { closeTimeout: 50 } });
    expect(await s.send(email(), message())).toMatchObject({ ok: true });
    await smtp.close();
    smtp = await startSmtpServer({ port });
    // The pooled connection died with the old server: the next mail goes through a new one.
    expect(await s.send(email(), message())).toMatchObject({ ok: true });
    expect(smtp.mails).toHaveLength(1);
  });

  it('gives up on a server that accepts the connection and never greets, within the timeout', async () => {
    const silent = await silentServer();
    const started = Date.now();
    const outcome = await senders({ smtpUrl: `smtp://127.0.0.1:${silent.port}`, timeoutMs: 500 }).send(email(), message());
    const took = Date.now() - started;
    expect(outcome.ok).toBe(false);
    expect(outcome).not.toHaveProperty('permanent');
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(3000);
  });

  it('verifies the certificate of STARTTLS: a self-signed one is refused, nothing is sent in the clear', async () => {
    smtp = await startSmtpServer({ starttls: true });
    const outcome = await senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }).send(email(), message());
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(/certificate/i);
    expect(smtp.mails).toHaveLength(0);
  });

  it('upgrades with STARTTLS when offered, and speaks TLS from the start with smtps://, trusting --smtp-ca', async () => {
    const { key, cert } = selfSignedCert();
    // closeTimeout: the close below ends the sender's kept connection instead of waiting for it to end.
    smtp = await startSmtpServer({ starttls: true, users: { alerts: PASSWORD }, extra: { key, cert, closeTimeout: 50 } });
    const starttls = await senders({ smtpUrl: `smtp://alerts@127.0.0.1:${smtp.port}`, smtpPassword: PASSWORD, smtpCa: cert }).send(email(), message());
    expect(starttls).toMatchObject({ ok: true });
    expect(smtp.mails[0]).toMatchObject({ secure: true, user: 'alerts' });
    await smtp.close();
    smtp = await startSmtpServer({ extra: { secure: true, key, cert } });
    expect(await senders({ smtpUrl: `smtps://127.0.0.1:${smtp.port}`, smtpCa: cert }).send(email(), message())).toMatchObject({ ok: true });
    expect(smtp.mails[0].secure).toBe(true);
    // The same server without its CA trusted: refused, not sent.
    const untrusted = await senders({ smtpUrl: `smtps://127.0.0.1:${smtp.port}` }).send(email(), message());
    expect(untrusted.ok).toBe(false);
    expect(smtp.mails).toHaveLength(1);
  });

  it('treats a refused recipient (550) as final', async () => {
    smtp = await startSmtpServer({ rejectRecipient: 'gone@example.com' });
    const outcome = await senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }).send(email('gone@example.com'), message());
    expect(outcome).toMatchObject({ ok: false, permanent: true });
    expect(!outcome.ok && outcome.error).toContain('550');
  });

  it('refuses an address that is not one mail address, and mail without --smtp, as final without connecting', async () => {
    smtp = await startSmtpServer();
    const s = senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    for (const address of ['a@example.com, b@example.com', 'ops@example.com\r\nBcc: x@example.com', 'nobody', '']) {
      expect(await s.send(email(address), message())).toMatchObject({ ok: false, permanent: true });
    }
    expect(smtp.mails).toHaveLength(0);
    const none = await senders({}).send(email(), message());
    expect(none).toEqual({ ok: false, permanent: true, error: expect.stringContaining('no SMTP server is configured') });
  });

  it('sends a subscriber mail with its own headers (List-Unsubscribe)', async () => {
    smtp = await startSmtpServer();
    const s = senders({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    const outcome = await s.sendMail({
      to: 'fan@example.com',
      subject: 'Incident: API down',
      text: 'We are looking into it.',
      html: '<p>We are looking into it.</p>',
      headers: { 'List-Unsubscribe': '<https://status.example.com/unsubscribe?t=abc>' },
    });
    expect(outcome).toMatchObject({ ok: true });
    expect(mailHeader(smtp.mails[0].raw, 'List-Unsubscribe')).toBe('<https://status.example.com/unsubscribe?t=abc>');
    expect(mailPart(smtp.mails[0].raw, 'text/plain')).toContain('We are looking into it.');
    const injected = await s.sendMail({ to: 'fan@example.com', subject: 's', text: 't', html: 'h', headers: { 'X-A': 'v\r\nBcc: evil@example.com' } });
    expect(injected).toMatchObject({ ok: false, permanent: true });
    expect(smtp.mails).toHaveLength(1);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and says nothing. */
async function silentServer(): Promise<{ port: number }> {
  const sockets = new Set<import('node:net').Socket>();
  const srv: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  );
  return { port: (srv.address() as AddressInfo).port };
}
