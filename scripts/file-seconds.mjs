#!/usr/bin/env node
// Writes test/file-seconds.json, the seconds each test file took (`project:path`), from the
// durations vitest cached in the last run on this machine (node_modules/.vite/vitest/*/results.json).
// vitest.config.ts orders a run by it where vitest has no cache (a fresh clone): the long files
// first, then each project's files together. Refresh it after a whole run, on an idle machine,
// when the long files change: `npm test && node scripts/file-seconds.mjs`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cacheDir = join(root, 'node_modules', '.vite', 'vitest');
const seconds = {};
for (const dir of readdirSync(cacheDir)) {
  let cache;
  try {
    cache = JSON.parse(readFileSync(join(cacheDir, dir, 'results.json'), 'utf8'));
  } catch {
    continue;
  }
  for (const [key, result] of cache.results ?? []) if (typeof result?.duration === 'number') seconds[key] = Math.round(result.duration / 100) / 10;
}
const files = Object.keys(seconds).length;
if (files === 0) {
  console.error(`no durations in ${cacheDir}: run the suite first (npm test)`);
  process.exit(1);
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync(join(root, 'test', 'file-seconds.json'), JSON.stringify(sorted, null, 1) + '\n');
console.log(`test/file-seconds.json: ${files} files`);
