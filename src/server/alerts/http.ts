import type * as Undici from 'undici';
import { errorText, failed, parseRetryAfter, succeeded } from './outcome.js';
import type { SendOutcome, SenderSettings } from './types.js';

/**
 * One HTTP request of a sender (Slack, PagerDuty, Opsgenie, Twilio, webhooks) and the truth about
 * its answer. It goes through the settings' undici dispatcher (the network policy), within
 * `timeoutMs` from connect to the last byte read, and reads at most MAX_ANSWER_BYTES of the
 * answer: a receiver that never answers or sends a body without end holds nothing for long.
 */

/** The part of an answer kept for the result (the rest is not read). */
export const MAX_ANSWER_BYTES = 2048;

/**
 * undici, loaded by the first request rather than with this module: it is the largest module
 * `mac serve` loads, and a service starts long before it sends an alert.
 */
let undici: typeof Undici | undefined;
async function loadUndici(): Promise<typeof Undici> {
  return (undici ??= await import('undici'));
}

/** One request of a sender. */
export interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /**
   * Statuses after which a retry of the same request cannot succeed (the provider documents them
   * as final: an invalid event, a wrong key). Any other non-2xx is worth retrying.
   */
  permanent: ReadonlySet<number>;
  /** What must never appear in the outcome: keys, tokens, the URL's secret parts. */
  secrets: readonly string[];
}

/** Sends `call`; never throws. A 2xx is a success whose result is the status and the start of the body. */
export async function sendHttp(settings: Pick<SenderSettings, 'timeoutMs' | 'dispatcher' | 'now'>, call: HttpCall): Promise<SendOutcome> {
  // Loading undici (once) is not the receiver's time.
  const { request } = await loadUndici();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), settings.timeoutMs);
  const timedOut = () => failed(`no answer within ${settings.timeoutMs} ms`, call.secrets);
  try {
    const res = await request(call.url, {
      method: call.method as Undici.Dispatcher.HttpMethod,
      headers: call.headers,
      body: call.body,
      signal: abort.signal,
      dispatcher: settings.dispatcher,
      // The request's own timer bounds the whole exchange; these only keep undici from giving up earlier or later.
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
    });
    // The status is the receiver's verdict: a body that stops short (or never ends) does not undo it.
    const { text: answer, cut } = await readBounded(res.body);
    const status = res.statusCode;
    const summary = `HTTP ${status}${answer ? ` ${answer}` : ''}${cut ? ` (the rest of the answer did not come within ${settings.timeoutMs} ms)` : ''}`;
    if (status >= 200 && status < 300) return succeeded(summary, call.secrets);
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(res.headers['retry-after'], (settings.now ?? Date.now)());
      return failed(summary, call.secrets, { rateLimited: true, retryAfterMs });
    }
    return failed(summary, call.secrets, { permanent: call.permanent.has(status) });
  } catch (err) {
    if (abort.signal.aborted) return timedOut();
    // undici rejects what can never be sent (a header value with a newline, an unknown method) before connecting.
    // A receiver the service's network policy refuses (--deny-targets) stays refused: no retry helps.
    const code = (err as { code?: string }).code;
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return failed(errorText(err), call.secrets, { permanent: code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_ARG_VALUE' || code === 'EPOLICY' || cause === 'EPOLICY' });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Up to MAX_ANSWER_BYTES of a body as text; the rest is dropped unread and the stream closed.
 * `cut` when the body failed or was aborted before its end (what came is kept).
 */
async function readBounded(body: Undici.Dispatcher.ResponseData['body']): Promise<{ text: string; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      chunks.push(buf.subarray(0, MAX_ANSWER_BYTES - size));
      size += Math.min(buf.length, MAX_ANSWER_BYTES - size);
      if (size >= MAX_ANSWER_BYTES) break;
    }
  } catch {
    cut = true;
  } finally {
    // Breaking out of the loop leaves the rest unread: destroying the stream frees the connection.
    if (!body.destroyed) body.destroy();
  }
  return { text: Buffer.concat(chunks).toString('utf8').replace(/\uFFFD+$/, '').trim(), cut };
}

/** A URL under `base` (which may carry a path prefix, e.g. a proxy's): `base` + `path`. */
export function urlUnder(base: string, path: string): URL {
  return new URL(base.replace(/\/+$/, '') + path);
}
