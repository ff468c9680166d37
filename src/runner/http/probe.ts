import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import type * as Undici from 'undici';
import type { HttpRequest } from '../types.js';
import type { Probe, ProbeLimits, TlsCertificate } from '../probe.js';
import { buildRequest, shownHeaders, shownUrl } from './request.js';
import { phasesOf, timingsOf, type HopMarks } from './phases.js';
import { TargetRefused, type TargetGuard } from '../guard.js';

/**
 * The HTTP probe of URL monitors and API checks: one attempt is one request, or a chain of them
 * when redirects are followed. Every request gets a fresh connection through its own undici
 * Client whose connector resolves and connects itself, so that dns, tcp and tls are measured at
 * their real boundaries. Nothing a server does makes it throw: every failure is a requestError.
 */

/**
 * undici, loaded by the first HTTP probe rather than with this module: it is the largest module
 * `mac serve` loads (~0.3-0.4 s of its start on a 2-core machine), and a service starts before
 * it runs any check.
 */
let undici: typeof Undici | undefined;
async function loadUndici(): Promise<typeof Undici> {
  return (undici ??= await import('undici'));
}

/** Redirects followed at most in one attempt; one more is a requestError. */
export const MAX_REDIRECTS = 10;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What one request of the chain observed. */
interface Hop {
  marks: HopMarks;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** The body as read, at most limits.maxBodyBytes. */
  body: Buffer;
  error: { message: string; network: boolean } | null;
  certificate: TlsCertificate | null;
}

/**
 * Runs one attempt of an HTTP check. `guard` (the service's network policy) is asked with the
 * address each hop's host resolved to, before its connection opens.
 */
export async function probeHttp(req: HttpRequest, limits: ProbeLimits, guard?: TargetGuard): Promise<Probe> {
  const start = performance.now();
  const built = buildRequest(req);
  if (!built.ok) return failed(req.url.replace(/\/\/[^/@]*@/, '//'), start, built.message);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), limits.timeoutMs);
  const hops: Hop[] = [];
  let { method, url, body } = built;
  let headers = built.headers;
  let redirectError: string | null = null;
  try {
    for (;;) {
      const hop = await request(method, url, headers, body, req, limits, abort.signal, guard);
      hops.push(hop);
      const location = hop.headers.location;
      if (hop.error || !req.followRedirects || !REDIRECTS.has(hop.status) || !location) break;
      if (hops.length > MAX_REDIRECTS) {
        redirectError = `more than ${MAX_REDIRECTS} redirects`;
        break;
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        redirectError = 'redirect to an invalid URL';
        break;
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        redirectError = `redirect to an unsupported URL scheme "${next.protocol.replace(/:$/, '')}"`;
        break;
      }
      // As browsers do: 303 (and 301/302 after a POST) continue as GET without a body; credentials
      // never follow to another origin.
      if (hop.status === 303 ? method !== 'HEAD' : (hop.status === 301 || hop.status === 302) && method === 'POST') {
        method = 'GET';
        body = null;
        headers = headers.filter(([k]) => !/^content-(type|length)$/i.test(k));
      }
      if (next.origin !== url.origin) headers = headers.filter(([k]) => !/^(authorization|cookie|proxy-authorization)$/i.test(k));
      url = next;
    }
  } finally {
    clearTimeout(timer);
  }
  const last = hops[hops.length - 1];
  const phases = phasesOf(hops.map((h) => h.marks));
  const bodyText = last.body.toString('utf8');
  const error = last.error?.message ?? redirectError;
  return {
    url: shownUrl(url, built.locked.params),
    status: last.status,
    statusText: last.error ? 'ERROR' : last.statusText,
    body: last.body.subarray(0, limits.maxBytes).toString('utf8'),
    timingPhases: phases,
    responseTime: phases.total,
    requestError: error,
    networkError: last.error?.network ?? false,
    values: {
      STATUS_CODE: last.status,
      TEXT_BODY: bodyText,
      // Parsed from TEXT_BODY where the assertions are evaluated, only when one reads it
      // (assertions.ts evaluateAssertions): not on this thread, and never for a URL monitor.
      JSON_BODY: undefined,
      HEADERS: last.headers,
    },
    http: {
      certificate: hops.find((h) => h.certificate !== null)?.certificate ?? null,
      method,
      data: body ?? '',
      requestHeaders: shownHeaders(headers, built.locked.headers),
      params: built.params,
      responseHeaders: last.headers,
      timings: timingsOf(start, last.marks),
    },
  };
}

async function request(
  method: string,
  url: URL,
  headers: Array<[string, string]>,
  body: string | null,
  req: HttpRequest,
  limits: ProbeLimits,
  signal: AbortSignal,
  guard: TargetGuard | undefined,
): Promise<Hop> {
  // Before the first mark: loading undici is not part of the request's timings.
  const { Client } = await loadUndici();
  const marks: HopMarks = { start: performance.now(), end: NaN };
  const hop: Hop = { marks, status: 0, statusText: '', headers: {}, body: Buffer.alloc(0), error: null, certificate: null };
  let socket: net.Socket | undefined;
  const client = new Client(url.origin, {
    connect: (opts, callback) => {
      marks.socket = performance.now();
      const family = req.ipFamily === 'IPv6' ? 6 : 4;
      // The resolver returns an address literal whatever the family asked: it must match ipFamily.
      const literal = net.isIP(opts.hostname);
      if (literal !== 0 && literal !== family) {
        marks.lookup = performance.now();
        return callback(new Error(`address ${opts.hostname} is not ${req.ipFamily} (ipFamily)`), null);
      }
      dns.lookup(opts.hostname, { family }, (err, address) => {
        marks.lookup = performance.now();
        if (err) return callback(err, null);
        if (signal.aborted) return callback(new Error('aborted'), null);
        const secure = opts.protocol === 'https:';
        marks.secure = secure;
        const port = Number(opts.port) || (secure ? 443 : 80);
        const refused = guard?.refuses(address, port);
        if (refused) return callback(new TargetRefused(refused), null);
        const s: net.Socket = secure
          ? tls.connect({
              host: address,
              port,
              servername: net.isIP(opts.hostname) ? undefined : opts.hostname,
              rejectUnauthorized: !req.skipSSL,
              ALPNProtocols: ['http/1.1'],
            })
          : net.connect({ host: address, port });
        socket = s;
        s.setNoDelay(true);
        let done = false;
        s.once('connect', () => (marks.connect = performance.now()));
        s.once(secure ? 'secureConnect' : 'connect', () => {
          if (secure) {
            marks.secureConnect = performance.now();
            hop.certificate = certificateOf(s as tls.TLSSocket);
          }
          if (!done) (done = true), callback(null, s);
        });
        s.once('error', (e) => {
          if (!done) (done = true), callback(e, null);
        });
      });
    },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    pipelining: 1,
  });
  const exchange = async () => {
    const res = await client.request({
      method: method as 'GET',
      path: `${url.pathname}${url.search}`,
      headers: headers.flat(),
      body: body ?? undefined,
      signal,
    });
    marks.response = performance.now();
    hop.status = res.statusCode;
    hop.statusText = res.statusText ?? '';
    hop.headers = flatHeaders(res.headers);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const room = limits.maxBodyBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(room, chunk.length);
      // Past the cap the rest is not read: the body kept is what arrived up to it.
      if (size >= limits.maxBodyBytes) break;
    }
    hop.body = Buffer.concat(chunks, size);
  };
  // The attempt's deadline ends the exchange in whatever state it is (undici leaves a request
  // waiting for its connection pending when the connector never calls back).
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error('timeout'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const running = exchange();
    running.catch(() => {});
    await Promise.race([running, deadline]);
  } catch (err) {
    hop.error = describe(err, signal);
  } finally {
    marks.end = performance.now();
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
  // A request that completed lets its connection close gracefully; one that failed tears it down.
  if (hop.error === null && hop.body.length < limits.maxBodyBytes) client.close().catch(() => {});
  else {
    client.destroy().catch(() => {});
    socket?.destroy();
  }
  return hop;
}

/** The peer certificate of a TLS socket, or null (none, or not parsable). */
export function certificateOf(socket: tls.TLSSocket): TlsCertificate | null {
  const c = socket.getPeerCertificate();
  if (!c || !c.valid_to) return null;
  const validTo = Date.parse(c.valid_to);
  const validFrom = Date.parse(c.valid_from);
  if (Number.isNaN(validTo)) return null;
  const name = (n: unknown) => (n && typeof n === 'object' ? String((n as Record<string, unknown>).CN ?? '') : '').slice(0, 200);
  return {
    subject: name(c.subject),
    issuer: name(c.issuer),
    validFrom: Number.isNaN(validFrom) ? '' : new Date(validFrom).toISOString(),
    validTo: new Date(validTo).toISOString(),
    fingerprint256: c.fingerprint256 ?? '',
  };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The requestError of a failed request, and whether it is a network error. */
function describe(err: unknown, signal: AbortSignal): { message: string; network: boolean } {
  if (err instanceof TargetRefused) return { message: err.message, network: false };
  if (signal.aborted) return { message: 'timeout', network: true };
  // undici's errors: only after a request, so undici is loaded.
  const undiciErrors = undici!.errors;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) return { message: 'timeout', network: true };
  if (err instanceof undiciErrors.HeadersOverflowError) return { message: 'response headers too large', network: false };
  const e = err as NodeJS.ErrnoException & { cause?: unknown };
  const message = err instanceof Error ? err.message : String(err);
  // Resolution, connection and TLS errors, and a peer that hung up, are network errors.
  const network = typeof e.code === 'string' && !e.code.startsWith('UND_ERR_INVALID') && e.code !== 'UND_ERR_HEADERS_OVERFLOW';
  return { message: e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message, network };
}

function failed(url: string, start: number, message: string): Probe {
  const total = Math.round(performance.now() - start);
  return {
    url,
    status: 0,
    statusText: 'ERROR',
    body: '',
    timingPhases: { wait: total, dns: 0, tcp: 0, firstByte: 0, download: 0, total },
    responseTime: total,
    requestError: message,
    networkError: false,
    values: { STATUS_CODE: 0, TEXT_BODY: '', JSON_BODY: undefined, HEADERS: {} },
  };
}
