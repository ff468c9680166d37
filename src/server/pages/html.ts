/**
 * HTML building for the public pages: a tagged template that escapes every interpolated value
 * unless it is already `Html` (built by this module). User strings can only reach a page as text.
 */

/** Markup built by `html` (trusted: every value inside it was escaped). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/;

/** Escapes text for element content and quoted attribute values. */
export function esc(value: unknown): string {
  const s = typeof value === 'string' ? value : String(value);
  // Most values (numbers, names, coordinates) have nothing to escape: tested once, not rebuilt.
  return SPECIAL.test(s) ? s.replace(/[&<>"']/g, (c) => ENTITIES[c]) : s;
}

function part(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) {
    // Appended in place (a page joins thousands of parts: no intermediate array per list).
    let out = '';
    for (let i = 0; i < v.length; i++) out += part(v[i]);
    return out;
  }
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
}

/** `html\`<p>${text}</p>\``: values are escaped; arrays are joined; null, undefined and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Html(out);
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
