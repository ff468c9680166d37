import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe, type Served } from '../helpers/serve.js';
import { createServer } from '../../src/server/server.js';
import { RunRecorder } from '../../src/server/rundata/recorder.js';
import { refusedAttempt, tcpAttempt } from './rundata-harness.js';

async function call(s: Served, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // Session links name the service's own origin, which changes with the port across restarts.
  const text = (await res.text()).replaceAll(s.url, 'ORIGIN');
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Writes run data into the journal the way the scheduler does (the service of main has no scheduler). */
async function seedRunData(stateFile: string) {
  const server = createServer({ stateFile, rateLimit: { limit: 0, windowSeconds: 60 } });
  const res = await server.request('/v1/checks/tcp', {
    method: 'POST',
    headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'db', request: { hostname: 'db.internal', port: 5432 } }),
  });
  const check = (await res.json()) as { id: string };
  const recorder = new RunRecorder(server.ctx.store, Date.now);
  const session = recorder.openSession('dev', { check: { id: check.id, name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1', 'us-east-1'] });
  recorder.markExecuting('dev', session.checkSessionId);
  const failed = recorder.finishLocation('dev', session.checkSessionId, refusedAttempt('eu-west-1', Date.now() - 2000));
  recorder.finishLocation('dev', session.checkSessionId, tcpAttempt('us-east-1', Date.now() - 1000));
  recorder.recordHeartbeatEvent('dev', { checkId: check.id, state: 'LATE', timestamp: new Date(Date.now() - 60_000).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' });
  await server.close();
  return { check, session, result: failed.result, errorGroup: failed.errorGroup! };
}

describe('mac serve durability of status-page and run data (built CLI, kill -9)', () => {
  it('every acknowledged status-page, incident, subscription and error-group write, and the run data, survive kill -9', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mac-serve-durable-')), 'state.jsonl');
    const run = await seedRunData(stateFile);
    const a = await startServe(['--state', stateFile, '--no-runs']);
    let reads: Array<[string, unknown]>;
    const paths = (ids: { page: string; incident: string; update: string; service: string }) => [
      `/v1/status-pages/${ids.page}`,
      '/v1/status-pages',
      '/v1/status-pages/services',
      `/v1/status-pages/services/${ids.service}`,
      '/v1/status-pages/incidents',
      `/v1/status-pages/incidents/${ids.incident}/incident-updates/${ids.update}`,
      `/v1/status-pages/${ids.page}/subscriptions`,
      `/v1/check-sessions/${run.session.checkSessionId}`,
      `/v1/check-results/${run.check.id}/${run.result.id}`,
      `/v1/check-results/${run.check.id}?resultType=ALL`,
      `/v1/error-groups/checks/${run.check.id}`,
      `/v1/error-groups/${run.errorGroup.id}`,
    ];
    let ids: { page: string; incident: string; update: string; service: string };
    try {
      const service = (await call(a, 'POST', '/v1/status-pages/services', { name: 'API' })).body;
      const gone = (await call(a, 'POST', '/v1/status-pages/services', { name: 'Old' })).body;
      expect((await call(a, 'DELETE', `/v1/status-pages/services/${gone.id}`)).status).toBe(204);
      const page = (await call(a, 'POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [{ id: 'main', name: 'Main', services: [{ id: service.id }] }] })).body;
      expect((await call(a, 'PUT', `/v1/status-pages/${page.id}`, { name: 'Shop 2', url: 'shop', cards: [{ id: 'main', name: 'Main', services: [{ id: service.id }] }], whiteLabel: true })).status).toBe(200);
      const incident = (await call(a, 'POST', '/v1/status-pages/incidents', { name: 'Outage', severity: 'MAJOR', services: [{ id: service.id }], incidentUpdates: [{ description: 'looking' }] })).body;
      const update = (await call(a, 'POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'fixed', status: 'RESOLVED' })).body;
      expect((await call(a, 'PATCH', `/v1/status-pages/incidents/${incident.id}`, { severity: 'MINOR' })).status).toBe(200);
      expect((await call(a, 'POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'a@example.com' }, { type: 'EMAIL', config: 'b@example.com' }] })).status).toBe(201);
      const [first] = (await call(a, 'GET', `/v1/status-pages/${page.id}/subscriptions`)).body;
      expect((await call(a, 'DELETE', `/v1/status-pages/${page.id}/subscriptions/${first.id}`)).status).toBe(204);
      expect((await call(a, 'PATCH', `/v1/error-groups/${run.errorGroup.id}`, { archiveForEver: true })).body.archivedUntilNextEvent).toBe(true);
      ids = { page: page.id, incident: incident.id, update: update.id, service: service.id };
      reads = [];
      for (const p of paths(ids)) reads.push([p, (await call(a, 'GET', p)).body]);
      // Heartbeat stats move with the clock; the events themselves must survive.
      reads.push(['events', (await call(a, 'GET', `/v1/checks/heartbeats/${run.check.id}/events`)).body[0].events]);
    } finally {
      await a.stop('SIGKILL');
    }
    const b = await startServe(['--state', stateFile, '--no-runs']);
    try {
      const after: Array<[string, unknown]> = [];
      for (const p of paths(ids)) after.push([p, (await call(b, 'GET', p)).body]);
      after.push(['events', (await call(b, 'GET', `/v1/checks/heartbeats/${run.check.id}/events`)).body[0].events]);
      expect(after).toEqual(reads);
      expect((reads[0][1] as any).whiteLabel).toBe(true);
      expect((reads[4][1] as any).entries[0]).toMatchObject({ severity: 'MINOR', lastUpdateStatus: 'RESOLVED' });
      expect(reads[6][1]).toHaveLength(1);
      expect((reads[11][1] as any).archivedUntilNextEvent).toBe(true);
      expect(reads[12][1]).toHaveLength(1);
    } finally {
      await b.stop();
    }
  });
});
