import { MacError, type FieldProblem, type MacErrorOptions } from '../errors.js';
export type { FieldProblem };

/** What the API answered, kept on every ApiError. */
export interface ApiErrorDetails {
  status: number;
  method: string;
  /** Path and query of the request, without the base URL. */
  path: string;
  /** The parsed error body (`{statusCode, error, message, attributes?}`), or the raw text. */
  body: unknown;
  /** Seconds from a Retry-After header, when one was sent. */
  retryAfter?: number;
}

/** An HTTP answer outside 2xx; one subclass per status family, built only by `apiErrorFromResponse`. */
export class ApiError extends MacError {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly retryAfter?: number;
  constructor(message: string, details: ApiErrorDetails, options: MacErrorOptions = {}) {
    super(message, options);
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.body = details.body;
    this.retryAfter = details.retryAfter;
  }
  /** Whether repeating the same request may succeed (rate limits and gateway errors). */
  get transient(): boolean {
    return false;
  }
}

/** 400: the body, query or path was rejected; `problems` lists every field at fault. */
export class BadRequestError extends ApiError {
  /** The `attributes.errors` of the answer, `[]` when it had none. */
  get problems(): FieldProblem[] {
    const attributes = (this.body as { attributes?: { errors?: unknown } } | undefined)?.attributes;
    const errors = attributes?.errors;
    return Array.isArray(errors)
      ? errors.filter((e): e is FieldProblem => typeof e === 'object' && e !== null && typeof (e as FieldProblem).path === 'string')
      : [];
  }
}
/** 401: the key is missing, unknown, or does not belong to the account. */
export class UnauthorizedError extends ApiError {}
/** 402: a plan limit of the account; never retried. */
export class PaymentRequiredError extends ApiError {}
/** 403: the key may not do this (a read-only key writing). */
export class ForbiddenError extends ApiError {}
/** 404: no such resource in this account (or no such route). */
export class NotFoundError extends ApiError {}
/** 409: a unique value is taken, or the resource is still in use. */
export class ConflictError extends ApiError {}
/** 413: the request body is over the service's size limit. */
export class PayloadTooLargeError extends ApiError {}
/** 415: the request body was not sent as JSON. */
export class UnsupportedMediaTypeError extends ApiError {}
/** 429: over the rate limit; `retryAfter` says when to try again. */
export class RateLimitedError extends ApiError {
  override get transient(): boolean {
    return true;
  }
}
/** 5xx: the service failed; 502/503/504 are transient. */
export class ServerError extends ApiError {
  override get transient(): boolean {
    return this.status === 502 || this.status === 503 || this.status === 504;
  }
}

type ApiErrorClass = new (message: string, details: ApiErrorDetails, options?: MacErrorOptions) => ApiError;

const BY_STATUS: Record<number, { cls: ApiErrorClass; hint?: string }> = {
  400: { cls: BadRequestError },
  401: { cls: UnauthorizedError, hint: 'check MAC_API_KEY / --api-key, MAC_ACCOUNT_ID / --account-id, and the header the service reads the account from (MAC_ACCOUNT_HEADER / --account-header)' },
  402: { cls: PaymentRequiredError, hint: 'the account has reached a limit of its plan' },
  403: { cls: ForbiddenError, hint: 'use an API key with write access (this one may only read)' },
  404: { cls: NotFoundError },
  409: { cls: ConflictError },
  413: { cls: PayloadTooLargeError, hint: 'the request body is over the service limit (1 MiB); shorten scripts or split the resource' },
  415: { cls: UnsupportedMediaTypeError, hint: 'this is a bug in mac; please report it with the command you ran' },
  429: { cls: RateLimitedError, hint: 'lower the request rate (--rate-limit) or try again later' },
};

/** The one mapping from an HTTP error answer to an ApiError subclass, with a message a user can act on. */
export function apiErrorFromResponse(details: ApiErrorDetails): ApiError {
  const entry = BY_STATUS[details.status] ?? (details.status >= 500 ? { cls: ServerError, hint: 'the service failed; try again later' } : { cls: ApiError });
  const bodyMessage = messageOf(details.body);
  let message = `${details.method} ${details.path} failed: ${details.status}${bodyMessage ? ` ${bodyMessage}` : ''}`;
  if (entry.cls === BadRequestError) {
    const problems = new BadRequestError('', details).problems;
    if (problems.length > 0) message += problems.map((p) => `\n  ${p.path === '' ? '(body)' : p.path}: ${p.message}`).join('');
  }
  return new entry.cls(message, details, { hint: entry.hint });
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') {
    // A gateway's or proxy's HTML error page: its title says more than its first 300 characters.
    if (/^\s*</.test(body)) {
      const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(body)?.[1]?.trim();
      return `(an HTML page${title ? `: ${printable(title)}` : ''})`;
    }
    return printable(body.slice(0, 300));
  }
  if (typeof body === 'object' && body !== null) {
    const b = body as { error?: unknown; message?: unknown };
    if (typeof b.message === 'string') return printable(b.message.slice(0, 300));
    if (typeof b.error === 'string') return printable(b.error.slice(0, 300));
  }
  return '';
}

/** Text a server sent, made safe to print: control characters (terminal escapes) become `?`. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
}

/** A URL as errors print it: without user name or password. */
export function shownUrl(url: URL | string): string {
  const u = new URL(String(url));
  u.username = '';
  u.password = '';
  return u.toString();
}

/** Where an unusable answer came from. */
export interface BadResponseSource {
  method: string;
  url: URL | string;
  /** The HTTP status of the answer. */
  status: number;
}

const BAD_RESPONSE_HINT = 'no monitoring API answers this; check that MAC_API_URL / --api-url points at the API (not a web page or a proxy), or report it to the API\'s operator';

/**
 * An answer mac refuses to use: a body over the size limit, not JSON, not the shape asked for,
 * or a list that does not add up (absurd or inconsistent content-range, repeated ids, endless
 * pages). Its message names the full URL (without credentials). Never retried.
 */
export class BadResponseError extends ApiError {
  /** The URL asked for, without credentials. */
  readonly url: string;
  constructor(problem: string, source: BadResponseSource, options: MacErrorOptions = {}) {
    const url = shownUrl(source.url);
    const parsed = new URL(url);
    super(`${source.method} ${url}: ${problem}`, { status: source.status, method: source.method, path: `${parsed.pathname}${parsed.search}`, body: undefined }, {
      ...options,
      hint: options.hint ?? BAD_RESPONSE_HINT,
    });
    this.url = url;
  }
}

/** The request never got an HTTP answer: connection refused, unknown host, timeout, reset. */
export class NetworkError extends MacError {
  /** The system or undici error code (ECONNREFUSED, ENOTFOUND, ECONNRESET, UND_ERR_..., ETIMEDOUT). */
  readonly code: string;
  readonly method: string;
  readonly path: string;
  constructor(message: string, code: string, method: string, path: string, options: MacErrorOptions = {}) {
    super(message, options);
    this.code = code;
    this.method = method;
    this.path = path;
  }
  /** Whether the connection broke mid-way (worth retrying an idempotent request). */
  get reset(): boolean {
    return this.code === 'ECONNRESET' || this.code === 'EPIPE' || this.code === 'UND_ERR_SOCKET' || this.code === 'UND_ERR_CLOSED';
  }
}

/** The request took longer than the per-request timeout. */
export class RequestTimeoutError extends NetworkError {}

interface ErrnoLike {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Finds the innermost error with a code in undici's `cause` chain (and inside AggregateErrors). */
function rootCause(err: unknown): ErrnoLike | undefined {
  let found: ErrnoLike | undefined;
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const e = current as ErrnoLike;
    if (typeof e.code === 'string') found = e;
    if (Array.isArray(e.errors) && e.errors.length > 0 && e.cause === undefined) current = e.errors[0];
    else current = e.cause;
  }
  return found;
}

/**
 * Turns what undici threw into a NetworkError naming the real cause (`ECONNREFUSED 127.0.0.1:4010`)
 * and what to do about it; `timedOut` is set when the per-request timer fired.
 */
export function networkError(err: unknown, method: string, url: URL, timedOut: { ms: number } | undefined): NetworkError {
  const where = `${method} ${url.pathname}${url.search}`;
  const hostPort = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const urlHint = 'start it with `mac serve`, or set MAC_API_URL / --api-url to the API';
  if (timedOut) {
    return new RequestTimeoutError(`${where}: no answer from ${hostPort} within ${timedOut.ms / 1000} s`, 'ETIMEDOUT', method, url.pathname, {
      cause: err,
      hint: 'the service is slow or unreachable; try again, or check MAC_API_URL',
    });
  }
  const root = rootCause(err);
  const code = typeof root?.code === 'string' ? root.code : 'EUNKNOWN';
  const address = typeof root?.address === 'string' ? `${root.address}${typeof root.port === 'number' ? `:${root.port}` : ''}` : hostPort;
  switch (code) {
    case 'ECONNREFUSED':
      return new NetworkError(`${where}: connect ECONNREFUSED ${address}`, code, method, url.pathname, {
        cause: err,
        hint: `nothing listens at ${url.origin}; ${urlHint}`,
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new NetworkError(`${where}: getaddrinfo ${code} ${url.hostname}`, code, method, url.pathname, {
        cause: err,
        hint: `the host name ${url.hostname} does not resolve; check MAC_API_URL / --api-url`,
      });
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return new RequestTimeoutError(`${where}: ${code} talking to ${hostPort}`, code, method, url.pathname, {
        cause: err,
        hint: 'the service is slow or unreachable; try again, or check MAC_API_URL',
      });
    case 'UND_ERR_HEADERS_OVERFLOW':
      return new NetworkError(`${where}: the answer's headers are over the size limit (UND_ERR_HEADERS_OVERFLOW)`, code, method, url.pathname, {
        cause: err,
        hint: `the server at ${hostPort} sent oversized headers; no monitoring API does; check MAC_API_URL / --api-url`,
      });
    default: {
      const detail = typeof root?.message === 'string' ? root.message : err instanceof Error ? err.message : String(err);
      return new NetworkError(`${where}: ${code} ${printable(detail)}`, code, method, url.pathname, {
        cause: err,
        hint: `the connection to ${hostPort} failed; check MAC_API_URL / --api-url`,
      });
    }
  }
}

/**
 * Whether a failed create may nevertheless have happened: the answer was lost to a reset or a
 * timeout, its 2xx answer was unusable, or the service failed with a 5xx after perhaps writing. A refused connection or a
 * 4xx means nothing was written.
 */
export function outcomeUnknown(err: unknown): boolean {
  if (err instanceof NetworkError) return err.code !== 'ECONNREFUSED' && err.code !== 'ENOTFOUND' && err.code !== 'EAI_AGAIN';
  // A 2xx whose body mac refused (not JSON, over the size cap, no id): the write happened.
  if (err instanceof BadResponseError && err.status >= 200 && err.status < 300) return true;
  return err instanceof ApiError && err.status >= 500;
}
