import { escapeHtml } from '../html.js';

/**
 * Defence in depth for everything the action posts (comment, job summary, annotations, failure
 * message): every occurrence of a sensitive value of the run is replaced by `***`, whatever
 * rule upstream should already have kept it out. Sensitive: the API key, the GitHub token, and
 * every environment value the definitions read (`${{ env.NAME }}`, secret or not).
 *
 * A value is looked for in every form the action renders values in: as written; JSON-escaped
 * (a plan's values); with its newlines folded into spaces (code spans, `<summary>`, table
 * cells); HTML-escaped (`<summary>`); with `|` escaped as `\|` (table cells); URL-encoded (links);
 * line by line (a multi-line value is shown one line per diff line); and cut short with `…` (a
 * value truncated to fit).
 */
export class Scrubber {
  private readonly values = new Set<string>();
  private ordered: string[] | undefined;
  private readonly publicValues = new Set<string>();
  private publicOrdered: string[] | undefined;

  /**
   * Values shorter than this are not scrubbed: replacing every `on` or `1` of a plan would make
   * it unreadable, and no credential is that short.
   */
  static readonly MIN_LENGTH = 4;

  /** Adds values, in every form the action renders them in. */
  add(...values: Array<string | undefined>): void {
    for (const v of values) {
      if (v === undefined || v.length < Scrubber.MIN_LENGTH) continue;
      for (const form of renderedForms(v)) {
        if (form.length < Scrubber.MIN_LENGTH || this.values.has(form)) continue;
        this.values.add(form);
        this.ordered = undefined;
      }
    }
  }

  /**
   * Public names of the run (the repository `owner/repo`, the server URL) that are never masked,
   * even when a sensitive value happens to occur inside them or equals them: links and titles
   * must stay readable, and they are public anyway. A sensitive value that reaches across the
   * edge of a public name is still masked (the name with it).
   */
  keepPublic(...values: Array<string | undefined>): void {
    for (const v of values) {
      if (v === undefined || v.length < Scrubber.MIN_LENGTH) continue;
      this.publicValues.add(v);
      this.publicOrdered = undefined;
    }
  }

  /** Forgets every value, sensitive and public: a new run of the action starts from nothing. */
  clear(): void {
    this.values.clear();
    this.publicValues.clear();
    this.ordered = undefined;
    this.publicOrdered = undefined;
  }

  /** The text with every sensitive value replaced by `***` (longest first, so no tail of one survives). */
  scrub(text: string): string {
    this.ordered ??= [...this.values].sort((a, b) => b.length - a.length);
    this.publicOrdered ??= [...this.publicValues].sort((a, b) => b.length - a.length);
    if (this.ordered.length === 0) return text;
    if (this.publicOrdered.length === 0) return this.scrubAll(text);
    // Public names kept as they are, everything between them scrubbed; unless a value still shows
    // outside them (it reached across the edge of one): then everything is scrubbed.
    const pattern = new RegExp(this.publicOrdered.map(escapeRegExp).join('|'), 'g');
    let kept = '';
    let last = 0;
    const spans: Array<[number, number]> = [];
    for (const m of text.matchAll(pattern)) {
      kept += this.scrubAll(text.slice(last, m.index));
      spans.push([kept.length, kept.length + m[0].length]);
      kept += m[0];
      last = m.index + m[0].length;
    }
    kept += this.scrubAll(text.slice(last));
    return this.showsOutside(kept, spans) ? this.scrubAll(text) : kept;
  }

  /** Whether some value occurs in `text` other than wholly inside one of the (sorted) spans. */
  private showsOutside(text: string, spans: ReadonlyArray<[number, number]>): boolean {
    for (const v of this.ordered!) {
      for (let at = text.indexOf(v); at !== -1; at = text.indexOf(v, at + 1)) {
        if (!spans.some(([from, to]) => at >= from && at + v.length <= to)) return true;
      }
    }
    return false;
  }

  private scrubAll(text: string): string {
    let out = text;
    for (const v of this.ordered!) if (out.includes(v)) out = out.split(v).join('***');
    return out.includes('…') ? this.scrubTruncated(out) : out;
  }

  /** A value cut short to fit (`sk_live_abc…`): the start of any form before an ellipsis. */
  private scrubTruncated(text: string): string {
    return cutBeforeEllipses(text, this.ordered!);
  }

  /**
   * The environment definitions read, watched: every value read through it becomes sensitive
   * at once (the engine never reads process.env, so this sees every `${{ env.NAME }}`).
   */
  watch(env: Record<string, string | undefined>): Record<string, string | undefined> {
    return new Proxy(env, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        if (typeof key === 'string' && typeof value === 'string') this.add(value);
        return value;
      },
    });
  }
}

/** Every form a value takes where the action renders it (see the class comment). */
function renderedForms(v: string): Set<string> {
  const lines = v.split(/\r\n|\r|\n|\u2028|\u2029/);
  const folded = lines.join(' ');
  const bases = new Set<string>([v, folded, JSON.stringify(v).slice(1, -1), ...(lines.length > 1 ? lines : [])]);
  const forms = new Set<string>();
  for (const b of bases) {
    for (const f of [b, escapeHtml(b)]) {
      forms.add(f);
      forms.add(f.replace(/\|/g, '\\|'));
    }
  }
  forms.add(encodeURIComponent(v));
  return forms;
}

/** Replaces, before every `…`, the longest start (at least MIN_LENGTH characters) of a value that ends there. */
function cutBeforeEllipses(text: string, values: readonly string[]): string {
  let out = '';
  let last = 0;
  for (let at = text.indexOf('…'); at !== -1; at = text.indexOf('…', at + 1)) {
    // The earliest p in [last, at) such that text[p, at) starts a value: the longest cut start.
    let from = at;
    for (const v of values) {
      const head = v.slice(0, Scrubber.MIN_LENGTH);
      for (let p = text.indexOf(head, last); p !== -1 && p + Scrubber.MIN_LENGTH <= at && p < from; p = text.indexOf(head, p + 1)) {
        if (at - p < v.length && v.startsWith(text.slice(p, at))) {
          from = p;
          break;
        }
      }
    }
    out += text.slice(last, from) + (from < at ? '***' : '');
    last = at;
  }
  return out + text.slice(last);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The one scrubber of the action's process: every output goes through `scrub`. */
export const scrubber = new Scrubber();

/** Scrubs a text about to leave the action (comment, summary, annotation, failure). */
export function scrub(text: string): string {
  return scrubber.scrub(text);
}
