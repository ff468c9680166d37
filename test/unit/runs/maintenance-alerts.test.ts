import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runsHarness, startReceiver, type Receiver, type RunsHarness } from './harness.js';
import { closedPort } from '../../helpers/tcp-server.js';

// Issue 25: checks covered by an active maintenance window still run and record, but alert no one.

let receiver: Receiver;
let h: RunsHarness;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
afterEach(async () => {
  await h?.close();
});

const NOW = Date.parse('2030-01-05T03:00:00Z');
const tcpRequest = (port: number) => ({ hostname: '127.0.0.1', port, data: null, ipFamily: 'IPv4', assertions: [] });

/** Triggers the checks, waits for their sessions and returns them as finished. */
async function trigger(checkIds: string[]): Promise<any[]> {
  const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: checkIds } });
  expect(res.status).toBe(201);
  await h.runs.engine.idle();
  await h.server.deliverer.idle();
  return Promise.all(res.body.sessions.map(async (s: any) => (await h.call('GET', `/v1/check-sessions/${s.checkSessionId}`)).body));
}

describe('alerts during maintenance', () => {
  it('a failing check inside an active window records a failed run and alerts no one; one outside is alerted', async () => {
    h = runsHarness({ now: () => NOW });
    receiver.requests.length = 0;
    const port = await closedPort();
    const window = await h.call('POST', '/v1/maintenance-windows', {
      name: 'DB upgrade',
      tags: ['db'],
      startsAt: '2030-01-05T02:00:00Z',
      endsAt: '2030-01-05T04:00:00Z',
      repeatUnit: null,
    });
    expect(window.status).toBe(201);
    // Ended yesterday: covers `web` but is no longer in progress.
    await h.call('POST', '/v1/maintenance-windows', { name: 'Past', tags: ['web'], startsAt: '2030-01-04T02:00:00Z', endsAt: '2030-01-04T04:00:00Z', repeatUnit: null });

    const inside = h.seedCheck({ name: 'db', tags: ['db', 'prod'], request: tcpRequest(port) });
    const outside = h.seedCheck({ name: 'web', tags: ['web', 'prod'], request: tcpRequest(port) });
    const hook = (name: string) => ({ type: 'WEBHOOK', config: { name, url: `${receiver.url}/${name}`, method: 'POST', headers: [], queryParameters: [], template: '' } });
    h.seedChannel(inside.id, hook('inside'));
    h.seedChannel(inside.id, { type: 'EMAIL', config: { address: 'db@example.com' } });
    const outsideChannel = h.seedChannel(outside.id, hook('outside'));
    const sessions = await trigger([inside.id, outside.id]);

    // Both ran and recorded a failed run.
    const byCheck = new Map(sessions.map((s) => [s.checkId, s]));
    for (const check of [inside, outside]) {
      expect(byCheck.get(check.id)).toMatchObject({ status: 'FAILED', results: [{ resultType: 'FINAL', hasFailures: true }] });
    }
    expect(receiver.requests.map((r) => r.url)).toEqual(['/outside']);
    const outbox = (await h.call('GET', '/v1/alert-notifications')).body;
    expect(outbox.map((n: any) => [n.checkId, n.alertChannelId, n.alertType])).toEqual([[outside.id, outsideChannel, 'ALERT_FAILURE']]);
  });

  it('after the window is deleted the same failing check is alerted again on its next state change', async () => {
    h = runsHarness({ now: () => NOW });
    receiver.requests.length = 0;
    const port = await closedPort();
    const { id } = (await h.call('POST', '/v1/maintenance-windows', { name: 'All', tags: [], silenceAllAlerts: true, startsAt: '2030-01-05T00:00:00Z', endsAt: '2030-01-05T06:00:00Z', repeatUnit: null })).body;
    const check = h.seedCheck({ name: 'api', tags: [], request: tcpRequest(port) });
    h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: `${receiver.url}/hook`, method: 'POST', headers: [], queryParameters: [], template: '' } });
    await trigger([check.id]);
    expect(receiver.requests).toEqual([]);
    expect((await h.call('DELETE', `/v1/maintenance-windows/${id}`)).status).toBe(204);
    // Passing, then failing again: the recovery and the new failure both go out.
    // The receiver's port accepts TCP connections: the check passes.
    h.seedCheck({ ...check, request: tcpRequest(Number(new URL(receiver.url).port)) });
    await trigger([check.id]);
    h.seedCheck({ ...check, request: tcpRequest(port) });
    await trigger([check.id]);
    expect(receiver.requests.map((r) => JSON.parse(r.body).alertType)).toEqual(['ALERT_RECOVERY', 'ALERT_FAILURE']);
  });
});
