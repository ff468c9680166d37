import { escapeHtml } from '../html.js';
/**
 * Escaping for markdown that GitHub renders (pull request comments, job summaries, `mac plan
 * --format markdown`). Names, ids, values, notes and file paths come from definitions a pull
 * request controls, so none of them is ever written as markdown or HTML: in markdown they are
 * code spans (no emphasis, link, image, autolink or @mention is recognised inside one), in HTML
 * (`<summary>`) they are HTML-escaped inside `<code>`, in tables their pipes are escaped, and
 * newlines are folded so no value can end a block (a `<details>`, a table, a fence).
 */

/** One line: newlines (which could end an HTML block, a table row or a list item) become spaces. */
function oneLine(s: string): string {
  return s.replace(/\r\n?|\n|\u2028|\u2029/g, ' ');
}

/** Text as a markdown code span, whatever it holds (backticks get a longer delimiter). '' stays ''. */
export function code(s: string): string {
  const text = oneLine(s);
  if (text === '') return '';
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const tick = '`'.repeat(longest + 1);
  // A code span strips one space at each end when both are there; pad when the text starts or ends with ` or a space.
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${tick}${pad}${text}${pad}${tick}`;
}

/** Text inside an HTML context (`<summary>`): escaped, on one line, in `<code>` (no @mention or autolink there). */
export function htmlCode(s: string): string {
  return `<code>${escapeHtml(oneLine(s))}</code>`;
}

/** Text as one markdown table cell: a code span with its pipes escaped (GFM unescapes them inside the cell). */
export function cell(s: string): string {
  return code(s).replace(/\|/g, '\\|');
}

/** A fenced code block whose fence is longer than any backtick run inside (values may hold ```). */
export function fence(lang: string, lines: string[]): string {
  const body = lines.join('\n');
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${body}\n${f}`;
}

/**
 * A URL usable as a markdown link destination: characters that could end it or start new
 * markdown (`(`, `)`, `<`, `>`, spaces, `!`, `'`, `*`, `[`, `]`) are percent-encoded.
 */
export function safeUrl(url: string): string {
  return url.replace(/[()<>\s!'*[\]`"|]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** A markdown link whose text is shown as code; the bare code span when there is no URL. */
export function codeLink(text: string, url: string | undefined): string {
  return url ? `[${code(text)}](${safeUrl(url)})` : code(text);
}
