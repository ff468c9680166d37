import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { MailMessage, SendOutcome } from '../../src/server/alerts/types.js';

/** One mail the server received, parsed: headers (lower-case names, unfolded, encoded words decoded), text and HTML parts. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  raw: string;
}

/** A real SMTP server on 127.0.0.1 (the `smtp-server` package) keeping every mail it accepts. */
export interface SmtpServer {
  port: number;
  /** `smtp://127.0.0.1:PORT` */
  url: string;
  messages: ReceivedMail[];
  /** Resolves once `count` mails arrived in all; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Largest mail the test server accepts (bytes). */
const MAX_MAIL = 1024 * 1024;

export async function startSmtpServer(listenPort = 0): Promise<SmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: MAX_MAIL,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = parseMail(raw);
        const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ ...parsed, from: parsed.headers.from ?? envelopeFrom, to: session.envelope.rcptTo.map((r) => r.address) });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(count, timeoutMs = 5_000) {
      const end = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > end) throw new Error(`${messages.length} mails arrived, ${count} awaited`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A `Senders.sendMail` that hands each mail to an SMTP server with nodemailer (no TLS, as a local
 * relay): what the service's SMTP sender does, for tests that build the service in process.
 */
export function smtpSendMail(url: string, from = 'status@example.com'): { sendMail(mail: MailMessage): Promise<SendOutcome>; close(): void } {
  const u = new URL(url);
  const transport = nodemailer.createTransport({ host: u.hostname, port: Number(u.port), secure: false, ignoreTLS: true });
  return {
    async sendMail(mail) {
      try {
        const info = await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
        return { ok: true, result: String(info.response ?? 'accepted') };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
    close: () => transport.close(),
  };
}

/** Splits a message (or a MIME part) at its first empty line into unfolded headers and the body. */
function splitPart(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  return { headers, body };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) decoded. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : qp(text.replace(/_/g, ' ')),
    );
}

/** Quoted-printable decoded (soft line breaks joined, `=XX` bytes as UTF-8). */
export function qp(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const m = joined[i] === '=' ? /^[0-9A-Fa-f]{2}$/.exec(joined.slice(i + 1, i + 3)) : null;
    if (m) {
      bytes.push(parseInt(m[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'quoted-printable') return qp(body);
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** The text and HTML parts of a part, walking multipart bodies. */
function parts(headers: Record<string, string>, body: string, out: { text: string; html: string }): void {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const pieces = body.split(`--${boundary}`);
    for (const piece of pieces.slice(1)) {
      if (piece.startsWith('--')) break;
      const p = splitPart(piece.replace(/^\r?\n/, ''));
      parts(p.headers, p.body, out);
    }
    return;
  }
  const text = decodeBody(body, headers['content-transfer-encoding']).replace(/\r\n/g, '\n');
  if (/^text\/html/i.test(type)) out.html ||= text;
  else if (/^text\/plain/i.test(type)) out.text ||= text;
}

/** A received message parsed: headers and its text and HTML parts. */
export function parseMail(raw: string): Omit<ReceivedMail, 'to' | 'from'> {
  const { headers, body } = splitPart(raw);
  const out = { text: '', html: '' };
  parts(headers, body, out);
  return { subject: headers.subject ?? '', headers, raw, ...out };
}
