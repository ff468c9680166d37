import dgram from 'node:dgram';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { promises as dnsPromises, getServers } from 'node:dns';
import { randomInt } from 'node:crypto';
import { buildQuery, decodeMessage, toFqdn, type DnsMessage } from './codec.js';
import { DnsFormatError } from './wire.js';
import type { TargetGuard } from '../guard.js';

/** One query to one name server. */
export interface DnsQueryOptions {
  name: string;
  type: string;
  /** IP address or host name of the name server. */
  server: string;
  port: number;
  protocol: 'UDP' | 'TCP';
  timeoutMs: number;
  /** Asked with the name server's address before anything is sent (the service's network policy). */
  guard?: TargetGuard;
}

/** A response and how it was obtained. */
export interface DnsExchange {
  response: DnsMessage;
  /** TCP when asked for, or when a UDP answer came back truncated. */
  protocol: 'UDP' | 'TCP';
  /** The address the query went to. */
  address: string;
}

/** A query that failed before a usable response arrived; `code` is a socket-style code. */
export class DnsQueryError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

// UDP gets no delivery guarantee, so the query is resent at this interval until the deadline.
const UDP_RESEND_MS = 2000;
const MAX_TCP_MESSAGE = 65535;

/** Sends one query and waits for its response; falls back to TCP when a UDP answer is truncated. */
export async function queryDns(opts: DnsQueryOptions): Promise<DnsExchange> {
  const deadline = Date.now() + opts.timeoutMs;
  const address = await resolveServer(opts.server, deadline);
  const refused = opts.guard?.refuses(address, opts.port);
  if (refused) throw new DnsQueryError(refused, 'EPOLICY');
  const id = randomInt(0, 0x10000);
  const query = buildQuery(id, opts.name, opts.type);
  const accept = (msg: DnsMessage) =>
    msg.id === id &&
    msg.flags.qr &&
    (msg.questions.length === 0 ||
      (msg.questions[0].name.toLowerCase() === toFqdn(opts.name).toLowerCase() && msg.questions[0].type === opts.type));
  if (opts.protocol === 'UDP') {
    const response = await udpExchange(address, opts.port, query, accept, deadline);
    if (!response.flags.tc) return { response, protocol: 'UDP', address };
  }
  return { response: await tcpExchange(address, opts.port, query, accept, deadline), protocol: 'TCP', address };
}

async function resolveServer(server: string, deadline: number): Promise<string> {
  const bare = server.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare)) return bare;
  const lookup = dnsPromises.lookup(bare).then((r) => r.address);
  return withDeadline(lookup, deadline).catch((err: NodeJS.ErrnoException) => {
    if (err instanceof DnsQueryError) throw err;
    throw new DnsQueryError(`getaddrinfo ${err.code ?? 'ENOTFOUND'} ${bare}`, err.code ?? 'ENOTFOUND');
  });
}

function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new DnsQueryError('timeout', 'ETIMEDOUT')), Math.max(0, deadline - Date.now()));
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e)),
    );
  });
}

function socketError(err: NodeJS.ErrnoException): DnsQueryError {
  return new DnsQueryError(err.message, err.code ?? 'EIO');
}

function udpExchange(address: string, port: number, query: Buffer, accept: (m: DnsMessage) => boolean, deadline: number): Promise<DnsMessage> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    let resend: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (err: Error | null, msg?: DnsMessage) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(resend);
      socket.close();
      if (err) reject(err);
      else resolve(msg!);
    };
    const timer = setTimeout(() => finish(new DnsQueryError('timeout', 'ETIMEDOUT')), Math.max(0, deadline - Date.now()));
    socket.on('error', (err) => finish(socketError(err)));
    socket.on('message', (buf) => {
      let msg: DnsMessage;
      try {
        msg = decodeMessage(buf);
      } catch {
        return; // Not ours or garbled: keep waiting for a proper answer until the deadline.
      }
      if (accept(msg)) finish(null, msg);
    });
    // A connected socket reports ICMP port-unreachable as ECONNREFUSED instead of a silent timeout.
    socket.connect(port, address, () => {
      const send = () => socket.send(query, (err) => err && finish(socketError(err)));
      send();
      resend = setInterval(send, UDP_RESEND_MS);
    });
  });
}

function tcpExchange(address: string, port: number, query: Buffer, accept: (m: DnsMessage) => boolean, deadline: number): Promise<DnsMessage> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (err: Error | null, msg?: DnsMessage) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(msg!);
    };
    const timer = setTimeout(() => finish(new DnsQueryError('timeout', 'ETIMEDOUT')), Math.max(0, deadline - Date.now()));
    socket.on('error', (err) => finish(socketError(err)));
    socket.on('connect', () => {
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(query.length);
      socket.write(Buffer.concat([prefix, query]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      // Several messages may arrive on one connection; take the first that answers our query.
      while (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        const size = received.readUInt16BE(0);
        const frame = received.subarray(2, 2 + size);
        received = received.subarray(2 + size);
        try {
          const msg = decodeMessage(frame);
          if (accept(msg)) return finish(null, msg);
        } catch (err) {
          return finish(new DnsQueryError(`malformed DNS response: ${(err as DnsFormatError).message}`, 'EBADRESP'));
        }
      }
      if (received.length > MAX_TCP_MESSAGE + 2) finish(new DnsQueryError('DNS response too long', 'EBADRESP'));
    });
    socket.on('end', () => finish(new DnsQueryError(`connection closed by ${address}:${port} before a response`, 'ECONNRESET')));
  });
}

/** The system's name server: the first `nameserver` of /etc/resolv.conf, else node's first server. */
export async function systemNameServer(): Promise<{ server: string; port: number }> {
  const conf = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
  const line = /^\s*nameserver\s+(\S+)/m.exec(conf);
  if (line) return { server: line[1].replace(/%.*$/, ''), port: 53 };
  const first = getServers()[0];
  if (!first) throw new DnsQueryError('no system name server is configured (/etc/resolv.conf has none)', 'ECONNREFUSED');
  // getServers() writes a non-default port as `1.2.3.4:5353` or `[::1]:5353`.
  const m = /^\[(.+)\]:(\d+)$/.exec(first) ?? (/^([^:]+):(\d+)$/.exec(first) as RegExpExecArray | null);
  return m ? { server: m[1], port: Number(m[2]) } : { server: first, port: 53 };
}
