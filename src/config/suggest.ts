/** "Did you mean" suggestions for misspelt field names, kinds and ids. */

/** Edit distance (Levenshtein, case-insensitive) between two short strings. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length];
}

/** The closest candidate to `word`, if close enough to be a likely typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // Allow about one typo per three characters, at least two, so `hostnmae` finds `hostname`.
  const limit = Math.max(2, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= limit ? best : undefined;
}

/** A hint naming the closest candidate, or undefined. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const match = closest(word, candidates);
  return match === undefined ? undefined : `did you mean "${match}"?`;
}
