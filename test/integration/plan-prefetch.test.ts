import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { loadProject } from '../../src/config/load.js';
import { createPlan, prefetchLive } from '../../src/plan/plan.js';
import { FIXTURES, fixtureCases } from '../helpers/fixtures.js';
import type { Served } from '../helpers/serve.js';
import { startServeIn } from '../helpers/mac-inprocess.js';
import { ROUNDTRIP_SECRETS } from '../e2e/fixtures-roundtrip.js';
import { createAsEngine } from '../e2e/plan-helpers.js';

// `mac plan` fetches the live state while the files load (the kinds their text names, fetched
// before they are parsed): its plan must be the plan of loading everything first and fetching
// after, for every valid fixture, against an account holding objects of every kind.

let served: Served;
const client = () => new ApiClient({ apiUrl: served.url, apiKey: served.apiKey, accountId: served.accountId });
const now = new Date('2026-01-01T00:00:00Z');
// What the valid fixtures interpolate (as test/unit/valid-fixtures.test.ts gives it).
const ENV = { ...ROUNDTRIP_SECRETS, FIXTURE_REGION: 'eu', FIXTURE_USER: 'ops', FIXTURE_SECRET: 's3cr3t', FIXTURE_HOST: 'db.example' };

beforeAll(async () => {
  served = await startServeIn(['--no-runs']);
  const c = client();
  try {
    // Objects of every kind in the account: noops for this fixture, orphans and others for the rest.
    for (const fixture of ['features', 'maintenance']) await createAsEngine(join(FIXTURES, 'valid', fixture), c, ENV);
  } finally {
    await c.close();
  }
}, 120_000);
afterAll(async () => {
  await served?.stop();
});

describe('a plan that fetches while loading', () => {
  it.each(fixtureCases('valid'))('is the plan of loading first, for the fixture %s', async (name) => {
    const dir = join(FIXTURES, 'valid', name);
    const first = client();
    const second = client();
    try {
      const loaded = await loadProject(dir, { env: ENV });
      expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const before = await createPlan(loaded, first, { prune: true, now });

      let prefetch: ReturnType<typeof prefetchLive> | undefined;
      const overlapped = await loadProject(dir, { env: ENV, onFilesRead: (kinds) => (prefetch = prefetchLive(second, kinds)) });
      expect(prefetch).toBeDefined();
      const after = await createPlan(overlapped, second, { prune: true, now }, prefetch);
      expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('fetches after loading a kind the first look at the text missed', async () => {
    const dir = join(FIXTURES, 'valid', 'features');
    const c = client();
    try {
      const loaded = await loadProject(dir, { env: ENV });
      const before = await createPlan(loaded, c, { prune: true, now });
      // A prefetch of nothing but the owned kinds: every other kind is fetched after loading.
      const after = await createPlan(loaded, c, { prune: true, now }, prefetchLive(c, new Set()));
      expect(JSON.stringify(after)).toBe(JSON.stringify(before));
      expect(before.changes.filter((ch) => ch.action === 'noop').length).toBeGreaterThan(3);
    } finally {
      await c.close();
    }
  });
});
