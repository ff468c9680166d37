// Writes docs/serve-api.md from the routes of `mac serve` (run `npm run build` first).
// Usage: node scripts/api-reference.mjs
import { writeFile } from 'node:fs/promises';
import { apiReference } from '../dist/server/api-reference.js';

const file = new URL('../docs/serve-api.md', import.meta.url);
await writeFile(file, apiReference());
console.log('wrote docs/serve-api.md');
