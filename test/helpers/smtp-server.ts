import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A mail as a real SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The user that authenticated, if any. */
  user?: string;
  /** The raw message (headers and MIME body). */
  raw: string;
  /** Whether the session was over TLS (STARTTLS or smtps). */
  secure: boolean;
}

/** A real SMTP server (the `smtp-server` package) on 127.0.0.1, port 0. */
export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * Starts an SMTP server that keeps every mail. `users` (user -> password) turns authentication
 * on; `starttls` false hides STARTTLS (the default offers it with smtp-server's self-signed
 * certificate, which a client that verifies certificates refuses); `rejectRecipient` refuses
 * RCPT TO of that address with 550; `port` listens on that port (a server back after an outage).
 */
export async function startSmtpServer(opts: { users?: Record<string, string>; starttls?: boolean; rejectRecipient?: string; port?: number; extra?: Partial<SMTPServerOptions> } = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: opts.users === undefined,
    allowInsecureAuth: true,
    disabledCommands: opts.starttls === true ? [] : ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      const expected = opts.users?.[auth.username ?? ''];
      if (expected !== undefined && expected === auth.password) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (opts.rejectRecipient && address.address === opts.rejectRecipient) return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure === true,
        });
        callback();
      });
    },
    ...opts.extra,
  });
  // A client that refuses the certificate closes mid-handshake: the server reports it, the test checks the client.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of a raw mail (unfolded), or undefined. */
export function mailHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The decoded part of a raw multipart mail with `contentType` (text/plain, text/html). */
export function mailPart(raw: string, contentType: string): string | undefined {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  for (const part of parts) {
    const [head, ...rest] = part.split(/\r?\n\r?\n/);
    if (!new RegExp(`content-type:\\s*${contentType}`, 'i').test(head)) continue;
    const body = rest.join('\n\n');
    const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
    if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (encoding === 'quoted-printable') {
      const soft = body.replace(/=\r?\n/g, '');
      return Buffer.from(soft.replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
    }
    return body;
  }
  return undefined;
}
