import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { loadProject } from '../../src/config/load.js';
import { createPlan, prefetchLive } from '../../src/plan/plan.js';
import { FIXTURES, fixtureCases } from '../helpers/fixtures.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ROUNDTRIP_SECRETS } from './fixtures-roundtrip.js';
import { createAsEngine } from './plan-helpers.js';

// `mac plan` fetches the live state while the files load (the kinds their text names, fetched
// before they are parsed): its plan must be the plan of loading everything first and fetching
// after, for every valid fixture, against an account holding objects of every kind.

let served: Served;
const client = () => new ApiClient({ apiUrl: served.url, apiKey: served.apiKey, accountId: served.accountId });
const now = new Date('2026-01-01T00:00:00Z');

beforeAll(async () => {
  served = await startServe(['--no-runs']);
  const c = client();
  try {
    // Objects of every kind in the account: noops for this fixture, orphans and others for the rest.
    // Rack-42 is a location outside the fixture that its checks name.
    await c.post('/v1/private-locations', { name: 'Rack', slugName: 'Rack-42' });
    await createAsEngine(join(FIXTURES, 'valid', 'kinds'), c, ROUNDTRIP_SECRETS);
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
      const loaded = await loadProject(dir, { env: ROUNDTRIP_SECRETS });
      expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const before = await createPlan(loaded, first, { prune: true, now });

      let prefetch: ReturnType<typeof prefetchLive> | undefined;
      const overlapped = await loadProject(dir, { env: ROUNDTRIP_SECRETS, onFilesRead: (kinds) => (prefetch = prefetchLive(second, kinds)) });
      expect(prefetch).toBeDefined();
      const after = await createPlan(overlapped, second, { prune: true, now }, prefetch);
      expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('fetches after loading a kind the first look at the text missed', async () => {
    const dir = join(FIXTURES, 'valid', 'kinds');
    const c = client();
    try {
      const loaded = await loadProject(dir, { env: ROUNDTRIP_SECRETS });
      const before = await createPlan(loaded, c, { prune: true, now });
      // A prefetch of nothing but the owned kinds: every other kind is fetched after loading.
      const after = await createPlan(loaded, c, { prune: true, now }, prefetchLive(c, new Set()));
      expect(JSON.stringify(after)).toBe(JSON.stringify(before));
      expect(before.changes.length).toBeGreaterThan(5);
    } finally {
      await c.close();
    }
  });
});
