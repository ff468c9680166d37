import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { testServer } from '../unit/server/client.js';
import { seedWorld } from '../unit/server/world.js';
import { ROWS } from '../unit/server/spec-shapes.js';

describe('the 21 spec endpoints over real HTTP (built CLI)', () => {
  it('each answers its success status and the spec field names, in one service, in order', async () => {
    // The run data is recorded into the state file in process (the scheduler writes it in a real
    // service), then the built `mac serve` starts on that file.
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mac-spec-')), 'state.jsonl');
    const seeding = testServer({ stateFile });
    const w = await seedWorld(seeding);
    await seeding.server.close();
    const s = await startServe(['--state', stateFile, '--no-runs']);
    try {
      for (const row of ROWS) {
        const body = row.body?.(w);
        const res = await fetch(`${s.url}${row.path(w)}`, {
          method: row.method,
          headers: { authorization: `Bearer ${s.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect([row.n, res.status], text).toEqual([row.n, row.status]);
        if (row.status === 204) {
          expect(text).toBe('');
          expect(res.headers.get('content-type')).toBeNull();
        } else {
          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
          row.shape(JSON.parse(text), w);
        }
      }
    } finally {
      await s.stop();
    }
  });
});
