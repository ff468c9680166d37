import type { SendOutcome } from './types.js';

/**
 * Outcomes that can be shown: every result and error a sender returns passes through `settle`,
 * which takes out the credentials the attempt used (a receiver may echo them back, an error may
 * quote them) and bounds the text, since it becomes the notification's `notificationResult` and a
 * line of the event log.
 */

/** The longest result or error a sender returns. */
export const MAX_OUTCOME_CHARS = 1000;
/** The longest Retry-After honoured: a receiver cannot park a notification for days. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** Secrets shorter than this are not scrubbed: replacing "1" everywhere would hide the answer, not a secret. */
const MIN_SECRET_CHARS = 4;
const REDACTED = '***';

/** A success whose result is cleaned of `secrets` and bounded. */
export function succeeded(result: string, secrets: readonly string[] = []): SendOutcome {
  return { ok: true, result: settle(result, secrets) };
}

/** A failure whose error is cleaned of `secrets` and bounded. */
export function failed(error: string, secrets: readonly string[] = [], more: { permanent?: boolean; rateLimited?: boolean; retryAfterMs?: number } = {}): SendOutcome {
  const outcome: SendOutcome = { ok: false, error: settle(error, secrets) };
  if (more.permanent) outcome.permanent = true;
  if (more.rateLimited) outcome.rateLimited = true;
  if (more.retryAfterMs !== undefined) outcome.retryAfterMs = more.retryAfterMs;
  return outcome;
}

/** `text` on one line, without `secrets` (nor their URL-encoded forms), at most MAX_OUTCOME_CHARS. */
export function settle(text: string, secrets: readonly string[]): string {
  // Cut first (a hostile answer may be long), then scrub: scrub also hides a secret cut at the end.
  let out = scrub(text.slice(0, 4 * MAX_OUTCOME_CHARS), secrets);
  // Control characters (newlines of a receiver's HTML, ANSI escapes) would break a log line.
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/ {2,}/g, ' ').trim();
  if (out.length > MAX_OUTCOME_CHARS) out = `${out.slice(0, MAX_OUTCOME_CHARS - 1)}…`;
  return out;
}

/** Replaces each secret (and its URL-encoded form) with `***`; a text cut inside a secret loses that prefix too. */
export function scrub(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < MIN_SECRET_CHARS) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    forms.add(new URLSearchParams({ x: s }).toString().slice(2));
  }
  // Longest first, so that a secret containing another is replaced whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  let out = text;
  for (const f of sorted) out = out.split(f).join(REDACTED);
  // A bounded read may have cut the text in the middle of a secret: its prefix is one too.
  for (const f of sorted) {
    for (let n = Math.min(f.length - 1, out.length); n >= MIN_SECRET_CHARS; n--) {
      if (out.endsWith(f.slice(0, n))) {
        out = out.slice(0, out.length - n) + REDACTED;
        break;
      }
    }
  }
  return out;
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3), at most
 * MAX_RETRY_AFTER_MS; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  let ms: number;
  if (/^\d{1,10}$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** What went wrong, from a thrown value: the underlying cause's message when it has one (`connect ECONNREFUSED ...`). */
export function errorText(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; cause?: { message?: unknown } };
  const cause = typeof e?.cause?.message === 'string' ? e.cause.message : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return cause ?? (message || (typeof e?.code === 'string' ? e.code : 'unknown error'));
}
