import dgram from 'node:dgram';
import net from 'node:net';
import { decodeMessage, encodeMessage, CLASS_IN, toFqdn, type DnsMessage, type DnsRecord } from '../../src/runner/dns/codec.js';

/** One record the responder serves; `name` may omit the trailing dot. */
export interface ZoneRecord {
  name: string;
  type: string;
  ttl?: number;
  data: string;
}

/** What the local DNS responder answers. */
export interface DnsZone {
  records?: ZoneRecord[];
  /** Forced response code per name (e.g. `{ 'broken.test': 'SERVFAIL' }`). */
  rcodes?: Record<string, string | number>;
  /** Delay before every answer. */
  delayMs?: number;
  /** Answer UDP queries with an empty, truncated (TC) response, so clients retry over TCP. */
  truncateUdp?: boolean;
  /** Never answer UDP queries. */
  silentUdp?: boolean;
}

/** A query the responder received. */
export interface SeenQuery {
  name: string;
  type: string;
  protocol: 'UDP' | 'TCP';
}

/** A DNS responder on 127.0.0.1, one port for both UDP and TCP. */
export interface DnsServer {
  host: string;
  port: number;
  queries: SeenQuery[];
  set(zone: DnsZone): void;
  close(): Promise<void>;
}

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

function answer(zone: DnsZone, query: DnsMessage, protocol: 'UDP' | 'TCP'): DnsMessage {
  const q = query.questions[0];
  const name = q.name.toLowerCase();
  const forName = (zone.records ?? []).filter((r) => toFqdn(r.name).toLowerCase() === name);
  const forced = Object.entries(zone.rcodes ?? {}).find(([n]) => toFqdn(n).toLowerCase() === name)?.[1];
  const rcode = forced === undefined ? (forName.length === 0 ? 3 : 0) : typeof forced === 'number' ? forced : RCODES.indexOf(forced);
  const truncated = protocol === 'UDP' && zone.truncateUdp === true;
  const answers: DnsRecord[] = truncated
    ? []
    : forName.filter((r) => r.type === q.type).map((r) => ({ name: q.name, type: r.type, class: CLASS_IN, ttl: r.ttl ?? 300, data: r.data }));
  return {
    id: query.id,
    flags: { qr: true, opcode: 0, aa: true, tc: truncated, rd: query.flags.rd, ra: true, rcode },
    questions: query.questions,
    answers,
    authorities: [],
    additionals: [],
  };
}

/** Starts the responder on 127.0.0.1 with UDP and TCP bound to the same ephemeral port. */
export async function startDnsServer(initial: DnsZone = {}): Promise<DnsServer> {
  let zone = initial;
  const queries: SeenQuery[] = [];
  const sockets = new Set<net.Socket>();
  const respond = (buf: Buffer, protocol: 'UDP' | 'TCP', send: (out: Buffer) => void) => {
    const query = decodeMessage(buf);
    const q = query.questions[0];
    queries.push({ name: q.name, type: q.type, protocol });
    const z = zone;
    if (protocol === 'UDP' && z.silentUdp) return;
    setTimeout(() => {
      try {
        send(encodeMessage(answer(z, query, protocol)));
      } catch {
        // The responder was closed while the answer was delayed.
      }
    }, z.delayMs ?? 0);
  };
  for (let tries = 0; ; tries++) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    const tcp = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          const frame = pending.subarray(2, 2 + pending.readUInt16BE(0));
          pending = pending.subarray(2 + frame.length);
          respond(frame, 'TCP', (out) => {
            const prefix = Buffer.alloc(2);
            prefix.writeUInt16BE(out.length);
            if (!socket.destroyed) socket.write(Buffer.concat([prefix, out]));
          });
        }
      });
    });
    const bound = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) {
      udp.close();
      if (tries > 20) throw new Error('no port free for both UDP and TCP on 127.0.0.1');
      continue;
    }
    udp.on('message', (buf, rinfo) => respond(buf, 'UDP', (out) => udp.send(out, rinfo.port, rinfo.address)));
    return {
      host: '127.0.0.1',
      port,
      queries,
      set: (z) => void (zone = z),
      close: () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          udp.close(() => tcp.close(() => resolve()));
        }),
    };
  }
}

/** A UDP socket on 127.0.0.1 that takes every query and answers none (a name server gone silent). */
export interface SilentNameServer {
  port: number;
  close(): void;
}

/** Starts a silent name server: each DNS run against it lasts the runner's whole timeout. */
export async function startSilentNameServer(): Promise<SilentNameServer> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { port: socket.address().port, close: () => socket.close() };
}
