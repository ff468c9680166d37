// Escaping is shared with `mac plan --format markdown`: see src/render/md-escape.ts.
export { escapeHtml } from '../../html.js';
export { cell, code, codeLink, fence, htmlCode, safeUrl } from '../../render/md-escape.js';

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
