import { describe, expect, it } from 'vitest';
import { testServer, type Answer } from './client.js';
import { seedWorld } from './world.js';
import { ROWS } from './spec-shapes.js';

describe('the 21 endpoints of the spec, each once with valid data', () => {
  it('covers every endpoint exactly once', () => {
    expect(ROWS.map((r) => r.n)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  it.each(ROWS.map((r) => [r.n, r] as const))('endpoint %i: success status and the spec field names', async (_n, row) => {
    const t = testServer();
    const w = await seedWorld(t);
    const a: Answer = await t.call(row.method, row.path(w), row.body?.(w));
    expect(a.status, JSON.stringify(a.body)).toBe(row.status);
    if (a.status !== 204) expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    row.shape(a.body, w);
  });

  it('endpoint 19 answers 201 for a group without a trigger (200 only when one exists)', async () => {
    const t = testServer();
    const g = (await t.call('POST', '/v1/check-groups', { name: 'fresh' })).body;
    expect((await t.call('POST', `/v1/triggers/check-groups/${g.id}`)).status).toBe(201);
  });
});
