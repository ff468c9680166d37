import type { Readable } from 'node:stream';
import { Agent, request } from './undici-parts.js';
import { ApiError, BadResponseError, NetworkError, apiErrorFromResponse, networkError, printable, shownUrl } from './errors.js';
import { DEFAULT_RATE_LIMIT, systemClock, type Clock, type RateLimit } from './rate-limit.js';
import { parseRetryAfter, retryDelay } from './retry.js';
import { limiterOf, type Limiter } from './window-limit.js';
import { assertNoPlaceholder } from './placeholder.js';
import { loopDeadline } from './deadline.js';

/** Where and as whom to talk to the API, and how politely. */
export interface ApiClientOptions {
  apiUrl: string;
  apiKey: string;
  /** Sent in `accountHeader` when set. */
  accountId?: string;
  /** The header the account id goes in; default `x-service-account` (the reference API names it `x-checkly-account`). */
  accountHeader?: string;
  /**
   * Per-request timeout (connect to last body byte); default 30 s (api-decisions §1.5). It counts
   * from when the request has a connection to itself (not the wait for one of `connections`) and
   * leaves out the time this process's event loop was held (see deadline.ts): it means that the
   * API did not answer, not that mac was busy.
   */
  timeoutMs?: number;
  /** Requests per period for the whole run; default 600 per 60 s. */
  rateLimit?: RateLimit;
  /** A limiter to wait on instead of the one built from `rateLimit`. */
  limiter?: Limiter;
  /** Sockets kept open to the API, and requests in flight at once (more wait their turn); default 16. */
  connections?: number;
  /** Largest response body read, in bytes; default 64 MiB. A longer answer fails while it streams. */
  maxBodyBytes?: number;
  /** Most objects one list (page-based or cursor) may hold; default 50,000. See paginate.ts. */
  maxListItems?: number;
  /** Most bytes all pages of one list may hold together; default 256 MiB. */
  maxListBytes?: number;
  /** Most pages of a page-based list read without a content-range total; default 100 (10,000 objects). */
  maxPagesWithoutTotal?: number;
  /**
   * Most wall-clock time the run may spend waiting to retry (Retry-After and backoff; waits of
   * concurrent requests that overlap count once); default 5 min. Past it a failure is not
   * retried, so a server answering 429 to every request cannot stall a run for hours (5 waits of
   * 60 s per request otherwise).
   */
  maxRetryWaitMs?: number;
  /** Clock and randomness of waits and backoff; tests pass fakes. */
  clock?: Clock;
  random?: () => number;
}

/** Query values; arrays repeat the key (`tag=a&tag=b`). */
export type Query = Record<string, string | number | boolean | string[] | undefined>;

/** Options of one request. */
export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Bytes shared by several requests (the pages of one list), counted while bodies stream. */
  budget?: ReadBudget;
}

/**
 * Bytes several answers may hold together (the pages of one list, read concurrently): each
 * body's chunks are counted against it as they arrive, so the sum never exceeds `limit` in memory.
 */
export class ReadBudget {
  remaining: number;
  constructor(readonly limit: number) {
    this.remaining = limit;
  }
}

/** A successful answer: status, lower-case headers, parsed JSON body (undefined when empty). */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
  /** The URL asked for (query included), for error messages. */
  url: URL;
}

/** What one client reads at most (the bounds against a hostile or broken API). */
export interface ReadLimits {
  maxBodyBytes: number;
  maxListItems: number;
  maxListBytes: number;
  maxPagesWithoutTotal: number;
}

/**
 * Default bounds: 64 MiB per body; per list 50,000 objects and 256 MiB; 100 pages when the API
 * sends no total (it always should: api-decisions §1.4), so a server answering full pages
 * forever is stopped within seconds.
 */
export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxListItems: 50_000,
  maxListBytes: 256 * 1024 * 1024,
  maxPagesWithoutTotal: 100,
};

/** Deepest nesting of a JSON answer mac accepts (real objects nest under 20 levels). */
export const MAX_JSON_DEPTH = 100;

/** Requests sent by a client (retries included), for tests and benchmarks. */
export interface RequestStats {
  total: number;
  byMethod: Record<string, number>;
  retries: number;
}

/**
 * The monitoring API client: one keep-alive Agent, Bearer auth, JSON in and out, typed errors,
 * retries per api-decisions §1.5 and one token bucket shared by every request of the run.
 */
export class ApiClient {
  readonly apiUrl: string;
  readonly stats: RequestStats = { total: 0, byMethod: {}, retries: 0 };
  readonly limits: ReadLimits;
  private readonly agent: Agent;
  private readonly limiter: Limiter;
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly maxRetryWaitMs: number;
  private retryWaited = 0;
  private retryWaitEnd = 0;
  private aborted = false;
  /** Requests in flight, at most `connections`: the others wait here, before their timer starts. */
  private readonly slots: number;
  private inFlight = 0;
  private readonly queue: ((handed: boolean) => void)[] = [];

  constructor(options: ApiClientOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 300_000;
    this.limits = {
      maxBodyBytes: positive(options.maxBodyBytes, 'maxBodyBytes') ?? DEFAULT_READ_LIMITS.maxBodyBytes,
      maxListItems: positive(options.maxListItems, 'maxListItems') ?? DEFAULT_READ_LIMITS.maxListItems,
      maxListBytes: positive(options.maxListBytes, 'maxListBytes') ?? DEFAULT_READ_LIMITS.maxListBytes,
      maxPagesWithoutTotal: positive(options.maxPagesWithoutTotal, 'maxPagesWithoutTotal') ?? DEFAULT_READ_LIMITS.maxPagesWithoutTotal,
    };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.limiter = options.limiter ?? limiterOf(options.rateLimit ?? DEFAULT_RATE_LIMIT, this.clock);
    this.slots = options.connections ?? 16;
    this.agent = new Agent({ connections: this.slots, keepAliveTimeout: 10_000 });
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': 'mac',
      ...(options.accountId ? { [(options.accountHeader ?? 'x-service-account').toLowerCase()]: options.accountId } : {}),
    };
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
  }

  /** GET path; resolves to the JSON body. */
  async get<T = unknown>(path: string, query?: Query): Promise<T> {
    return (await this.request<T>('GET', path, { query })).body;
  }

  /** POST a JSON body; resolves to the JSON body of the answer. */
  async post<T = unknown>(path: string, body: unknown, query?: Query): Promise<T> {
    return (await this.request<T>('POST', path, { body, query })).body;
  }

  /** PUT a JSON body; resolves to the JSON body of the answer. */
  async put<T = unknown>(path: string, body: unknown, query?: Query): Promise<T> {
    return (await this.request<T>('PUT', path, { body, query })).body;
  }

  /** DELETE path. */
  async delete(path: string, query?: Query): Promise<void> {
    await this.request('DELETE', path, { query });
  }

  /** Sends one request (with retries); throws ApiError for non-2xx answers and NetworkError when none came. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    // Serialized once, for the guard and for every attempt.
    const json = options.body === undefined ? undefined : JSON.stringify(options.body);
    assertNoPlaceholder(method, path, options.body, json);
    const url = this.url(path, options.query);
    for (let attempt = 1; ; attempt++) {
      if (this.aborted) throw new NetworkError(`${method} ${shownUrl(url)}: not sent, the run no longer needs it`, 'ABORTED', method, url.pathname);
      try {
        return await this.once<T>(method, url, json, options.budget);
      } catch (err) {
        const wait = this.aborted ? undefined : retryDelay(err, method, attempt, this.random);
        if (wait === undefined) throw err;
        // The union of the waits' intervals: concurrent requests told to wait alike count once.
        const now = this.clock.now();
        const added = Math.max(0, now + wait - Math.max(now, this.retryWaitEnd));
        if (this.retryWaited + added > this.maxRetryWaitMs) throw err;
        this.retryWaited += added;
        this.retryWaitEnd = Math.max(this.retryWaitEnd, now + wait);
        this.stats.retries++;
        await this.clock.sleep(wait);
      }
    }
  }

  /** Closes the kept-alive sockets once the requests under way end; the client is unusable afterwards. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * Ends every request under way and refuses new ones (no retry follows): for a run that no
   * longer needs what it asked for, e.g. a plan whose definitions turned out invalid while the
   * live state was being read. The client is unusable afterwards.
   */
  async abort(): Promise<void> {
    this.aborted = true;
    // Requests waiting for a connection go on to fail as "not sent", without a slot.
    for (const wake of this.queue.splice(0)) wake(false);
    await this.agent.destroy();
  }

  /**
   * Waits for one of the `connections` request slots: a request's timer then starts when it can
   * be sent at once, so waiting behind the connection limit never counts as the API's silence.
   * Resolves to false when the client was aborted meanwhile (no slot is held then).
   */
  private acquireSlot(): Promise<boolean> | boolean {
    if (this.inFlight < this.slots) {
      this.inFlight++;
      return true;
    }
    // The slot is handed over by releaseSlot (inFlight stays counted).
    return new Promise<boolean>((resolve) => this.queue.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.queue.shift();
    if (next !== undefined) next(true);
    else this.inFlight--;
  }

  private url(path: string, query: Query | undefined): URL {
    const url = new URL(this.apiUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    return url;
  }

  private async once<T>(method: string, url: URL, json: string | undefined, budget: ReadBudget | undefined): Promise<ApiResponse<T>> {
    const held = await this.acquireSlot();
    try {
      if (!held || this.aborted) throw new NetworkError(`${method} ${shownUrl(url)}: not sent, the run no longer needs it`, 'ABORTED', method, url.pathname);
      await this.limiter.take();
      return await this.send<T>(method, url, json, budget);
    } finally {
      if (held) this.releaseSlot();
    }
  }

  /** One attempt, in a slot, past the limiter. */
  private async send<T>(method: string, url: URL, json: string | undefined, budget: ReadBudget | undefined): Promise<ApiResponse<T>> {
    this.stats.total++;
    this.stats.byMethod[method] = (this.stats.byMethod[method] ?? 0) + 1;
    const controller = new AbortController();
    let timedOut = false;
    const timer = loopDeadline(this.timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const pathAndQuery = `${url.pathname}${url.search}`;
    try {
      const res = await request(url, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: json === undefined ? this.headers : this.jsonHeaders,
        body: json,
        signal: controller.signal,
      });
      const headers = flatHeaders(res.headers);
      const source = { method, url, status: res.statusCode };
      const text = await readBody(res.body, headers['content-length'], this.limits.maxBodyBytes, budget, source);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        return { status: res.statusCode, headers, body: parseSuccess(text, headers['content-type'], source) as T, url };
      }
      if (res.statusCode >= 300 && res.statusCode < 400) {
        const location = headers.location === undefined ? '' : ` to ${printable(shownLocation(headers.location, url))}`;
        throw new BadResponseError(`answered ${res.statusCode}, a redirect${location}; mac does not follow redirects (they could carry the API key elsewhere)`, source, {
          hint: 'set MAC_API_URL / --api-url to the API\'s own address (the redirect\'s target if you trust it)',
        });
      }
      const parsed = parseBody(text, headers['content-type']);
      throw apiErrorFromResponse({
        status: res.statusCode,
        method,
        path: pathAndQuery,
        body: parsed,
        retryAfter: parseRetryAfter(headers['retry-after'], this.clock.now()),
      });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw networkError(err, method, url, timedOut ? { ms: this.timeoutMs } : undefined);
    } finally {
      timer.clear();
    }
  }
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A redirect target as printed: resolved against the request URL, without credentials, cut at 200 characters. */
function shownLocation(location: string, base: URL): string {
  try {
    return shownUrl(new URL(location, base)).slice(0, 200);
  } catch {
    return location.slice(0, 200);
  }
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`ApiClient: ${name} must be a positive number, got ${value}`);
  return value;
}

type Source = { method: string; url: URL; status: number };

/**
 * Reads a body as UTF-8 text, counting bytes as they arrive: a declared content-length over
 * `max` fails before the first byte is read, a body that grows over it fails at that chunk
 * (the connection is dropped); never more than `max` bytes are held.
 */
function readBody(
  body: Readable,
  contentLength: string | undefined,
  max: number,
  budget: ReadBudget | undefined,
  source: Source,
): Promise<string> {
  const overBudget = () =>
    new BadResponseError(`the answers of this list together are larger than ${formatBytes(budget!.limit)}, the most mac reads per list`, source, {
      hint: 'the monitoring API never answers this much; check that MAC_API_URL / --api-url points at it (see "Hostile or broken APIs" in docs/plan.md)',
    });
  const over = (what: string) =>
    new BadResponseError(`the answer's body ${what}, over the limit of ${formatBytes(max)}`, source, {
      hint: 'the monitoring API never answers this much; check that MAC_API_URL / --api-url points at it (see "Hostile or broken APIs" in docs/plan.md)',
    });
  const declared = contentLength !== undefined && /^\d+$/.test(contentLength.trim()) ? Number(contentLength) : undefined;
  if (declared !== undefined && declared > max) {
    body.destroy();
    return Promise.reject(over(`declares ${formatBytes(declared)} (content-length)`));
  }
  if (budget !== undefined && declared !== undefined && declared > budget.remaining) {
    body.destroy();
    return Promise.reject(overBudget());
  }
  // Read with 'data' events rather than an async iterator: one answer per request, thousands
  // of requests per apply, and the iterator's promises cost more than the reading itself.
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: Error) => {
      body.off('data', onData);
      body.destroy();
      reject(err);
    };
    const onData = (chunk: Buffer | Uint8Array) => {
      size += chunk.length;
      if (size > max) return fail(over('is larger'));
      if (budget !== undefined) {
        budget.remaining -= chunk.length;
        if (budget.remaining < 0) return fail(overBudget());
      }
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    body.once('error', reject);
  });
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB (${n} bytes)`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB (${n} bytes)`;
  return `${n} bytes`;
}

/**
 * The JSON of a 2xx answer, or a BadResponseError naming the URL: an HTML page, malformed JSON
 * or JSON nested deeper than MAX_JSON_DEPTH are not answers of the API. Empty -> undefined.
 */
function parseSuccess(text: string, contentType: string | undefined, source: Source): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const looksHtml = /^\s*</.test(text) || contentType?.includes('html') === true;
    const type = contentType ? ` (${printable(contentType.slice(0, 100))})` : '';
    const problem = looksHtml
      ? `answered ${source.status} with an HTML page${type}, not JSON: ${printable(text.trimStart().slice(0, 80))}`
      : `answered ${source.status} with a body that is not valid JSON${type}: ${printable(err instanceof Error ? err.message.slice(0, 200) : String(err))}`;
    throw new BadResponseError(problem, source, {
      hint: looksHtml
        ? 'MAC_API_URL / --api-url seems to point at a web page (or a proxy login page), not the monitoring API'
        : undefined,
    });
  }
  if (depthOver(value, MAX_JSON_DEPTH)) {
    throw new BadResponseError(`the answer's JSON nests deeper than ${MAX_JSON_DEPTH} levels`, source);
  }
  return value;
}

/**
 * Whether `value` nests deeper than `max` arrays/objects. Recursive, but never deeper than `max`
 * + 1 calls whatever the input, and without a copy or a tuple per object (a plan checks every
 * object of every list page).
 */
function depthOver(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null && depthOver(child, max - 1)) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const child = record[key];
    if (typeof child === 'object' && child !== null && depthOver(child, max - 1)) return true;
  }
  return false;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (contentType?.includes('json') || /^[[{"]/.test(text.trimStart())) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
