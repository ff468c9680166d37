import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TcpRequest } from './types.js';
import { hostForUrl, type Probe, type ProbeLimits } from './probe.js';

/**
 * Connects to hostname:port, sends `data` when set and reads the reply until the peer closes,
 * `maxBytes` arrived, or the line stayed quiet for `idleMs` (api-decisions §5.3).
 */
export function probeTcp(req: TcpRequest, limits: ProbeLimits): Promise<Probe> {
  const start = performance.now();
  const at = { lookup: NaN, connect: NaN, firstByte: NaN, end: NaN };
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve) => {
    const socket = net.connect({ host: req.hostname, port: req.port, family: req.ipFamily === 'IPv6' ? 6 : 4 });
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
        networkError: error !== null,
        values: { RESPONSE_DATA: body },
      });
    };

    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(null), limits.idleMs);
    };
    const overall = setTimeout(() => finish({ message: 'timeout', code: 'ETIMEDOUT' }), limits.timeoutMs);

    socket.on('lookup', () => (at.lookup = performance.now()));
    socket.on('connect', () => {
      at.connect = performance.now();
      if (req.data !== null && req.data !== '') socket.write(req.data);
      armIdle();
    });
    socket.on('data', (chunk: Buffer) => {
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
