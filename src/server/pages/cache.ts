/**
 * Rendered public pages kept for a few seconds, shared by every visitor: a status page, a
 * dashboard, their data and feeds are built at most once per page and per `ttlMs` (and again
 * after this instance changed what they show), whatever the number of visitors. A hit reads
 * nothing from the store. Each answer still gets its own CSP nonce: the nonce the page was built
 * with (a random string found nowhere else in it) is replaced by a fresh one.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../store/store.js';

/** One rendered answer. */
export interface CachedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, encoded once: whole when it has no nonce, else the parts between its nonces. */
  parts: Buffer[];
  /** The nonce the body was rendered with ('' when it has none). */
  nonce: string;
}

/** Pages kept at most (each up to a few hundred KiB): past this the oldest goes. */
export const MAX_CACHED_PAGES = 512;

export class PublicPageCache {
  private readonly pages = new Map<string, { atMs: number; version: string; answer: CachedAnswer }>();
  private readonly rendering = new Map<string, Promise<CachedAnswer>>();

  /**
   * `ttlMs` 0 disables the cache. `kinds`: the configuration whose change on this instance
   * drops every page at once (run data, and what other instances write, are followed by the TTL).
   */
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly kinds: readonly string[],
    /** Real time, not the service's clock (which tests stop or speed up). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The cache key of a request: its host, path and, when one is presented, a hash of its key (so a private dashboard is cached per key). */
  static key(host: string, path: string, presentedKey: string | null): string {
    const k = presentedKey === null ? '' : createHash('sha256').update(presentedKey).digest('base64');
    return `${host}\u0000${path}\u0000${k}`;
  }

  /**
   * The answer for `key`, rendered by `render` when missing, older than the TTL, or built before
   * this instance changed the configuration; concurrent misses of one key share one rendering.
   */
  async get(key: string, render: () => Response | Promise<Response>, fresh: () => string): Promise<Response> {
    if (this.ttlMs <= 0) return render();
    const nowMs = this.now();
    const version = this.kinds.map((k) => this.store.localVersion(k)).join('/');
    const hit = this.pages.get(key);
    if (hit && nowMs - hit.atMs < this.ttlMs && hit.version === version) return toResponse(hit.answer, hit.answer.nonce ? fresh() : null);
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = (async () => {
        try {
          const answer = await capture(await render());
          this.pages.delete(key);
          if (this.pages.size >= MAX_CACHED_PAGES) {
            const oldest = this.pages.keys().next();
            if (!oldest.done) this.pages.delete(oldest.value);
          }
          // Kept for the TTL from when it was built: a rendering slower than the TTL (a cold page
          // on a loaded database) must still serve the visitors after it, not miss at once.
          this.pages.set(key, { atMs: this.now(), version, answer });
          return answer;
        } finally {
          this.rendering.delete(key);
        }
      })();
      this.rendering.set(key, pending);
      return toResponse(await pending, null);
    }
    const answer = await pending;
    return toResponse(answer, answer.nonce ? fresh() : null);
  }

  /** Pages held now. */
  get size(): number {
    return this.pages.size;
  }
}

/**
 * The Response of a held answer: its bytes as they are, or (`nonce`) with the fresh nonce put
 * between its parts (the parts were encoded once, when the answer was held: a hit neither searches
 * nor encodes the page again).
 */
function toResponse(a: CachedAnswer, nonce: string | null): Response {
  const init = (headers: Record<string, string>) => ({ status: a.status, headers });
  if (nonce === null || a.nonce === '') return new Response(a.parts.length === 1 ? a.parts[0] : Buffer.concat(interleave(a.parts, Buffer.from(a.nonce))), init(a.headers));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.headers)) headers[k] = v.replaceAll(a.nonce, nonce);
  return new Response(Buffer.concat(interleave(a.parts, Buffer.from(nonce))), init(headers));
}

/** The parts with `sep` between each two. */
function interleave(parts: readonly Buffer[], sep: Buffer): Buffer[] {
  const out: Buffer[] = [];
  parts.forEach((p, i) => {
    if (i > 0) out.push(sep);
    out.push(p);
  });
  return out;
}

/** A rendered Response as a CachedAnswer (its nonce read from its CSP). */
async function capture(res: Response): Promise<CachedAnswer> {
  const headers = Object.fromEntries(res.headers.entries());
  const nonce = /'nonce-([^']+)'/.exec(headers['content-security-policy'] ?? '')?.[1] ?? '';
  const body = await res.text();
  return { status: res.status, headers, parts: (nonce === '' ? [body] : body.split(nonce)).map((p) => Buffer.from(p)), nonce };
}
