import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runsHarness, startReceiver, type Receiver, type RunsHarness } from './harness.js';
import { closedPort, startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';
import { startDnsServer, startSilentNameServer, type DnsServer } from '../../helpers/dns-server.js';
import { testStateFile } from '../../helpers/store-mode.js';

let tcp: TcpServer;
let dns: DnsServer;
let receiver: Receiver;
let h: RunsHarness;

beforeAll(async () => {
  tcp = await startTcpServer({ banner: '+OK\r\n' });
  dns = await startDnsServer({ records: [{ name: 'api.test', type: 'A', data: '192.0.2.5' }] });
  receiver = await startReceiver();
});
afterAll(async () => {
  await tcp.close();
  await dns.close();
  await receiver.close();
});
afterEach(async () => {
  if (h !== common) await h?.close();
});
/**
 * The service of the trigger cases: one for the describe, not one per case (a service on a fresh
 * database took 0.5-1.5 s to open on PostgreSQL). Each case triggers only the checks it seeded and
 * reads what they left; none starts the scheduler or changes the service's options.
 */
let common: RunsHarness | undefined;

const tcpRequest = (port = tcp.port, assertions: unknown[] = []) => ({ hostname: '127.0.0.1', port, data: null, ipFamily: 'IPv4', assertions });

/** Triggers the given checks and waits for their sessions to finish. */
async function trigger(checkIds: string[]): Promise<any[]> {
  const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: checkIds } });
  expect(res.status).toBe(201);
  await h.runs.engine.idle();
  return res.body.sessions;
}

describe('POST /v1/check-sessions/trigger', () => {
  beforeAll(() => {
    common = runsHarness();
  });
  afterAll(async () => {
    await common?.close();
    common = undefined;
  });
  it('runs a TCP check now and records a passing session and result', async () => {
    h = common!;
    const check = h.seedCheck({ name: 'cache', request: tcpRequest(tcp.port, [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: '+OK' }]) });
    const [opened] = await trigger([check.id]);
    expect(opened).toMatchObject({ checkId: check.id, checkType: 'TCP', status: 'STARTED', runLocations: ['local'], results: [] });
    const session = await h.call('GET', `/v1/check-sessions/${opened.checkSessionId}`);
    expect(session.body).toMatchObject({ status: 'PASSED', results: [{ resultType: 'FINAL', hasFailures: false, runLocation: 'local' }] });
    const results = await h.call('GET', `/v1/check-results/${check.id}`);
    expect(results.body).toHaveLength(1);
    expect(results.body[0]).toMatchObject({
      name: 'cache',
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      attempts: 0,
      apiCheckResult: { request: { method: 'TCP', url: `tcp://127.0.0.1:${tcp.port}` }, response: { statusText: 'OK', body: '+OK\r\n' } },
    });
  });

  it('retries a failing check, records ATTEMPT and FINAL, fails the session and groups the error', async () => {
    h = common!;
    const port = await closedPort();
    const check = h.seedCheck({ name: 'db', doubleCheck: true, request: tcpRequest(port) });
    const [opened] = await trigger([check.id]);
    const session = await h.call('GET', `/v1/check-sessions/${opened.checkSessionId}`);
    expect(session.body.status).toBe('FAILED');
    expect(session.body.results.map((r: any) => r.resultType)).toEqual(['ATTEMPT', 'FINAL']);
    const all = await h.call('GET', `/v1/check-results/${check.id}?resultType=ALL`);
    expect(all.body.map((r: any) => r.attempts).sort()).toEqual([0, 1]);
    expect(new Set(all.body.map((r: any) => r.sequenceId)).size).toBe(1);
    const groups = await h.call('GET', `/v1/error-groups/checks/${check.id}`);
    expect(groups.body).toHaveLength(1);
    expect(groups.body[0]).toMatchObject({ rawErrorMessage: `connect ECONNREFUSED 127.0.0.1:${port}`, cleanedErrorMessage: 'connect ECONNREFUSED <ip>' });
  });

  it('runs every location in one session with runParallel, and rotates them otherwise', async () => {
    h = common!;
    const parallel = h.seedCheck({ runParallel: true, locations: ['eu-west-1', 'us-east-1'], privateLocations: ['office'], request: tcpRequest() });
    const [p] = await trigger([parallel.id]);
    // One session of every location: a private location's run is queued for its agents (mac agent)
    // with the session's id, never run by the service. "office" is no private location of the
    // account: its part is recorded as not run, into the same session, which then completes.
    expect(p.runLocations).toEqual(['eu-west-1', 'us-east-1', 'office']);
    await h.runs.engine.idle();
    const joined = (await h.call('GET', `/v1/check-sessions/${p.checkSessionId}`)).body;
    expect(joined.results.map((r: any) => r.runLocation).sort()).toEqual(['eu-west-1', 'office', 'us-east-1']);
    expect(joined.results.find((r: any) => r.runLocation === 'office')).toMatchObject({ resultType: 'FINAL', hasErrors: true });
    const rotating = h.seedCheck({ locations: ['eu-west-1', 'us-east-1'], request: tcpRequest() });
    const first = await trigger([rotating.id]);
    const second = await trigger([rotating.id]);
    expect([first[0].runLocations, second[0].runLocations]).toEqual([['eu-west-1'], ['us-east-1']]);
  });

  it('selects checks by tags (OR of AND groups, ! negates), skips deactivated ones, and answers 404 when none match', async () => {
    h = common!;
    const a = h.seedCheck({ tags: ['prod', 'db'], request: tcpRequest() });
    h.seedCheck({ tags: ['prod', 'web'], request: tcpRequest() });
    h.seedCheck({ tags: ['prod', 'db'], activated: false, request: tcpRequest() });
    const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { matchTags: [['prod', '!web']] } });
    expect(res.status).toBe(201);
    expect(res.body.sessions.map((s: any) => s.checkId)).toEqual([a.id]);
    expect((await h.call('POST', '/v1/check-sessions/trigger', { target: { matchTags: [['staging']] } })).status).toBe(404);
    await h.runs.engine.idle();
  });

  it('finishes a stored check the runner cannot read with hasErrors instead of leaving the session open', async () => {
    h = common!;
    const reported = h.errors.length;
    const check = h.seedCheck({ request: { hostname: '127.0.0.1' } });
    const [opened] = await trigger([check.id]);
    const session = await h.call('GET', `/v1/check-sessions/${opened.checkSessionId}`);
    expect(session.body).toMatchObject({ status: 'FAILED', results: [{ hasErrors: true, hasFailures: false }] });
    expect(h.errors.slice(reported)).toHaveLength(1);
  });

  it('fails a multi-step check without a script, never a pass', async () => {
    h = common!;
    const check = h.seedCheck({ checkType: 'MULTI_STEP', script: null, doubleCheck: false });
    const [opened] = await trigger([check.id]);
    const session = await h.call('GET', `/v1/check-sessions/${opened.checkSessionId}`);
    expect(session.body).toMatchObject({ status: 'FAILED', results: [{ hasFailures: true, hasErrors: false }] });
    const [result] = (await h.call('GET', `/v1/check-results/${check.id}`)).body;
    expect(result).toMatchObject({ apiCheckResult: null, multiStepCheckResult: { errors: ['the check has no script to run'] } });
  });

  it('runs DNS checks and reports analytics that agree with the stored results (p95, availability)', async () => {
    h = common!;
    const check = h.seedCheck({ checkType: 'DNS', degradedResponseTime: 500, maxResponseTime: 1000, request: { query: 'api.test', recordType: 'A', nameServer: '127.0.0.1', port: dns.port, protocol: 'UDP', assertions: [] } });
    const missing = h.seedCheck({ checkType: 'DNS', request: { query: 'nope.test', recordType: 'A', nameServer: '127.0.0.1', port: dns.port, assertions: [] } });
    for (let i = 0; i < 6; i++) await trigger([check.id]);
    await trigger([missing.id]);
    const results = (await h.call('GET', `/v1/check-results/${check.id}?limit=100`)).body as Array<{ responseTime: number; hasFailures: boolean }>;
    expect(results).toHaveLength(6);
    // A loaded machine can answer a run over its 1,000 ms limit, which fails it: availability is
    // what the stored results say.
    const availability = Math.round((results.filter((r) => !r.hasFailures).length / results.length) * 10_000) / 100;
    const sorted = results.map((r) => r.responseTime).sort((x, y) => x - y);
    const p95 = sorted[Math.ceil(0.95 * sorted.length) - 1];
    const from = Math.floor(Date.now() / 1000) - 3600;
    const analytics = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?metrics=responseTime_p95,availability,responseTime_max&from=${from}`);
    expect(analytics.status).toBe(200);
    const series = analytics.body.series.map((s: string) => JSON.parse(s));
    expect(series[0].data[0]).toMatchObject({ responseTime_p95: p95, availability, responseTime_max: sorted[sorted.length - 1] });
    const failing = await h.call('GET', `/v1/analytics/url-monitors/${missing.id}?metrics=availability&from=${from}`);
    expect(JSON.parse(failing.body.series[0]).data[0].availability).toBe(0);
  });
});

describe('alerts', () => {
  it('posts a failure and then a recovery to a webhook channel, and lists both in the outbox', async () => {
    h = runsHarness();
    receiver.requests.length = 0;
    const port = await closedPort();
    const check = h.seedCheck({ name: 'db', request: tcpRequest(port) });
    const channelId = h.seedChannel(check.id, {
      type: 'WEBHOOK',
      config: { name: 'hook', url: `${receiver.url}/alerts`, method: 'POST', headers: [{ key: 'x-token', value: 't1' }], queryParameters: [{ key: 'env', value: 'test' }], template: '' },
    });
    await trigger([check.id]);
    await trigger([check.id]); // still failing: no second alert
    h.seedCheck({ ...check, request: tcpRequest() });
    await trigger([check.id]);
    await h.server.deliverer.idle();
    expect(receiver.requests.map((r) => JSON.parse(r.body).alertType)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    const [failure] = receiver.requests;
    expect(failure).toMatchObject({ method: 'POST', url: '/alerts?env=test', headers: { 'x-token': 't1', 'content-type': 'application/json' } });
    expect(JSON.parse(failure.body)).toMatchObject({ checkId: check.id, checkName: 'db', checkType: 'TCP', runLocation: 'local', errorMessage: `connect ECONNREFUSED 127.0.0.1:${port}` });
    const outbox = await h.call('GET', '/v1/alert-notifications');
    const finals = (await h.call('GET', `/v1/check-results/${check.id}?limit=100`)).body.map((r: any) => r.id);
    expect(outbox.body.every((n: any) => finals.includes(n.checkResultId))).toBe(true);
    expect(outbox.body.map((n: any) => [n.alertType, n.status, n.alertChannelId, n.type, n.attempts])).toEqual([
      ['ALERT_RECOVERY', 'SUCCESS', channelId, 'WEBHOOK', 1],
      ['ALERT_FAILURE', 'SUCCESS', channelId, 'WEBHOOK', 1],
    ]);
    // One check alert: the recovery carries the failure's id; the channel's header value is masked.
    expect(new Set(outbox.body.map((n: any) => n.checkAlertId)).size).toBe(1);
    expect(outbox.body[0].alertConfig.headers).toEqual([{ key: 'x-token', value: '********' }]);
    expect(outbox.body.every((n: any) => typeof n.timestamp === 'string')).toBe(true);
  });

  it('keeps a webhook that answers an error IN_PROGRESS for a retry, and fails a mail for good without an SMTP server', async () => {
    h = runsHarness();
    receiver.status = 500;
    const port = await closedPort();
    const check = h.seedCheck({ request: tcpRequest(port) });
    h.seedChannel(check.id, { type: 'WEBHOOK', config: { name: 'hook', url: receiver.url, method: 'POST' } });
    h.seedChannel(check.id, { type: 'EMAIL', config: { address: 'ops@example.com' } });
    h.seedChannel(check.id, { type: 'SLACK', config: { url: 'https://hooks.slack.invalid/x' }, sendFailure: false });
    await trigger([check.id]);
    await h.server.deliverer.idle();
    receiver.status = 200;
    const outbox = (await h.call('GET', '/v1/alert-notifications')).body as any[];
    expect(outbox.map((n) => [n.type, n.alertType, n.status, n.attempts]).sort()).toEqual([
      ['EMAIL', 'ALERT_FAILURE', 'FAILURE', 1],
      ['WEBHOOK', 'ALERT_FAILURE', 'IN_PROGRESS', 1],
    ]);
    expect(outbox.find((n) => n.type === 'WEBHOOK').notificationResult).toMatch(/500/);
    expect(outbox.find((n) => n.type === 'EMAIL').notificationResult).toMatch(/--smtp/);
  });

  it('alerts no one for a muted check, and sends degraded alerts only to channels that ask for them', async () => {
    h = runsHarness();
    const port = await closedPort();
    const muted = h.seedCheck({ muted: true, request: tcpRequest(port) });
    h.seedChannel(muted.id, { type: 'EMAIL', config: { address: 'a@example.com' } });
    await trigger([muted.id]);
    expect((await h.call('GET', '/v1/alert-notifications')).body).toEqual([]);
    const slow = h.seedCheck({ degradedResponseTime: 0, request: tcpRequest() });
    h.seedChannel(slow.id, { type: 'EMAIL', config: { address: 'b@example.com' } });
    h.seedChannel(slow.id, { type: 'SMS', config: { number: '+15550001', name: 'x' }, sendDegraded: true });
    await trigger([slow.id]);
    const outbox = (await h.call('GET', '/v1/alert-notifications')).body as any[];
    expect(outbox.map((n) => [n.type, n.alertType])).toEqual([['SMS', 'ALERT_DEGRADED']]);
  });
});

describe('scheduler', () => {
  it('runs activated checks every period (time-scaled) and leaves deactivated ones alone', async () => {
    // frequency 1 at time scale 600 = every 100 ms.
    h = runsHarness({ timeScale: 600 });
    const active = h.seedCheck({ frequency: 1, request: tcpRequest() });
    const inactive = h.seedCheck({ frequency: 1, activated: false, request: tcpRequest() });
    h.runs.scheduler.start();
    await waitFor(async () => (await h.call('GET', `/v1/check-results/${active.id}?limit=100`)).body.length >= 3);
    await h.runs.scheduler.stop();
    expect((await h.call('GET', `/v1/check-results/${inactive.id}`)).body).toEqual([]);
  });
});

describe('scheduler under slow targets', () => {
  it('keeps running a healthy check on time while 40 other checks wait on a name server that never answers', async () => {
    // A UDP socket that takes every query and answers none: each of those sessions lasts the
    // runner's whole timeout (2 s in the harness), about 20 periods at this time scale.
    const silent = await startSilentNameServer();
    const { port } = silent;
    try {
      h = runsHarness({ timeScale: 600 });
      for (let i = 0; i < 40; i++) {
        h.seedCheck({ name: `silent ${i}`, checkType: 'DNS', frequency: 1, request: { query: 'api.test', recordType: 'A', nameServer: '127.0.0.1', port, protocol: 'UDP', assertions: [] } });
      }
      // Seeded last: the scheduler meets it after the 40 others in each scan.
      const healthy = h.seedCheck({ name: 'healthy', frequency: 1, request: tcpRequest() });
      h.runs.scheduler.start();
      // Every 100 ms: 5 results. While the silent ones held every slot, it never ran: each scan
      // gave the slots that came free to silent checks met before it (a generous wait, for a
      // loaded machine, that still fails then).
      await waitFor(async () => (await h.call('GET', `/v1/check-results/${healthy.id}?limit=100`)).body.length >= 5, 30_000);
      await h.runs.scheduler.stop();
    } finally {
      silent.close();
    }
  }, 60_000);
});

describe('scheduler under overload', () => {
  it('shares the slots among all checks when more runs are due than it may run at once', async () => {
    // 12 checks every 100 ms (frequency 1 at time scale 600), each session at least 60 ms (the
    // target waits before it answers), and 4 slots: about 120 runs a second asked of at most 67.
    // Starting the runs met first gave the 4 slots to the first 4 checks on every scan (each one
    // free again before its next due time) and the other 8 never ran.
    const slow = await startTcpServer({ banner: '+OK\r\n', delayMs: 60 });
    try {
      const events: string[] = [];
      // The clock of each scan: the first reading of the service's clock in a tick is the `now`
      // the scan plans with (the runs it claims are claimed synchronously within it).
      let inTick = false;
      let scanNow: number | undefined;
      const now = () => {
        const t = Date.now();
        if (inTick) scanNow ??= t;
        return t;
      };
      h = runsHarness({ timeScale: 600, now, log: { event: (name) => void events.push(name) } }, { maxSessions: 4 });
      const tick = h.runs.scheduler.tick.bind(h.runs.scheduler);
      h.runs.scheduler.tick = () => {
        inTick = true;
        scanNow = undefined;
        try {
          tick();
        } finally {
          inTick = false;
        }
      };
      const checks = Array.from({ length: 12 }, (_, i) => h.seedCheck({ name: `busy ${i}`, frequency: 1, request: tcpRequest(slow.port) }));
      // Every claim, and when it was made.
      const store = h.server.ctx.store;
      const claimRuns = store.claimRunsAsync.bind(store);
      const claims: Array<{ checkId: string; dueMs: number; at: number; scan: number | undefined }> = [];
      store.claimRunsAsync = (runs, start) => {
        for (const r of runs) claims.push({ checkId: r.checkId, dueMs: r.dueMs, at: Date.now(), scan: scanNow });
        return claimRuns(runs, start);
      };
      let most = 0;
      const sample = setInterval(() => (most = Math.max(most, h.runs.engine.activeSessions)), 5);
      h.runs.scheduler.start();
      const counts = async () => Promise.all(checks.map(async (c) => (await h.call('GET', `/v1/check-results/${c.id}?limit=100`)).body.length as number));
      try {
        await waitFor(async () => Math.min(...(await counts())) >= 3, 40_000);
      } finally {
        await h.runs.scheduler.stop();
        clearInterval(sample);
      }
      const final = await counts();
      // Shed evenly: no check ran more than twice as often as another (the runs due longest ago go first).
      expect(Math.max(...final)).toBeLessThanOrEqual(2 * Math.min(...final));
      expect(most).toBeLessThanOrEqual(4);
      // Runs wait about 3 sessions' time, longer than the period: each is claimed under the latest
      // point of its grid reached at its scan (another instance knows only those), never an
      // earlier one, never twice. Measured on the scan's own clock, not on when the claim was
      // seen: a loaded machine may stall between the two, which says nothing of the choice.
      expect(claims.length).toBeGreaterThan(0);
      for (const c of claims) {
        expect(c.scan, 'a claim made outside a scan').toBeDefined();
        expect(c.at).toBeGreaterThanOrEqual(c.dueMs);
        // Due at or before the scan (never ahead of it), and less than one period (100 ms) before it.
        expect(c.scan! - c.dueMs, `claim of ${c.checkId} due ${c.dueMs} at scan ${c.scan}`).toBeGreaterThanOrEqual(0);
        expect(c.scan! - c.dueMs, `claim of ${c.checkId} due ${c.dueMs} at scan ${c.scan}`).toBeLessThan(100);
      }
      expect(new Set(claims.map((c) => `${c.checkId}/${c.dueMs}`)).size).toBe(claims.length);
      // The operator is told that runs wait for a slot (once, not at every tick).
      expect(events.filter((e) => e === 'runs.shed').length).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e === 'runs.shed').length).toBeLessThan(claims.length);
    } finally {
      await slow.close();
    }
  });
});

describe('a stop with a grace', () => {
  it('returns the sessions still under way after the grace and drops what they do once the store is closed', async () => {
    const silent = await startSilentNameServer();
    const { port } = silent;
    try {
      // On SQLite at least: a store in memory takes writes after it is closed, so nothing would fail there.
      h = runsHarness({ stateFile: testStateFile() ?? join(mkdtempSync(join(tmpdir(), 'mac-grace-')), 'state.db') });
      const waiting = [0, 1].map((i) => h.seedCheck({ name: `silent ${i}`, checkType: 'DNS', request: { query: 'api.test', recordType: 'A', nameServer: '127.0.0.1', port, protocol: 'UDP', assertions: [] } }));
      const quick = h.seedCheck({ name: 'quick', request: tcpRequest() });
      const res = await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [...waiting.map((c) => c.id), quick.id] } });
      expect(res.status).toBe(201);
      // The quick session ends within the grace; the silent ones wait for the runner's 2 s timeout.
      expect(await h.runs.scheduler.stop(300)).toBe(2);
      expect((await h.call('GET', `/v1/check-results/${quick.id}`)).body).toHaveLength(1);
      await h.server.close();
      // The abandoned runs time out on a closed store (the runner's 2 s): nothing is reported once they ended.
      await h.runs.engine.idle();
      expect(h.errors).toEqual([]);
    } finally {
      silent.close();
      h = undefined as unknown as RunsHarness;
    }
  });

  it('returns 0 when every session ends within the grace, also without a bound', async () => {
    h = runsHarness();
    const quick = h.seedCheck({ name: 'quick', request: tcpRequest() });
    await h.call('POST', '/v1/check-sessions/trigger', { target: { checkId: [quick.id] } });
    // No bound but a signal that never aborts: it waits for the session (about 50 ms, the target's idle wait).
    expect(await h.runs.scheduler.stop(Number.POSITIVE_INFINITY, new AbortController().signal)).toBe(0);
    expect((await h.call('GET', `/v1/check-results/${quick.id}`)).body).toHaveLength(1);
  });
});

describe('heartbeats', () => {
  it('records pings (GET, POST, HEAD) without authorization and answers 404 for an unknown token', async () => {
    h = runsHarness();
    const check = h.seedCheck({ checkType: 'HEARTBEAT', heartbeat: { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes', pingToken: 'tok-1' } });
    for (const method of ['GET', 'POST', 'HEAD']) {
      const res = await h.server.request('http://127.0.0.1:4010/ping/tok-1', { method, headers: { 'user-agent': 'cron/1' } });
      expect(res.status).toBe(200);
    }
    expect((await h.server.request('http://127.0.0.1:4010/ping/nope')).status).toBe(404);
    const events = await h.call('GET', `/v1/checks/heartbeats/${check.id}/events`);
    // The first ping has nothing to be early for; the next two come right after it.
    expect(events.body[0].events.map((e: any) => e.state)).toEqual(['EARLY', 'EARLY', 'RECEIVED']);
    expect(events.body[0].events[0]).toMatchObject({ userAgent: 'cron/1' });
  });

  it('starts waiting afresh when the scheduler first sees a check, instead of failing it for the time it was not watched', async () => {
    h = runsHarness();
    const check = h.seedCheck({ checkType: 'HEARTBEAT', heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'minutes', pingToken: 'tok-3' } });
    const tx = h.server.ctx.store.begin('dev');
    tx.put('heartbeatStates', check.id, { anchorMs: Date.now() - 10 * 86_400_000, failedThroughMs: null });
    tx.commit();
    h.runs.scheduler.tick();
    h.runs.scheduler.tick();
    expect((await h.call('GET', `/v1/checks/heartbeats/${check.id}/events`)).body[0].events).toEqual([]);
  });

  it('records FAILING when the deadline passes without a ping, alerts, and recovers on the next ping', async () => {
    // period 60 s + grace 60 s at time scale 600 = 200 ms.
    h = runsHarness({ timeScale: 600 });
    const check = h.seedCheck({ checkType: 'HEARTBEAT', heartbeat: { period: 60, periodUnit: 'seconds', grace: 60, graceUnit: 'seconds', pingToken: 'tok-2' } });
    h.seedChannel(check.id, { type: 'EMAIL', config: { address: 'ops@example.com' } });
    h.runs.scheduler.start();
    await waitFor(async () => (await h.call('GET', `/v1/checks/heartbeats/${check.id}/events`)).body[0].events.length >= 1);
    await h.runs.scheduler.stop();
    expect((await h.server.request('http://127.0.0.1:4010/ping/tok-2')).status).toBe(200);
    const events = (await h.call('GET', `/v1/checks/heartbeats/${check.id}/events`)).body[0].events.map((e: any) => e.state);
    expect(events[0]).toBe('LATE');
    expect(events.slice(1).every((s: string) => s === 'FAILING')).toBe(true);
    const outbox = (await h.call('GET', '/v1/alert-notifications')).body.map((n: any) => n.alertType);
    expect(outbox).toEqual(['ALERT_RECOVERY', 'ALERT_FAILURE']);
  });
});

describe("a heartbeat's dashboard card and check page", () => {
  it('show its state from its pings and missed deadlines (it has no check results)', async () => {
    // period 60 s + grace 60 s at time scale 600 = 200 ms; pages are not cached (each read is the state now).
    h = runsHarness({ timeScale: 600, pageCacheSeconds: 0, pageRateLimit: { limit: 0, windowSeconds: 60 } });
    const check = h.seedCheck({ name: 'nightly backup', checkType: 'HEARTBEAT', heartbeat: { period: 60, periodUnit: 'seconds', grace: 60, graceUnit: 'seconds', pingToken: 'tok-card' } });
    expect((await h.call('POST', '/v1/dashboards', { customUrl: 'ops', header: 'Ops' })).status).toBe(201);
    const page = async (path: string) => {
      const res = await h.server.request(`http://127.0.0.1:4010/dashboards/ops${path}`);
      expect(res.status).toBe(200);
      return res.text();
    };
    const card = async () => (JSON.parse(await page('/data.json')) as { checks: any[] }).checks.find((c) => c.id === check.id);
    expect(await card()).toMatchObject({ state: 'no-data', lastRun: null, availability24h: null });

    expect((await h.server.request('http://127.0.0.1:4010/ping/tok-card')).status).toBe(200);
    const pinged = await card();
    expect(pinged).toMatchObject({ state: 'passing', stateLabel: 'Passing', availability24h: 100, lastRun: { location: null, responseTime: null } });
    expect(Date.parse(pinged.lastRun.at)).toBeGreaterThan(Date.now() - 60_000);
    const html = await page('');
    const item = new RegExp(`<li class="check" data-check="${check.id}"[\\s\\S]*?</li>\\n</ul>|<li class="check" data-check="${check.id}"[\\s\\S]*?</details>`).exec(html)?.[0] ?? '';
    expect(item).toContain('nightly backup');
    expect(item).toContain('s-passing');
    expect(item).not.toContain('No data');
    expect(await page(`/checks/${encodeURIComponent(check.id)}`)).toMatch(/<p class="state s-passing">[^]*?Passing<\/p>/);

    // The deadline passes without a ping: failing, on the card and the check page.
    h.runs.scheduler.start();
    await waitFor(async () => (await card()).state === 'failing');
    await h.runs.scheduler.stop();
    const failing = await card();
    expect(failing.availability24h).toBeLessThan(100);
    expect(await page(`/checks/${encodeURIComponent(check.id)}`)).toMatch(/<p class="state s-failing">[^]*?Failing<\/p>/);
  });
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
