import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TcpRequest } from './types.js';
import { hostForUrl, type Probe, type ProbeLimits } from './probe.js';
import { guardedLookup, type TargetGuard } from './guard.js';

/**
 * Connects to hostname:port, sends `data` when set and reads the reply until the peer closes,
 * `maxBytes` arrived, or the line stayed quiet for `idleMs` (api-decisions §5.3). `guard` (the
 * service's network policy) is asked with the resolved address before the connection opens.
 */
export function probeTcp(req: TcpRequest, limits: ProbeLimits, guard?: TargetGuard): Promise<Probe> {
  const start = performance.now();
  const at = { lookup: NaN, connect: NaN, firstByte: NaN, end: NaN };
  const chunks: Buffer[] = [];
  let size = 0;
  // net.connect does not look an address literal up: the guard sees those here, names in the lookup.
  const literal = req.hostname.replace(/^\[(.*)\]$/, '$1');
  const refusedLiteral = guard && net.isIP(literal) ? guard.refuses(literal, req.port) : null;
  if (refusedLiteral) return Promise.resolve(refusedProbe(req, refusedLiteral));
  return new Promise((resolve) => {
    const socket = net.connect({
      host: req.hostname,
      port: req.port,
      family: req.ipFamily === 'IPv6' ? 6 : 4,
      lookup: guard ? guardedLookup(guard, req.port) : undefined,
    });
    let idle: NodeJS.Timeout | undefined;
    let settled = false;

    const finish = (error: { message: string; code: string } | null) => {
      if (settled) return;
      settled = true;
      at.end = performance.now();
      clearTimeout(overall);
      clearTimeout(idle);
      socket.destroy();
      const ms = (from: number, to: number) => (Number.isNaN(from) || Number.isNaN(to) ? 0 : Math.max(0, Math.round(to - from)));
      const dns = ms(start, at.lookup);
      const tcp = ms(Number.isNaN(at.lookup) ? start : at.lookup, at.connect);
      const body = Buffer.concat(chunks, size).toString('utf8');
      resolve({
        url: `tcp://${hostForUrl(req.hostname)}:${req.port}`,
        status: 0,
        statusText: error ? error.code : 'OK',
        body,
        timingPhases: {
          wait: 0,
          dns,
          tcp,
          firstByte: ms(at.connect, at.firstByte),
          download: ms(at.firstByte, at.end),
          total: ms(start, at.end),
        },
        responseTime: dns + tcp,
        requestError: error ? error.message : null,
        // A refused target is no network fault: retrying on network errors cannot help.
        networkError: error !== null && error.code !== 'EPOLICY',
        values: { RESPONSE_DATA: body },
      });
    };

    // The line is quiet when no data came for idleMs. A stall of this process's event loop
    // (a loaded machine, a long synchronous call) runs the expired timer before the poll phase
    // reads what arrived meanwhile, so the end is decided one turn later (setImmediate runs after
    // the poll phase), and only if no data came in that turn.
    let received = 0;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        const seen = received;
        setImmediate(() => {
          if (received === seen) finish(null);
        });
      }, limits.idleMs);
    };
    const overall = setTimeout(() => finish({ message: 'timeout', code: 'ETIMEDOUT' }), limits.timeoutMs);

    socket.on('lookup', () => (at.lookup = performance.now()));
    socket.on('connect', () => {
      at.connect = performance.now();
      if (req.data !== null && req.data !== '') socket.write(req.data);
      armIdle();
    });
    socket.on('data', (chunk: Buffer) => {
      received++;
      if (Number.isNaN(at.firstByte)) at.firstByte = performance.now();
      const room = limits.maxBytes - size;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(room, chunk.length);
      if (size >= limits.maxBytes) finish(null);
      else armIdle();
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // Many servers reset instead of closing once they have answered; what arrived still counts.
      if (err.code === 'ECONNRESET' && size > 0) return finish(null);
      finish({ message: err.message, code: err.code ?? 'EIO' });
    });
  });
}

/** The probe of a connection the guard refused before it opened. */
function refusedProbe(req: TcpRequest, message: string): Probe {
  return {
    url: `tcp://${hostForUrl(req.hostname)}:${req.port}`,
    status: 0,
    statusText: 'EPOLICY',
    body: '',
    timingPhases: { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0, total: 0 },
    responseTime: 0,
    requestError: message,
    networkError: false,
    values: { RESPONSE_DATA: '' },
  };
}
