import tls from 'node:tls';
import type * as Nodemailer from 'nodemailer';
import { errorText, failed, succeeded } from './outcome.js';
import type { MailMessage, SendOutcome, SenderSettings } from './types.js';

/**
 * Mail over SMTP with nodemailer: alert mails of EMAIL channels and status-page subscriber mails.
 * STARTTLS whenever the server offers it, with the certificate verified; the whole attempt, from
 * waiting for a connection to the server's answer to the message, within `timeoutMs`. The SMTP
 * password is never shown.
 */

/** An SMTP sender; `undefined` when `--smtp` is not set. */
export interface Mailer {
  send(mail: MailMessage): Promise<SendOutcome>;
  close(): void;
}

/** What mail answers without `--smtp`: no attempt can succeed. */
export const NO_SMTP = 'no SMTP server is configured for mail (mac serve --smtp smtp://HOST:PORT)';

/** SMTP connections open at once; more mails at once wait for one (within their timeout). */
export const SMTP_CONNECTIONS = 5;

/** An address nodemailer will put in a header as one recipient: no spaces, separators or newlines. */
const ADDRESS = /^[^\s@<>(),;:"\\[\]]{1,64}@[^\s@<>(),;:"\\[\]]{1,253}$/;
/** A header name (RFC 5322 field name). */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;

let nodemailer: typeof Nodemailer | undefined;
async function loadNodemailer(): Promise<typeof Nodemailer> {
  // Loaded by the first mail: a service that never mails never pays for it at start.
  return (nodemailer ??= await import('nodemailer'));
}

/** The transport options of `--smtp URL` (and the password of `--smtp-password-file`). */
export function smtpOptions(settings: Pick<SenderSettings, 'smtpUrl' | 'smtpPassword' | 'smtpCa' | 'timeoutMs'>): Nodemailer.TransportOptions & Record<string, unknown> {
  const u = new URL(settings.smtpUrl!);
  const secure = u.protocol === 'smtps:';
  const user = decodeURIComponent(u.username);
  const pass = settings.smtpPassword ?? decodeURIComponent(u.password);
  const t = settings.timeoutMs;
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass } : undefined,
    // The certificate is always verified; --smtp-ca adds the CA of a relay with its own.
    tls: settings.smtpCa ? { ca: [...tls.rootCertificates, settings.smtpCa] } : undefined,
    connectionTimeout: t,
    greetingTimeout: t,
    socketTimeout: t,
    dnsTimeout: t,
    // A server that does not close after QUIT is not waited for.
    socketCloseTimeout: 0,
    // A few connections kept open and reused: a burst of alerts (or subscriber mails) skips the
    // connect, greeting, STARTTLS and login of each mail. 300 mails at concurrency 8 to a local
    // smtp-server: 82-92/s pooled against 46-52/s with a connection per mail (bench/alert-senders.mjs,
    // 2 cores at load 19). A connection the server closed is replaced at the next mail.
    pool: true,
    maxConnections: SMTP_CONNECTIONS,
    maxMessages: 100,
  };
}

/** The secrets of the SMTP settings: the password (file or URL) and the user info as written. */
function smtpSecrets(settings: Pick<SenderSettings, 'smtpUrl' | 'smtpPassword'>): string[] {
  const secrets: string[] = [];
  if (settings.smtpPassword) secrets.push(settings.smtpPassword);
  try {
    const u = new URL(settings.smtpUrl!);
    if (u.password) secrets.push(u.password, decodeURIComponent(u.password));
  } catch {
    // validated by the flag's parser
  }
  return secrets;
}

/** The mailer of `settings`, or undefined without `--smtp`. */
export function createMailer(settings: SenderSettings): Mailer | undefined {
  if (!settings.smtpUrl) return undefined;
  const secrets = smtpSecrets(settings);
  let transport: Promise<Nodemailer.Transporter> | undefined;
  let closed = false;
  const transporter = () =>
    (transport ??= loadNodemailer().then((nm) => nm.createTransport(smtpOptions(settings) as Parameters<typeof nm.createTransport>[0], { from: settings.mailFrom })));
  return {
    async send(mail) {
      if (closed) return failed('the mailer is closed', secrets);
      const invalid = invalidMail(mail);
      if (invalid) return failed(invalid, secrets, { permanent: true });
      let t: Nodemailer.Transporter;
      try {
        // Loading nodemailer (once) is not the server's time.
        t = await transporter();
      } catch (err) {
        transport = undefined;
        return failed(`SMTP: ${errorText(err)}`, secrets);
      }
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), settings.timeoutMs);
      try {
        const info = (await t.sendMail({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
          signal: abort.signal,
        })) as { response?: unknown; messageId?: unknown };
        const response = typeof info.response === 'string' && info.response ? info.response : 'accepted';
        return succeeded(`SMTP ${response}`, secrets);
      } catch (err) {
        if (abort.signal.aborted) return failed(`no answer from the SMTP server within ${settings.timeoutMs} ms`, secrets);
        return failed(`SMTP: ${errorText(err)}`, secrets, { permanent: isPermanent(err) });
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      closed = true;
      void transport?.then((t) => t.close()).catch(() => undefined);
    },
  };
}

/**
 * Whether an SMTP error is final for this mail: a 5xx reply to the envelope or the message (an
 * unknown recipient, a refused message). A 5xx to AUTH is not: the operator may fix the password
 * and restart the service within the retry window.
 */
function isPermanent(err: unknown): boolean {
  const e = err as { code?: unknown; responseCode?: unknown };
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH') return false;
  return typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
}

/** Why `mail` cannot be sent whatever the server, or null. */
function invalidMail(mail: MailMessage): string | null {
  if (!ADDRESS.test(mail.to)) return 'the recipient is not a single mail address';
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    if (!HEADER_NAME.test(name)) return 'a mail header has an invalid name';
    if (/[\r\n]/.test(value)) return `the mail header ${name} holds a line break`;
  }
  return null;
}
