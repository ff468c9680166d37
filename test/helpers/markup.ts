import { expect } from 'vitest';

/**
 * What GitHub would render as markup outside code: after removing fenced blocks and code spans
 * (where nothing is markup), only the markup the body itself writes is left.
 */
export function expectInert(text: string, markers: number): void {
  const outside = stripCode(text);
  expect(outside.split('<!--').length - 1, outside).toBe(markers);
  expect(outside.match(/<details>/g)?.length ?? 0, outside).toBe(outside.match(/<\/details>/g)?.length ?? 0);
  expect(outside).not.toContain('![');
  expect(outside).not.toContain('http://evil');
  expect(outside).not.toContain('@octocat');
  expect(outside).not.toMatch(/^\| a \| b \|/m);
  // Every <summary> line is closed on the same line: no name ends the HTML block.
  for (const line of outside.split('\n').filter((l) => l.includes('<summary>'))) expect(line).toMatch(/<\/summary>$/);
}

function stripCode(text: string): string {
  let out = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
  // <code> elements hold escaped text only.
  out = out.replace(/<code>[^<]*<\/code>/g, '');
  // Code spans: a run of N backticks up to the next run of exactly N.
  return out.replace(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, '');
}
