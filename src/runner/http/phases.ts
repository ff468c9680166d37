import type { HttpTimings, TimingPhases } from '../types.js';

/**
 * Phase arithmetic of one HTTP attempt. Each request (hop) of an attempt records the moments
 * (performance.now() ms) it reached; phases are the gaps between consecutive moments, summed over
 * the hops of a redirect chain, so that the phases always add up to `total`.
 */

/** The moments one request reached; undefined = not reached (the request failed before). */
export interface HopMarks {
  /** The request was started. */
  start: number;
  /** The connection was asked for (after any wait for a socket). */
  socket?: number;
  /** The host name resolved. */
  lookup?: number;
  /** The TCP connection was established. */
  connect?: number;
  /** The TLS handshake finished (HTTPS only). */
  secureConnect?: number;
  /** The connection is TLS: it is established at secureConnect, not at connect. */
  secure?: boolean;
  /** The status line and headers arrived. */
  response?: number;
  /** The body was read (or the request failed). */
  end: number;
}

const ORDER = ['start', 'socket', 'lookup', 'connect', 'response', 'end'] as const;

/**
 * The boundaries of a hop in order, with a moment not reached taking the next reached one's value:
 * the time a failed request spent lands in the phase it failed in (a refused connection in
 * `tcp`, a server that never answers in `firstByte`), later phases are 0.
 */
export function boundaries(m: HopMarks): number[] {
  const established = m.secure ? m.secureConnect : (m.secureConnect ?? m.connect);
  const raw: Array<number | undefined> = [m.start, m.socket, m.lookup, established, m.response, m.end];
  const out = new Array<number>(raw.length);
  const end = Math.max(m.start, m.end);
  let next = end;
  for (let i = raw.length - 1; i >= 0; i--) {
    const v = raw[i];
    next = v === undefined || Number.isNaN(v) ? next : Math.min(Math.max(v, m.start), end);
    out[i] = next;
  }
  // Moments only move forward: a clock glitch never makes a phase negative.
  for (let i = 1; i < out.length; i++) out[i] = Math.max(out[i], out[i - 1]);
  return out;
}

/**
 * Phases of an attempt from its hops: wait (until the connection was asked for), dns, tcp (TCP
 * connect plus the TLS handshake), firstByte (request sent until the headers arrived), download
 * (the body), total. Boundaries are rounded before subtracting, so the sum of the five phases of a
 * hop is exactly its rounded duration.
 */
export function phasesOf(hops: readonly HopMarks[]): TimingPhases {
  const sum: TimingPhases = { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0, total: 0 };
  const keys = ['wait', 'dns', 'tcp', 'firstByte', 'download'] as const;
  for (const hop of hops) {
    const b = boundaries(hop).map((v) => Math.round(v));
    keys.forEach((k, i) => (sum[k] += b[i + 1] - b[i]));
    sum.total += b[ORDER.length - 1] - b[0];
  }
  return sum;
}

/** The `timings` of a result: the moments of its last hop, in ms from the attempt's start. */
export function timingsOf(attemptStart: number, hop: HopMarks): HttpTimings {
  const b = boundaries(hop);
  const at = (v: number) => Math.max(0, Math.round(v - attemptStart));
  return {
    socket: at(b[1]),
    lookup: at(b[2]),
    connect: at(hop.connect === undefined ? b[3] : Math.min(hop.connect, b[3])),
    secureConnect: hop.secureConnect === undefined ? null : at(b[3]),
    response: at(b[4]),
    end: at(b[5]),
  };
}
