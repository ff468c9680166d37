import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, refusedAttempt, snapshot, tcpAttempt, type Harness } from './rundata-harness.js';

const MIN = 60_000;
let h: Harness;
afterEach(async () => h?.server.close());

describe('empty run data over HTTP', () => {
  it('answers empty lists, 404s and nothing invented', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const list = await h.call('GET', `/v1/check-results/${check.id}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers.get('content-range')).toBe('*/0');
    expect((await h.call('GET', `/v1/error-groups/checks/${check.id}`)).body).toEqual([]);
    expect((await h.call('GET', '/v1/alert-notifications')).body).toEqual([]);
    for (const path of [
      `/v1/check-results/${check.id}/00000000-0000-4000-8000-000000000000`,
      '/v1/check-results/no-such-check',
      '/v1/check-sessions/00000000-0000-4000-8000-000000000000',
      '/v1/error-groups/00000000-0000-4000-8000-000000000000',
      '/v1/error-groups/checks/no-such-check',
    ]) {
      const res = await h.call('GET', path);
      expect([path, res.status, res.body]).toEqual([path, 404, { statusCode: 404, error: 'Not Found', message: 'Not Found' }]);
    }
  });
});

describe('sessions and results', () => {
  it('follows a two-location session from STARTED to FAILED and serves its results', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const t0 = h.clock.now;
    const session = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['eu-west-1', 'us-east-1'] });
    const read = async () => (await h.call('GET', `/v1/check-sessions/${session.checkSessionId}`)).body;

    expect(await read()).toMatchObject({ status: 'STARTED', stoppedAt: null, results: [], runLocations: ['eu-west-1', 'us-east-1'], checkType: 'TCP', name: check.name });
    h.recorder.markExecuting('dev', session.checkSessionId);
    expect((await read()).status).toBe('PROGRESS');

    h.clock.now = t0 + 1000;
    const first = h.recorder.recordAttempt('dev', session.checkSessionId, refusedAttempt('eu-west-1', t0 + 100));
    h.clock.now = t0 + 3000;
    const { result: final } = h.recorder.finishLocation('dev', session.checkSessionId, refusedAttempt('eu-west-1', t0 + 2000));
    expect(first).toMatchObject({ resultType: 'ATTEMPT', attempts: 0, checkRunId: session.checkRunId });
    expect(final).toMatchObject({ resultType: 'FINAL', attempts: 1, sequenceId: first.sequenceId, checkRunId: session.checkRunId });
    expect((await read()).status).toBe('PROGRESS_FAILED');

    h.clock.now = t0 + 4000;
    h.recorder.finishLocation('dev', session.checkSessionId, tcpAttempt('us-east-1', t0 + 3500));
    const done = await read();
    expect(done).toMatchObject({ status: 'FAILED', stoppedAt: new Date(t0 + 4000).toISOString(), timeElapsed: 4000 });
    expect(done.checkSessionLink).toBe(`http://127.0.0.1:4010/v1/check-sessions/${session.checkSessionId}`);
    expect(done.results.map((r: any) => [r.runLocation, r.resultType, r.hasFailures])).toEqual([
      ['eu-west-1', 'ATTEMPT', true],
      ['eu-west-1', 'FINAL', true],
      ['us-east-1', 'FINAL', false],
    ]);
    const one = await h.call('GET', new URL(done.results[1].checkResultLink).pathname);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: final.id, checkId: check.id, resultType: 'FINAL', browserCheckResult: null, multiStepCheckResult: null });
    expect(one.body.apiCheckResult.requestError).toBe('connect ECONNREFUSED 10.0.0.7:5432');

    // Newest first; FINAL by default; ATTEMPT and ALL on request; filters.
    const finals = await h.call('GET', `/v1/check-results/${check.id}`);
    expect(finals.body.map((r: any) => r.runLocation)).toEqual(['us-east-1', 'eu-west-1']);
    expect(finals.headers.get('content-range')).toBe('0-1/2');
    expect((await h.call('GET', `/v1/check-results/${check.id}?resultType=ATTEMPT`)).body.map((r: any) => r.id)).toEqual([first.id]);
    expect((await h.call('GET', `/v1/check-results/${check.id}?resultType=ALL`)).body).toHaveLength(3);
    expect((await h.call('GET', `/v1/check-results/${check.id}?hasFailures=true`)).body.map((r: any) => r.id)).toEqual([final.id]);
    expect((await h.call('GET', `/v1/check-results/${check.id}?location=us-east-1`)).body).toHaveLength(1);
    const paged = await h.call('GET', `/v1/check-results/${check.id}?resultType=ALL&limit=2&page=2`);
    expect([paged.body.length, paged.headers.get('content-range')]).toEqual([1, '2-2/3']);
  });

  it('times a session out 5 minutes after its start, for good', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const t0 = h.clock.now;
    const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
    h.recorder.markExecuting('dev', s.checkSessionId);
    h.clock.now = t0 + 5 * MIN;
    const late = (await h.call('GET', `/v1/check-sessions/${s.checkSessionId}`)).body;
    expect(late).toMatchObject({ status: 'TIMED_OUT', stoppedAt: new Date(t0 + 5 * MIN).toISOString(), timeElapsed: 5 * MIN });
    h.recorder.finishLocation('dev', s.checkSessionId, tcpAttempt('local', t0));
    expect((await h.call('GET', `/v1/check-sessions/${s.checkSessionId}`)).body.status).toBe('TIMED_OUT');
  });

  it('does not read x-service-account on endpoint 11 but scopes by the key', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
    const res = await h.server.request(`/v1/check-sessions/${s.checkSessionId}`, { headers: { authorization: 'Bearer mac-dev-key', 'x-service-account': 'someone-else' } });
    expect(res.status).toBe(200);
    expect((await h.call('GET', `/v1/check-sessions/${s.checkSessionId}`, undefined, 'other-key')).status).toBe(404);
  });

  it('validates the results window and refuses a result under another check', async () => {
    h = harness();
    const a = h.seedCheck('dev');
    const b = h.seedCheck('dev');
    const s = h.recorder.openSession('dev', { check: snapshot(a), runLocations: ['local'] });
    const { result } = h.recorder.finishLocation('dev', s.checkSessionId, tcpAttempt('local', h.clock.now - MIN));
    expect((await h.call('GET', `/v1/check-results/${b.id}/${result.id}`)).status).toBe(404);
    expect((await h.call('GET', `/v1/check-results/${a.id}/${result.id}`, undefined, 'other-key')).status).toBe(404);
    expect((await h.call('GET', `/v1/check-results/${a.id}`, undefined, 'other-key')).status).toBe(404);

    const nowS = h.clock.now / 1000;
    const tooWide = await h.call('GET', `/v1/check-results/${a.id}?from=${nowS - 7 * 3600}&to=${nowS}`);
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.attributes).toMatchObject({ source: 'query', keys: ['to'] });
    const reversed = await h.call('GET', `/v1/check-results/${a.id}?from=${nowS}&to=${nowS - 60}`);
    expect([reversed.status, reversed.body.attributes.keys]).toEqual([400, ['from']]);
    for (const q of ['limit=0', 'limit=101', 'page=0', 'resultType=SOME', 'hasFailures=yes', 'from=yesterday']) {
      expect([q, (await h.call('GET', `/v1/check-results/${a.id}?${q}`)).status]).toEqual([q, 400]);
    }
    // Validation precedes lookup: a bad query on a missing check is 400.
    expect((await h.call('GET', '/v1/check-results/nope?limit=0')).status).toBe(400);
    // Outside the default 6 h window: not listed.
    expect((await h.call('GET', `/v1/check-results/${a.id}?from=${nowS - 6 * 3600 - 600}&to=${nowS - 6 * 3600}`)).body).toEqual([]);
    expect((await h.call('GET', `/v1/check-results/${a.id}?from=${nowS - 120}`)).body).toHaveLength(1);
  });
});

describe('error groups', () => {
  it('groups failures by cleaned message, lists newest lastSeen first and archives by the rules', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const run = (attempt: ReturnType<typeof tcpAttempt>) => {
      const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
      return h.recorder.finishLocation('dev', s.checkSessionId, attempt);
    };
    const t0 = h.clock.now;
    const g1 = run(refusedAttempt('local', t0 - 10 * MIN, '10.0.0.7:5432')).errorGroup!;
    run(refusedAttempt('local', t0 - 8 * MIN, '10.0.0.9:5433'));
    const timeout = tcpAttempt('local', t0 - 9 * MIN, { hasFailures: true, responseTime: 5200 });
    const g2 = run(timeout).errorGroup!;
    expect(run(tcpAttempt('local', t0 - MIN)).errorGroup).toBeUndefined();

    const list = await h.call('GET', `/v1/error-groups/checks/${check.id}`);
    expect(list.body).toHaveLength(2);
    expect(list.body[0]).toEqual({
      id: g1.id,
      checkId: check.id,
      errorHash: g1.errorHash,
      rawErrorMessage: 'connect ECONNREFUSED 10.0.0.7:5432',
      cleanedErrorMessage: 'connect ECONNREFUSED <ip>',
      firstSeen: new Date(t0 - 10 * MIN).toISOString(),
      lastSeen: new Date(t0 - 8 * MIN).toISOString(),
      archivedUntilNextEvent: false,
    });
    expect(list.body[1]).toMatchObject({ id: g2.id, rawErrorMessage: 'Response time 5200ms exceeded 5000ms', cleanedErrorMessage: 'Response time <num>ms exceeded <num>ms' });
    expect(g1.errorHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await h.call('GET', `/v1/error-groups/checks/${check.id}?limit=1&page=2`)).body.map((g: any) => g.id)).toEqual([g2.id]);

    const patch = (body: unknown, key?: string) => h.call('PATCH', `/v1/error-groups/${g1.id}`, body, key);
    expect((await patch({ archivedUntilNextEvent: true })).body.archivedUntilNextEvent).toBe(true);
    expect((await patch({})).body.archivedUntilNextEvent).toBe(true);
    // A new occurrence unarchives a group archived until the next event.
    run(refusedAttempt('local', t0 - 5 * MIN));
    expect((await h.call('GET', `/v1/error-groups/${g1.id}`)).body).toMatchObject({ archivedUntilNextEvent: false, lastSeen: new Date(t0 - 5 * MIN).toISOString() });
    // Archived for ever: occurrences no longer unarchive, until archivedUntilNextEvent false clears it.
    expect((await patch({ archiveForEver: true })).body.archivedUntilNextEvent).toBe(true);
    run(refusedAttempt('local', t0 - 4 * MIN));
    expect((await h.call('GET', `/v1/error-groups/${g1.id}`)).body.archivedUntilNextEvent).toBe(true);
    expect((await h.call('GET', `/v1/error-groups/checks/${check.id}`)).body).toHaveLength(2);

    const bad = await patch({ archiveForEver: true, archivedUntilNextEvent: false });
    expect([bad.status, bad.body.attributes.source]).toEqual([400, 'payload']);
    expect((await patch({ archiveForEver: 'yes' })).status).toBe(400);
    expect((await patch({ archivedUntilNextEvent: false })).body.archivedUntilNextEvent).toBe(false);
    expect((await patch({ archiveForEver: true }, 'ro-key')).status).toBe(403);
    expect((await patch({ archiveForEver: true }, 'other-key')).status).toBe(404);
    expect((await h.call('PATCH', '/v1/error-groups/nope', { archiveForEver: true, archivedUntilNextEvent: false })).status).toBe(400);
    expect((await h.call('PATCH', '/v1/error-groups/nope', {})).status).toBe(404);
  });
});

describe('check delete cascade', () => {
  it('removes the run data of a deleted check', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
    const { result, errorGroup } = h.recorder.finishLocation('dev', s.checkSessionId, refusedAttempt('local', h.clock.now - MIN));
    h.recorder.recordHeartbeatEvent('dev', { checkId: check.id, state: 'RECEIVED', timestamp: new Date(h.clock.now).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' });
    expect((await h.call('DELETE', `/v1/checks/${check.id}`)).status).toBe(204);
    for (const path of [`/v1/check-results/${check.id}/${result.id}`, `/v1/check-sessions/${s.checkSessionId}`, `/v1/error-groups/${errorGroup!.id}`]) {
      expect([path, (await h.call('GET', path)).status]).toEqual([path, 404]);
    }
    for (const kind of ['checkResults', 'checkSessions', 'errorGroups', 'heartbeatEvents']) {
      expect([kind, h.server.ctx.store.count('dev', kind)]).toEqual([kind, 0]);
    }
  });
});

describe('alert notifications', () => {
  it('lists the outbox newest first, per account', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const base = { alertChannelId: 1, type: 'EMAIL', alertConfig: { address: 'ops@example.com' }, checkType: 'TCP', checkId: check.id, checkAlertId: 'alert-1', status: 'SUCCESS' as const, notificationResult: '250 OK', timestamp: null, attempts: 1 };
    const a = h.recorder.recordNotification('dev', { ...base, alertType: 'ALERT_FAILURE' });
    h.clock.now += 1000;
    const b = h.recorder.recordNotification('dev', { ...base, alertType: 'ALERT_RECOVERY', status: 'FAILURE', notificationResult: 'connect ETIMEDOUT' });
    const res = await h.call('GET', '/v1/alert-notifications');
    expect(res.body.map((n: any) => n.id)).toEqual([b.id, a.id]);
    expect(res.body[0]).toEqual({ ...base, id: b.id, alertType: 'ALERT_RECOVERY', status: 'FAILURE', notificationResult: 'connect ETIMEDOUT', created_at: new Date(h.clock.now).toISOString() });
    expect(res.headers.get('content-range')).toBe('0-1/2');
    expect((await h.call('GET', '/v1/alert-notifications', undefined, 'other-key')).body).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps sessions, results, error groups, events and notifications across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mac-rundata-'));
    try {
      const file = join(dir, 'state.jsonl');
      h = harness(file);
      const check = h.seedCheck('dev', { checkType: 'HEARTBEAT' });
      const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
      const { result, errorGroup } = h.recorder.finishLocation('dev', s.checkSessionId, refusedAttempt('local', h.clock.now - MIN));
      await h.call('PATCH', `/v1/error-groups/${errorGroup!.id}`, { archiveForEver: true });
      h.recorder.recordHeartbeatEvent('dev', { checkId: check.id, state: 'RECEIVED', timestamp: new Date(h.clock.now).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' });
      h.recorder.recordNotification('dev', {
        alertChannelId: 1,
        type: 'EMAIL',
        alertConfig: {},
        alertType: 'ALERT_FAILURE',
        checkType: 'HEARTBEAT',
        checkId: check.id,
        checkAlertId: 'alert-1',
        checkResultId: result.id,
        status: 'SUCCESS',
        notificationResult: '250 OK',
        timestamp: new Date(h.clock.now).toISOString(),
        attempts: 1,
      });
      const before = await Promise.all([
        h.call('GET', `/v1/check-sessions/${s.checkSessionId}`),
        h.call('GET', `/v1/check-results/${check.id}/${result.id}`),
        h.call('GET', `/v1/error-groups/${errorGroup!.id}`),
        h.call('GET', `/v1/checks/heartbeats/${check.id}/events`),
        h.call('GET', '/v1/alert-notifications'),
      ]);
      await h.server.close();

      h = harness(file);
      const after = await Promise.all([
        h.call('GET', `/v1/check-sessions/${s.checkSessionId}`),
        h.call('GET', `/v1/check-results/${check.id}/${result.id}`),
        h.call('GET', `/v1/error-groups/${errorGroup!.id}`),
        h.call('GET', `/v1/checks/heartbeats/${check.id}/events`),
        h.call('GET', '/v1/alert-notifications'),
      ]);
      expect(after.map((r) => [r.status, r.body])).toEqual(before.map((r) => [r.status, r.body]));
      // The forever flag survived too: a new occurrence keeps the group archived.
      const s2 = h.recorder.openSession('dev', { check: snapshot(check), runLocations: ['local'] });
      h.recorder.finishLocation('dev', s2.checkSessionId, refusedAttempt('local', h.clock.now));
      expect((await h.call('GET', `/v1/error-groups/${errorGroup!.id}`)).body.archivedUntilNextEvent).toBe(true);
      // checkRunId counters continue after a restart.
      expect(s2.checkRunId).toBeGreaterThan(s.checkRunId);
    } finally {
      await h.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
