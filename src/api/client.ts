import { Agent, request } from 'undici';
import { ApiError, apiErrorFromResponse, networkError } from './errors.js';
import { DEFAULT_RATE_LIMIT, systemClock, type Clock, type RateLimit } from './rate-limit.js';
import { parseRetryAfter, retryDelay } from './retry.js';
import { limiterOf, type Limiter } from './window-limit.js';
import { assertNoPlaceholder } from './placeholder.js';

/** Where and as whom to talk to the API, and how politely. */
export interface ApiClientOptions {
  apiUrl: string;
  apiKey: string;
  /** Sent as `x-service-account` when set. */
  accountId?: string;
  /** Per-request timeout (connect to last body byte); default 30 s (api-decisions §1.5). */
  timeoutMs?: number;
  /** Requests per period for the whole run; default 600 per 60 s. */
  rateLimit?: RateLimit;
  /** A limiter to wait on instead of the one built from `rateLimit`. */
  limiter?: Limiter;
  /** Sockets kept open to the API; default 16. */
  connections?: number;
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
}

/** A successful answer: status, lower-case headers, parsed JSON body (undefined when empty). */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

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
  private readonly agent: Agent;
  private readonly limiter: Limiter;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(options: ApiClientOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.limiter = options.limiter ?? limiterOf(options.rateLimit ?? DEFAULT_RATE_LIMIT, this.clock);
    this.agent = new Agent({ connections: options.connections ?? 16, keepAliveTimeout: 10_000 });
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': 'mac',
      ...(options.accountId ? { 'x-service-account': options.accountId } : {}),
    };
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
    assertNoPlaceholder(method, path, options.body);
    const url = this.url(path, options.query);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once<T>(method, url, options.body);
      } catch (err) {
        const wait = retryDelay(err, method, attempt, this.random);
        if (wait === undefined) throw err;
        this.stats.retries++;
        await this.clock.sleep(wait);
      }
    }
  }

  /** Closes the kept-alive sockets; the client is unusable afterwards. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private url(path: string, query: Query | undefined): URL {
    const url = new URL(this.apiUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    return url;
  }

  private async once<T>(method: string, url: URL, body: unknown): Promise<ApiResponse<T>> {
    await this.limiter.take();
    this.stats.total++;
    this.stats.byMethod[method] = (this.stats.byMethod[method] ?? 0) + 1;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const pathAndQuery = `${url.pathname}${url.search}`;
    try {
      const res = await request(url, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await res.body.text();
      const headers = flatHeaders(res.headers);
      const parsed = parseBody(text, headers['content-type']);
      if (res.statusCode >= 200 && res.statusCode < 300) return { status: res.statusCode, headers, body: parsed as T };
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
      clearTimeout(timer);
    }
  }
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
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
