import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiReference } from '../../../src/server/api-reference.js';

describe('docs/serve-api.md', () => {
  it('is generated from the routes the service registers (node scripts/api-reference.mjs after changing them)', () => {
    const committed = readFileSync(new URL('../../../docs/serve-api.md', import.meta.url), 'utf8');
    const fresh = apiReference();
    expect(committed).toBe(fresh);
    // Not vacuous: the endpoints mac itself calls are there.
    for (const row of ['| GET | `/v1/checks` | yes |', '| POST | `/v1/checks/tcp` | no |', '| DELETE | `/v1/alert-channels/{id}` | no |']) expect(fresh).toContain(row);
    expect(fresh).toContain('`Authorization` | `Bearer KEY`');
  });
});
