import { readFileSync } from 'node:fs';

/** One fenced block of a doc page marked `<!-- example: PROJECT/PATH -->` on the line above it. */
export interface DocExample {
  /** The example project it belongs to (first path segment of the marker). */
  project: string;
  /** Path of the file inside that project. */
  path: string;
  /** The block's text. */
  text: string;
  /** 1-based line of the marker in the page. */
  line: number;
}

const MARKER = /^<!-- example: ([a-z0-9-]+)\/(\S+) -->$/;

/** The marked example blocks of a markdown file, in page order. */
export function docExamples(file: string): DocExample[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]!);
    if (!m) continue;
    const fence = /^(```+)[a-z]*$/.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`${file}:${i + 1}: an example marker must be followed by a fenced block`);
    const end = lines.findIndex((l, j) => j > i + 1 && l === fence[1]);
    if (end < 0) throw new Error(`${file}:${i + 2}: unterminated fenced block`);
    out.push({ project: m[1]!, path: m[2]!, text: lines.slice(i + 2, end).join('\n') + '\n', line: i + 1 });
    i = end;
  }
  return out;
}

/** GitHub's anchor for a heading text. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (duplicates numbered as GitHub does). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets `[text](target)` of a markdown file outside code (fenced blocks and spans), with their lines. */
export function relativeLinks(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let inFence = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^```/.test(line)) inFence = !inFence;
    if (inFence) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}
