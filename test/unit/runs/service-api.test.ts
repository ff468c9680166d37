import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runsHarness, startReceiver, type Receiver, type RunsHarness } from './harness.js';
import { closedPort, startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';

// The runs against checks, channels and services created through the API itself.
let tcp: TcpServer;
let receiver: Receiver;
let h: RunsHarness;

beforeAll(async () => {
  tcp = await startTcpServer({ banner: 'OK' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await tcp.close();
  await receiver.close();
});
afterEach(async () => {
  await h?.close();
});

async function trigger(checkId: string): Promise<void> {
  expect((await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [checkId] } })).status).toBe(201);
  await h.runs.engine.idle();
  await h.server.deliverer.idle();
}

describe('runs of checks created through the API', () => {
  it('alerts a subscribed webhook, opens an incident on failure and resolves it on recovery', async () => {
    h = runsHarness();
    receiver.requests.length = 0;
    const service = await h.call('POST', '/v1/status-pages/services', { name: 'Database' });
    expect(service.status).toBe(201);
    const channel = await h.call('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
    expect(channel.status).toBe(201);
    const port = await closedPort();
    const check = await h.call('POST', '/v1/checks/tcp?autoAssignAlerts=true', {
      name: 'db',
      doubleCheck: false,
      request: { hostname: '127.0.0.1', port },
      triggerIncident: { serviceId: service.body.id, severity: 'MAJOR', name: 'Database down', description: 'The database is unreachable', notifySubscribers: false },
    });
    expect(check.status).toBe(201);
    const id = check.body.id as string;
    await trigger(id);
    let incidents = (await h.call('GET', '/v1/status-pages/incidents')).body.entries;
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ name: 'Database down', severity: 'MAJOR', lastUpdateStatus: 'INVESTIGATING' });
    await trigger(id); // still failing: the same incident stays open, no new one
    expect((await h.call('GET', '/v1/status-pages/incidents')).body.entries).toHaveLength(1);
    expect((await h.call('PUT', `/v1/checks/tcp/${id}`, { request: { hostname: '127.0.0.1', port: tcp.port } })).status).toBe(200);
    await trigger(id);
    incidents = (await h.call('GET', '/v1/status-pages/incidents')).body.entries;
    expect(incidents).toHaveLength(1);
    expect(incidents[0].lastUpdateStatus).toBe('RESOLVED');
    expect(receiver.requests.map((r) => JSON.parse(r.body).alertType)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect(h.server.ctx.store.get('dev', 'alertStates', id)).toBeDefined();
    expect((await h.call('DELETE', `/v1/checks/${id}`)).status).toBe(204);
    expect(h.server.ctx.store.get('dev', 'alertStates', id)).toBeUndefined();
  });

  it('triggers a multi-step check created through the API and fails a script that defines no test', async () => {
    h = runsHarness();
    const check = await h.call('POST', '/v1/checks/multistep', { name: 'journey', script: 'console.log(1)', doubleCheck: false });
    expect(check.status).toBe(201);
    const res = await h.call('POST', '/v1/check-sessions/trigger', {});
    expect(res.body.sessions.map((s: any) => s.checkId)).toEqual([check.body.id]);
    await h.runs.engine.idle();
    const session = await h.call('GET', `/v1/check-sessions/${res.body.sessions[0].checkSessionId}`);
    expect(session.body.status).toBe('FAILED');
    const [result] = (await h.call('GET', `/v1/check-results/${check.body.id}`)).body;
    expect(result.multiStepCheckResult.errors[0]).toMatch(/defines no test/);
    expect(result.multiStepCheckResult.jobLog).toContain('1');
  });

  it('feeds a heartbeat check created through the API by its ping token', async () => {
    h = runsHarness();
    const check = await h.call('POST', '/v1/checks/heartbeat', { name: 'nightly', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } });
    expect(check.status).toBe(201);
    const token = check.body.heartbeat.pingToken as string;
    expect((await h.server.request(`http://127.0.0.1:4010/ping/${token}`, { method: 'POST' })).status).toBe(200);
    const events = await h.call('GET', `/v1/checks/heartbeats/${check.body.id}/events`);
    expect(events.body[0].events.map((e: any) => e.state)).toEqual(['RECEIVED']);
  });
});
