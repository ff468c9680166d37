import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tcpBody, testServer, type TestClient } from './client.js';
import { fuzzInput, prng } from './fuzzing.js';
import { RunRecorder } from '../../../src/server/rundata/recorder.js';
import { refusedAttempt } from '../../e2e/rundata-harness.js';

// Path ids the fuzzer swaps in now and then: missing, malformed, reserved or foreign-looking.
const BAD_IDS = ['x', '0', '-1', '1.5', 'services', 'incidents', 'bulk', '00000000-0000-4000-8000-000000000000', '%E2%82', '%20', 'a'.repeat(300)];

/** Everything the lists answer, for comparing the live state with the database reopened. */
async function snapshot(t: TestClient, ids: { page: string; incident: string; check: string }) {
  const out: Record<string, unknown> = {};
  for (const path of [
    '/v1/status-pages?limit=100',
    '/v1/status-pages/services?limit=100',
    '/v1/status-pages/incidents',
    `/v1/status-pages/${ids.page}/subscriptions`,
    `/v1/status-pages/incidents/${ids.incident}/incident-updates`,
    `/v1/error-groups/checks/${ids.check}?limit=100`,
    '/v1/private-locations',
    '/v1/alert-channels?limit=100',
    '/v1/check-groups?limit=100',
    '/v1/checks?limit=100',
  ]) {
    const a = await t.call('GET', path);
    out[path] = [a.status, a.body];
  }
  return out;
}

describe('fuzzing the status-page, incident, subscription, error-group, key and trigger writes', () => {
  it('never a 5xx or a crash; every list still answers 200, the data stays consistent and the reopened database holds the same state', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261122);
    const rand = prng(seed);
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mac-fuzz-')), 'state.db');
    const t = testServer({ stateFile });
    const svc = (await t.call('POST', '/v1/status-pages/services', { name: 'API' })).body;
    const svc2 = (await t.call('POST', '/v1/status-pages/services', { name: 'Web' })).body;
    const pageBody = { name: 'Shop', url: 'shop', cards: [{ id: 'main', name: 'Main', services: [{ id: svc.id }] }], defaultTheme: 'DARK' };
    const page = (await t.call('POST', '/v1/status-pages', pageBody)).body;
    const incidentBody = { name: 'Outage', severity: 'MAJOR', services: [{ id: svc.id }], incidentUpdates: [{ description: 'looking', status: 'INVESTIGATING' }] };
    const incident = (await t.call('POST', '/v1/status-pages/incidents', incidentBody)).body;
    const updateBody = { description: 'fixed', status: 'RESOLVED', publicIncidentUpdateDate: '2025-03-12T12:00:00.000Z', notifySubscribers: true };
    const update = (await t.call('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, updateBody)).body;
    const check = (await t.call('POST', '/v1/checks/tcp', tcpBody())).body;
    const channel = (await t.call('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })).body;
    const group = (await t.call('POST', '/v1/check-groups', { name: 'g' })).body;
    const loc = (await t.call('POST', '/v1/private-locations', { name: 'l', slugName: 'loc-1' })).body;
    const recorder = new RunRecorder(t.server.ctx.store, Date.now);
    const session = recorder.openSession('dev', { check: { id: check.id, name: check.name, checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1'] });
    const errorGroup = recorder.finishLocation('dev', session.checkSessionId, refusedAttempt('eu-west-1', Date.now())).errorGroup!;

    const endpoints: Array<[string, string, unknown]> = [
      ['POST', '/v1/status-pages', { ...pageBody, url: 'shop-2', cards: [] }],
      ['PUT', `/v1/status-pages/${page.id}`, pageBody],
      ['DELETE', `/v1/status-pages/${page.id}`, undefined],
      ['POST', '/v1/status-pages/services', { name: 'DB' }],
      ['PUT', `/v1/status-pages/services/${svc2.id}`, { name: 'Web 2' }],
      ['DELETE', `/v1/status-pages/services/${svc2.id}`, undefined],
      ['POST', '/v1/status-pages/incidents', incidentBody],
      ['PUT', `/v1/status-pages/incidents/${incident.id}`, { name: 'Outage 2', severity: 'MINOR', services: [{ id: svc.id }] }],
      ['PATCH', `/v1/status-pages/incidents/${incident.id}`, { severity: 'CRITICAL' }],
      ['POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, updateBody],
      ['PUT', `/v1/status-pages/incidents/${incident.id}/incident-updates/${update.id}`, updateBody],
      ['PATCH', `/v1/status-pages/incidents/${incident.id}/incident-updates/${update.id}`, { status: 'MONITORING' }],
      ['DELETE', `/v1/status-pages/incidents/${incident.id}/incident-updates/${update.id}`, undefined],
      ['POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'a@example.com' }], autoVerify: true }],
      ['DELETE', `/v1/status-pages/${page.id}/subscriptions/x`, undefined],
      ['PATCH', `/v1/error-groups/${errorGroup.id}`, { archiveForEver: true, archivedUntilNextEvent: true }],
      ['POST', `/v1/private-locations/${loc.id}/keys`, undefined],
      ['POST', `/v1/triggers/check-groups/${group.id}`, undefined],
      ['PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: false }],
    ];
    const seen = new Set<number>();
    const succeeded = new Set<string>();
    const ROUNDS = 40;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [method, path, valid] of endpoints) {
        // Deletes of the shared fixtures run in the last round only, so the other writes reach them.
        if (method === 'DELETE' && round < ROUNDS - 1) continue;
        // One request in eight goes to a bad id in place of a real one.
        const target = rand() < 0.125 ? path.replace(/[0-9a-f-]{36}|\/\d+(?=\/|$)/, (m) => (m.startsWith('/') ? '/' : '') + BAD_IDS[Math.floor(rand() * BAD_IDS.length)]) : path;
        const { body, raw } = fuzzInput(valid, rand);
        const a = await t.call(method, target, body, raw === undefined ? undefined : { raw });
        seen.add(a.status);
        if (a.status < 300 && target === path) succeeded.add(`${method} ${path}`);
        expect(a.status, `seed ${seed} ${method} ${target} ${JSON.stringify(body) ?? raw}`).toBeLessThan(500);
        if (a.status >= 400) expect(a.body).toMatchObject({ statusCode: a.status, error: expect.any(String), message: expect.any(String) });
      }
    }
    expect(seen).toContain(400);
    expect(seen).toContain(404);
    // Every write was also reached with an input it accepted (the deletes run once, at the end).
    const neverAccepted = endpoints.filter(([m, p]) => m !== 'DELETE' && !succeeded.has(`${m} ${p}`)).map(([m, p]) => `${m} ${p}`);
    expect(neverAccepted).toEqual([]);

    // Consistency: every list answers 200; incidents keep at least one update and the status of
    // their newest; every referenced service exists.
    const ids = { page: page.id, incident: incident.id, check: check.id };
    const live = await snapshot(t, ids);
    for (const [path, [status]] of Object.entries(live) as Array<[string, [number]]>) {
      if (!path.includes(page.id) && !path.includes(incident.id)) expect(status, path).toBe(200);
    }
    const services = new Set(((live['/v1/status-pages/services?limit=100'] as any)[1].entries as Array<{ id: string }>).map((s) => s.id));
    for (const inc of (live['/v1/status-pages/incidents'] as any)[1].entries) {
      expect(inc.incidentUpdates.length).toBeGreaterThan(0);
      expect(inc.lastUpdateStatus).toBe(inc.incidentUpdates[inc.incidentUpdates.length - 1].status);
      for (const s of inc.services) expect(services.has(s.id)).toBe(true);
    }
    for (const p of (live['/v1/status-pages?limit=100'] as any)[1].entries) {
      for (const card of p.cards) for (const s of card.services) expect(services.has(s.id)).toBe(true);
    }
    await t.server.close();
    const replayed = testServer({ stateFile });
    try {
      expect(await snapshot(replayed, ids)).toEqual(live);
    } finally {
      await replayed.server.close();
    }
  });
});
