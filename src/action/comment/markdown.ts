/** Escapes text for an HTML context inside markdown (`<summary>`, `<code>`). */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text for one cell of a markdown table (pipes end a cell, newlines end the row). */
export function escapeCell(s: string): string {
  return escapeHtml(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A fenced code block whose fence is longer than any backtick run inside (values may hold ```). */
export function fence(lang: string, lines: string[]): string {
  const body = lines.join('\n');
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${body}\n${f}`;
}

/** A markdown link, or the bare text when there is no URL. */
export function link(text: string, url: string | undefined): string {
  const t = text.replace(/[[\]]/g, '\\$&');
  return url ? `[${t}](${url})` : t;
}

/** Size in UTF-8 bytes: GitHub's job summary limit is in bytes, and bytes bound characters from above. */
export function size(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Takes lines in order while `lines` plus a closing "more" line fits `budget` bytes;
 * the closing line (from `more(n)`) names how many were left out.
 */
export function fitLines(lines: string[], budget: number, more: (left: number) => string): { lines: string[]; left: number } {
  const total = lines.reduce((n, l) => n + size(l) + 1, 0);
  if (total <= budget) return { lines, left: 0 };
  const taken: string[] = [];
  let used = size(more(lines.length)) + 1;
  for (const l of lines) {
    const n = size(l) + 1;
    if (used + n > budget) break;
    taken.push(l);
    used += n;
  }
  const left = lines.length - taken.length;
  return { lines: [...taken, more(left)], left };
}
