import { escapeHtml } from '../render/md-escape.js';

/**
 * Defence in depth for everything the action posts (comment, job summary, annotations, failure
 * message): every occurrence of a sensitive value of the run is replaced by `***`, whatever
 * rule upstream should already have kept it out. Sensitive: the API key, the GitHub token, and
 * every environment value the definitions read (`${{ env.NAME }}`, secret or not).
 */
export class Scrubber {
  private readonly values = new Set<string>();
  private ordered: string[] | undefined;

  /**
   * Values shorter than this are not scrubbed: replacing every `on` or `1` of a plan would make
   * it unreadable, and no credential is that short.
   */
  static readonly MIN_LENGTH = 4;

  /** Adds values (and the forms they take in a plan: JSON-escaped, HTML-escaped, URL-encoded). */
  add(...values: Array<string | undefined>): void {
    for (const v of values) {
      if (v === undefined || v.length < Scrubber.MIN_LENGTH) continue;
      const json = JSON.stringify(v).slice(1, -1);
      for (const form of [v, json, escapeHtml(v), escapeHtml(json), encodeURIComponent(v)]) {
        if (!this.values.has(form)) {
          this.values.add(form);
          this.ordered = undefined;
        }
      }
    }
  }

  /** The text with every sensitive value replaced by `***` (longest first, so no tail of one survives). */
  scrub(text: string): string {
    this.ordered ??= [...this.values].sort((a, b) => b.length - a.length);
    let out = text;
    for (const v of this.ordered) if (out.includes(v)) out = out.split(v).join('***');
    return out;
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

/** The one scrubber of the action's process: every output goes through `scrub`. */
export const scrubber = new Scrubber();

/** Scrubs a text about to leave the action (comment, summary, annotation, failure). */
export function scrub(text: string): string {
  return scrubber.scrub(text);
}
