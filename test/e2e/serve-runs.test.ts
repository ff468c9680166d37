import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { startServe, type Served, callApi, waitFor } from '../helpers/serve.js';
import { startTcpServer, type TcpServer } from '../helpers/tcp-server.js';

// Each case has a service of its own (its flags are the point); the cases run at once, with a time
// limit that leaves room for the others on a loaded machine.
let tcp: TcpServer;

beforeAll(async () => {
  tcp = await startTcpServer({ banner: '+OK\r\n' });
});
afterAll(() => tcp.close());

/** `mac serve ...args`, stopped when the case `ctx` ends, and a caller of its API. */
async function serveFor(ctx: TestContext, args: string[]): Promise<{ served: Served; api: (method: string, path: string, body?: unknown) => ReturnType<typeof callApi> }> {
  const served = await startServe(args);
  ctx.onTestFinished(() => served.stop());
  return { served, api: (method, path, body) => callApi(served, method, path, body) };
}

const tcpCheck = () => ({ name: 'cache', frequency: 1, doubleCheck: false, request: { hostname: '127.0.0.1', port: tcp.port } });

describe.concurrent('mac serve runs', { timeout: 180_000 }, () => {
  it('runs a stored TCP check on its schedule, minutes passing in seconds with --time-scale', async (ctx) => {
    // frequency 1 minute at time scale 120 = a run every 0.5 s.
    const { api } = await serveFor(ctx, ['--time-scale', '120']);
    const check = await api('POST', '/v1/checks/tcp', tcpCheck());
    expect(check.status).toBe(201);
    const results = await waitFor(async () => {
      const r = await api('GET', `/v1/check-results/${check.body.id}?limit=100`);
      return r.body.length >= 3 ? r.body : undefined;
    });
    expect(results[0]).toMatchObject({ resultType: 'FINAL', hasFailures: false, runLocation: 'local', apiCheckResult: { response: { body: '+OK\r\n' } } });
  });

  it('runs nothing on its own with --no-runs, yet runs a triggered check', async (ctx) => {
    const { api } = await serveFor(ctx, ['--time-scale', '600', '--no-runs']);
    const check = await api('POST', '/v1/checks/tcp', tcpCheck());
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api('GET', `/v1/check-results/${check.body.id}`)).body).toEqual([]);
    const trigger = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: [check.body.id] } });
    expect(trigger.status).toBe(201);
    const sessionId = trigger.body.sessions[0].checkSessionId as string;
    const session = await waitFor(async () => {
      const s = await api('GET', `/v1/check-sessions/${sessionId}`);
      return s.body.status === 'PASSED' ? s.body : undefined;
    });
    expect(session.results).toHaveLength(1);
  });

  it('accepts heartbeat pings without an API key', async (ctx) => {
    const { served, api } = await serveFor(ctx, ['--no-runs']);
    const check = await api('POST', '/v1/checks/heartbeat', { name: 'nightly', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } });
    const ping = await fetch(`${served.url}/ping/${check.body.heartbeat.pingToken}`, { headers: { 'user-agent': 'backup.sh' } });
    expect([ping.status, await ping.text()]).toEqual([200, 'OK']);
    const events = await api('GET', `/v1/checks/heartbeats/${check.body.id}/events`);
    expect(events.body[0].events[0]).toMatchObject({ state: 'RECEIVED', userAgent: 'backup.sh', source: expect.stringContaining('127.0.0.1') });
  });
});
