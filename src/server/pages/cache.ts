/**
 * Rendered public pages kept for a few seconds, shared by every visitor: a status page, a
 * dashboard, their data and feeds are built at most once per page and per `ttlMs` (and again
 * after this instance changed what they show), whatever the number of visitors. A hit reads
 * nothing from the store and encodes nothing: a page's bytes and headers are the same for every
 * visitor (its styles are allowed by their hashes, not a per-response nonce), so they are kept as
 * they are, compressed once (gzip and brotli, off the main thread, in the background) and tagged
 * with an ETag; a visitor gets the encoding it accepts, and a 304 when it has the page already.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Store } from '../store/store.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** One rendered answer. */
export interface CachedAnswer {
  status: number;
  /** Its headers as rendered, plus `etag` and `vary` for a 200. */
  headers: Record<string, string>;
  /** The body as rendered. */
  body: Buffer;
  /** The strong validator of the body, without quotes (a 200 only, else ''). */
  tag: string;
  /** The body compressed, once it is (null before, and when compressing does not pay). */
  gzip: Buffer | null;
  br: Buffer | null;
}

/** Pages kept at most (each up to a few hundred KiB): past this the oldest goes. */
export const MAX_CACHED_PAGES = 512;

/**
 * How long past its TTL a held answer may still be served, while one rendering in the background
 * replaces it: a page visited at least this often is never rendered on a visitor's path. Past
 * it (a page nobody asked for in a while) the next visitor waits for a fresh rendering.
 */
export const STALE_MS = 30_000;

/** Bodies shorter than this are sent as they are (compression would not pay for its headers). */
export const MIN_COMPRESSED_BYTES = 1024;

/** What of a request chooses the form of its answer. */
export interface Conditions {
  acceptEncoding?: string | null;
  ifNoneMatch?: string | null;
  /** Whether the request presented a key (a private dashboard's answer is never kept by a browser). */
  keyPresented?: boolean;
}

type Coding = 'br' | 'gzip' | 'identity';

export class PublicPageCache {
  private readonly pages = new Map<string, { atMs: number; version: string; answer: CachedAnswer }>();
  /** The renderings under way, each with the configuration version it renders. */
  private readonly rendering = new Map<string, { version: string; answer: Promise<CachedAnswer> }>();

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
    /** How long past its TTL a held answer is still served while it is rendered again (STALE_MS). */
    private readonly staleMs: number = STALE_MS,
  ) {}

  /** The cache key of a request: its host, path and, when one is presented, a hash of its key (so a private dashboard is cached per key). */
  static key(host: string, path: string, presentedKey: string | null): string {
    const k = presentedKey === null ? '' : createHash('sha256').update(presentedKey).digest('base64');
    return `${host}\u0000${path}\u0000${k}`;
  }

  /**
   * The answer for `key`. Fresh (younger than the TTL, built since this instance last changed the
   * configuration): the held answer. Stale by age only, and younger than TTL + STALE_MS: the held
   * answer at once, while one rendering in the background replaces it (stale-while-revalidate:
   * a visitor never waits for a page to be rebuilt because its time ran out). Missing, older, or
   * built before a change of the configuration on this instance: rendered by `render` on the
   * request's path. Concurrent renderings of one key and configuration are one. `conditions`: the request's
   * Accept-Encoding and If-None-Match.
   */
  async get(key: string, render: () => Response | Promise<Response>, conditions: Conditions = {}): Promise<Response> {
    if (this.ttlMs <= 0) return render();
    const nowMs = this.now();
    const version = this.kinds.map((k) => this.store.localVersion(k)).join('/');
    const hit = this.pages.get(key);
    if (hit && hit.version === version) {
      const age = nowMs - hit.atMs;
      if (age < this.ttlMs) return toResponse(hit.answer, conditions);
      if (age < this.ttlMs + this.staleMs) {
        if (!this.rendering.has(key)) this.refresh(key, render, version, conditions.keyPresented === true, hit.answer).catch(() => undefined);
        return toResponse(hit.answer, conditions);
      }
    }
    // A rendering under way is shared only when it renders the configuration as it is now.
    const pending = this.rendering.get(key);
    const shared = pending?.version === version ? pending.answer : undefined;
    return toResponse(await (shared ?? this.refresh(key, render, version, conditions.keyPresented === true, null)), conditions);
  }

  /**
   * Renders the answer of `key` and holds it; concurrent calls of one key share it. In the
   * background (`stale` held), an error or a 5xx answer (the database unavailable) keeps the
   * stale answer, which is served until TTL + STALE_MS and then rendered on a request's path.
   */
  private refresh(key: string, render: () => Response | Promise<Response>, version: string, keyPresented: boolean, stale: CachedAnswer | null): Promise<CachedAnswer> {
    // In the map before the rendering starts, so that its end (even at once) takes it out.
    const entry = { version } as { version: string; answer: Promise<CachedAnswer> };
    this.rendering.set(key, entry);
    entry.answer = (async () => {
      try {
        const answer = await capture(await render(), keyPresented);
        if (stale && answer.status >= 500) return stale;
        this.pages.delete(key);
        if (this.pages.size >= MAX_CACHED_PAGES) {
          const oldest = this.pages.keys().next();
          if (!oldest.done) this.pages.delete(oldest.value);
        }
        // Kept for the TTL from when it was built: a rendering slower than the TTL (a cold page
        // on a loaded database) must still serve the visitors after it, not miss at once.
        this.pages.set(key, { atMs: this.now(), version, answer });
        compressInBackground(answer);
        return answer;
      } finally {
        if (this.rendering.get(key) === entry) this.rendering.delete(key);
      }
    })();
    return entry.answer;
  }

  /** Pages held now. */
  get size(): number {
    return this.pages.size;
  }
}

/** Whether an answer's body is worth compressing: a 200 of text of some size. */
function compressible(a: CachedAnswer): boolean {
  const type = a.headers['content-type'] ?? '';
  return a.status === 200 && a.body.length >= MIN_COMPRESSED_BYTES && /^(text\/|application\/(json|atom\+xml)|image\/svg\+xml)/.test(type);
}

/**
 * Compresses the answer's body with gzip and brotli on libuv's thread pool (the main thread only
 * hands the buffer over); until both are done, and if compression fails, visitors get the body as
 * it is. A compressed form not smaller than the body is not kept.
 */
function compressInBackground(a: CachedAnswer): void {
  if (!compressible(a)) return;
  const size = a.body.length;
  // Both forms are put in place at once, so that every visitor after gets the same choice.
  Promise.all([
    gzipAsync(a.body, { level: 6 }),
    brotliAsync(a.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: size } }),
  ]).then(
    ([gz, br]) => {
      a.gzip = gz.length < size ? gz : null;
      a.br = br.length < size ? br : null;
    },
    () => undefined,
  );
}

/**
 * The q-value the Accept-Encoding header gives `coding` (RFC 9110, 12.5.3): its own entry, else
 * `*`'s, else 0 (identity: 1 unless refused explicitly or by `*;q=0`).
 */
export function acceptQ(header: string | null | undefined, coding: Coding): number {
  if (header === null || header === undefined) return coding === 'identity' ? 1 : 0;
  let own: number | null = null;
  let star: number | null = null;
  for (const item of header.split(',')) {
    const [name, ...params] = item.trim().toLowerCase().split(';');
    if (name === '') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    if (name.trim() === coding) own = q;
    else if (name.trim() === '*') star = q;
  }
  if (own !== null) return own;
  if (star !== null) return star;
  return coding === 'identity' ? 1 : 0;
}

/** The coding of a held answer for a request: brotli, else gzip, when accepted and ready. */
function chooseCoding(a: CachedAnswer, acceptEncoding: string | null | undefined): Coding {
  if (!acceptEncoding) return 'identity';
  const br = a.br ? acceptQ(acceptEncoding, 'br') : 0;
  const gz = a.gzip ? acceptQ(acceptEncoding, 'gzip') : 0;
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}

/** The ETag of one coding of an answer (each coding is a representation of its own). */
const etagOf = (tag: string, coding: Coding) => `"${tag}${coding === 'identity' ? '' : `-${coding}`}"`;

/**
 * Whether If-None-Match names the answer (weak comparison, RFC 9110 13.1.2, whatever the coding
 * it was sent in): `*`, or one of its entity tags.
 */
export function matches(ifNoneMatch: string | null | undefined, tag: string): boolean {
  if (!ifNoneMatch || tag === '') return false;
  if (ifNoneMatch.trim() === '*') return true;
  // Bounded: a header of thousands of tags is read up to its first 64.
  let seen = 0;
  for (const m of ifNoneMatch.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (m[1].replace(/-(gzip|br)$/, '') === tag) return true;
    if (++seen >= 64) break;
  }
  return false;
}

/** The Response of a held answer: its bytes as they are, compressed once, or a 304. */
function toResponse(a: CachedAnswer, c: Conditions): Response {
  if (a.tag === '') return new Response(a.body, { status: a.status, headers: a.headers });
  const coding = chooseCoding(a, c.acceptEncoding);
  const headers: Record<string, string> = { ...a.headers, etag: etagOf(a.tag, coding) };
  if (matches(c.ifNoneMatch, a.tag)) {
    // A 304 has the headers a 200 would have, bar the body's (RFC 9110 15.4.5).
    delete headers['content-type'];
    delete headers['content-length'];
    return new Response(null, { status: 304, headers });
  }
  if (coding === 'identity') return new Response(a.body, { status: a.status, headers });
  headers['content-encoding'] = coding;
  return new Response(coding === 'br' ? a.br : a.gzip, { status: a.status, headers });
}

/**
 * A rendered Response as a CachedAnswer. A 200 gets its ETag and `Vary: Accept-Encoding`, and
 * `no-store` becomes `no-cache` when the request presented no key: a browser may keep a public page
 * but asks again each time (a 304 when it did not change).
 */
async function capture(res: Response, keyPresented: boolean): Promise<CachedAnswer> {
  const headers = Object.fromEntries(res.headers.entries());
  delete headers['content-length'];
  const body = Buffer.from(await res.arrayBuffer());
  const ok = res.status === 200;
  if (ok) {
    headers.vary = headers.vary ? `${headers.vary}, accept-encoding` : 'accept-encoding';
    if (!keyPresented && headers['cache-control'] === 'no-store') headers['cache-control'] = 'no-cache';
  }
  return { status: res.status, headers, body, tag: ok ? createHash('sha256').update(body).digest('base64url').slice(0, 32) : '', gzip: null, br: null };
}
