/**
 * HTML building for the public pages: a tagged template that escapes every interpolated value
 * unless it is already `Html` (built by this module). User strings can only reach a page as text.
 */

/**
 * Markup built by `html` (trusted: every value inside it was escaped). A large one (a whole page)
 * is held as its chunks of at most about CHUNK characters, in order, and joined only when its
 * `value` is asked: a page is sent as the UTF-8 bytes of its chunks (`htmlBytes`), never made one
 * string of a few hundred kilobytes first (flattening and encoding a string that large allocates
 * it in the engine's large-object space and costs several times the rest of the encoding).
 */
export class Html {
  #value: string | undefined;
  readonly chunks: readonly string[] | undefined;
  constructor(value: string, chunks?: readonly string[]) {
    if (chunks === undefined) this.#value = value;
    else this.chunks = chunks;
  }
  /** The markup as one string. */
  get value(): string {
    return (this.#value ??= this.chunks!.join(''));
  }
  toString(): string {
    return this.value;
  }
}

/** Characters a chunk of markup collects before the next one starts (its UTF-8 encoding stays in the engine's ordinary heap). */
export const CHUNK = 16_384;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/;

/** Escapes text for element content and quoted attribute values. */
export function esc(value: unknown): string {
  const s = typeof value === 'string' ? value : String(value);
  // Most values (numbers, names, coordinates) have nothing to escape: tested once, not rebuilt.
  return SPECIAL.test(s) ? s.replace(/[&<>"']/g, (c) => ENTITIES[c]) : s;
}

/** The markup being built by one `html` call: the current string, and the chunks before it once it grew past CHUNK. */
interface Out {
  s: string;
  chunks: string[] | null;
}

function add(out: Out, text: string): void {
  out.s += text;
  if (out.s.length >= CHUNK) {
    (out.chunks ??= []).push(out.s);
    out.s = '';
  }
}

function part(out: Out, v: unknown): void {
  if (v instanceof Html) {
    const chunks = v.chunks;
    if (chunks === undefined) add(out, v.value);
    else for (let i = 0; i < chunks.length; i++) add(out, chunks[i]);
  } else if (typeof v === 'number') add(out, String(v));
  else if (Array.isArray(v)) {
    // Appended in place (a page joins thousands of parts: no intermediate array per list).
    for (let i = 0; i < v.length; i++) part(out, v[i]);
  } else if (!(v === null || v === undefined || v === false)) add(out, esc(v));
}

/** `html\`<p>${text}</p>\``: values are escaped; arrays are joined; null, undefined and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const out: Out = { s: strings[0], chunks: null };
  for (let i = 0; i < values.length; i++) {
    part(out, values[i]);
    add(out, strings[i + 1]);
  }
  if (out.chunks === null) return new Html(out.s);
  if (out.s !== '') out.chunks.push(out.s);
  return new Html('', out.chunks);
}

/** The UTF-8 bytes of markup (or of a string): chunk by chunk, then put together. */
export function htmlBytes(h: Html | string): Buffer {
  if (typeof h === 'string' || h.chunks === undefined) return Buffer.from(typeof h === 'string' ? h : h.value, 'utf8');
  const parts = h.chunks.map((c) => Buffer.from(c, 'utf8'));
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** A URL a page may link to or load: http(s) absolute or a path; anything else (javascript:, data:) is dropped. */
export function safeUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.trim() === '') return null;
  const u = url.trim();
  if (/^https?:\/\//i.test(u)) return u;
  if (u.startsWith('/') && !u.startsWith('//')) return u;
  return null;
}

/**
 * CSS of the owner (`customCSS`) as the content of a `<style>` element: every `<` becomes the CSS
 * escape `\3c `, so no `</style>` (or `<!--`) can close the element; CSS meaning inside strings is kept.
 */
export function styleText(css: string): string {
  return css.replace(/</g, '\\3c ');
}

/** Escapes text for XML (the Atom feed). */
export function xmlEsc(value: unknown): string {
  return esc(value).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}
