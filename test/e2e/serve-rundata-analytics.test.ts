import { afterEach, describe, expect, it } from 'vitest';
import { harness, snapshot, tcpAttempt, type Harness } from './rundata-harness.js';

const MIN = 60_000;
let h: Harness;
afterEach(async () => h?.server.close());

function runAt(check: Record<string, any>, location: string, startedAt: number, over: Parameters<typeof tcpAttempt>[2] = {}) {
  const s = h.recorder.openSession('dev', { check: snapshot(check), runLocations: [location] });
  h.recorder.finishLocation('dev', s.checkSessionId, tcpAttempt(location, startedAt, over));
}

describe('analytics (endpoint 13)', () => {
  it('answers nulls for a check without results', async () => {
    h = harness();
    const check = h.seedCheck('dev', { checkType: 'DNS', tags: ['dns'] });
    const res = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?metrics=responseTime_p95,availability`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      checkId: check.id,
      name: check.name,
      checkType: 'DNS',
      activated: true,
      muted: false,
      frequency: 10,
      from: '2025-03-11T12:00:00.000Z',
      to: '2025-03-12T12:00:00.000Z',
      tags: ['dns'],
      series: [JSON.stringify({ data: [{ timestamp: '2025-03-11T12:00:00.000Z', responseTime_p95: null, availability: null }] })],
      pagination: { page: 1, limit: 10 },
      metadata: {
        responseTime_p95: { unit: 'milliseconds', label: 'Response time (p95)', aggregation: 'p95' },
        availability: { unit: 'percentage', label: 'Availability (avg)', aggregation: 'avg' },
      },
    });
  });

  it('aggregates stored results into buckets and groups', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const from = h.clock.now - 60 * MIN;
    const times = [120, 85, 300, 95, 110, 101, 90, 250, 130, 99, 105, 180, 97, 115, 88, 140, 92, 125, 160, 1000];
    times.forEach((rt, i) => runAt(check, i % 2 ? 'us-east-1' : 'eu-west-1', from + i * MIN, { responseTime: rt }));
    runAt(check, 'eu-west-1', from + 45 * MIN, { responseTime: 50, hasFailures: true });
    const q = `from=${from / 1000}&to=${h.clock.now / 1000}`;

    const one = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?${q}&metrics=responseTime_p95&metrics=availability,responseTime_max&filterByStatus=success`);
    expect(one.status).toBe(200);
    expect(JSON.parse(one.body.series[0]).data).toEqual([{ timestamp: new Date(from).toISOString(), responseTime_p95: 300, availability: 100, responseTime_max: 1000 }]);

    const buckets = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?${q}&metrics=availability,responseTime&aggregationInterval=15`);
    expect(JSON.parse(buckets.body.series[0]).data.map((d: any) => [d.availability, d.responseTime])).toEqual([
      [100, 131], // minutes 0-14: 1965 / 15
      [100, 303.4], // minutes 15-19: 1517 / 5
      [null, null],
      [0, 50],
    ]);
    const page2 = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?${q}&metrics=retries&aggregationInterval=15&limit=3&page=2`);
    expect(JSON.parse(page2.body.series[0]).data).toEqual([{ timestamp: new Date(from + 45 * MIN).toISOString(), retries: 0 }]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 3 });

    const grouped = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?${q}&metrics=responseTime_min&groupBy=runLocation`);
    expect(grouped.body.series.map((s: string) => JSON.parse(s))).toEqual([
      { data: [{ timestamp: new Date(from).toISOString(), responseTime_min: 50 }], runLocation: 'eu-west-1' },
      { data: [{ timestamp: new Date(from).toISOString(), responseTime_min: 85 }], runLocation: 'us-east-1' },
    ]);
    // Fractions of a second are whole milliseconds (stored times are): the same answer on every store.
    const frac = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?from=${from / 1000 + 0.0004}&to=${h.clock.now / 1000}.25&metrics=responseTime_min`);
    expect(frac.status).toBe(200);
    expect(JSON.parse(frac.body.series[0]).data[0].responseTime_min).toBe(50);
    // Beyond the last time a date holds: a 400 naming the parameter, not a failure.
    const far = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?from=${from / 1000}&to=99999999999999999999&metrics=responseTime_min`);
    expect(far.status).toBe(400);
    expect(JSON.stringify(far.body)).toContain('to');
    const ms = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?from=${from}&to=${h.clock.now}&metrics=responseTime_max&filterByStatus=failure`);
    expect(JSON.parse(ms.body.series[0]).data[0].responseTime_max).toBe(50);
  });

  it('validates its query before looking the check up', async () => {
    h = harness();
    const check = h.seedCheck('dev');
    const bad = async (q: string, id = check.id) => {
      const res = await h.call('GET', `/v1/analytics/url-monitors/${id}?${q}`);
      return [q, res.status, res.body?.attributes?.keys];
    };
    expect(await bad('')).toEqual(['', 400, ['metrics']]);
    expect(await bad('metrics=responseTime_p42')).toEqual(['metrics=responseTime_p42', 400, ['metrics']]);
    expect(await bad('metrics=availability_p95')).toEqual(['metrics=availability_p95', 400, ['metrics']]);
    expect(await bad('metrics=dns&quickRange=yesterday')).toEqual(['metrics=dns&quickRange=yesterday', 400, ['quickRange']]);
    expect(await bad('metrics=dns&aggregationInterval=0')).toEqual(['metrics=dns&aggregationInterval=0', 400, ['aggregationInterval']]);
    expect(await bad('metrics=dns&aggregationInterval=43201')).toEqual(['metrics=dns&aggregationInterval=43201', 400, ['aggregationInterval']]);
    expect(await bad('metrics=dns&groupBy=region')).toEqual(['metrics=dns&groupBy=region', 400, ['groupBy']]);
    expect(await bad('metrics=dns&filterByStatus=ok')).toEqual(['metrics=dns&filterByStatus=ok', 400, ['filterByStatus.0']]);
    expect(await bad('metrics=dns&limit=101')).toEqual(['metrics=dns&limit=101', 400, ['limit']]);
    expect(await bad('metrics=dns&from=1700000000&to=1700000000')).toEqual(['metrics=dns&from=1700000000&to=1700000000', 400, ['from']]);
    expect(await bad('metrics=nope', 'missing')).toEqual(['metrics=nope', 400, ['metrics']]);
    expect((await h.call('GET', '/v1/analytics/url-monitors/missing?metrics=dns')).status).toBe(404);
    expect((await h.call('GET', `/v1/analytics/url-monitors/${check.id}?metrics=dns`, undefined, 'other-key')).status).toBe(404);
    const week = await h.call('GET', `/v1/analytics/url-monitors/${check.id}?metrics=dns&quickRange=lastWeek`);
    expect([week.body.from, week.body.to]).toEqual(['2025-03-03T00:00:00.000Z', '2025-03-10T00:00:00.000Z']);
  });
});

describe('heartbeat events (endpoint 12)', () => {
  it('answers empty events and zero stats for any check of the account', async () => {
    h = harness();
    const tcp = h.seedCheck('dev');
    const res = await h.call('GET', `/v1/checks/heartbeats/${tcp.id}/events`);
    const zero = { successRatio: { previousPeriod: 0, currentPeriod: 0 }, totalEntitiesCurrentPeriod: 0 };
    expect([res.status, res.body]).toEqual([200, [{ events: [], stats: { last24Hours: zero, last7Days: zero } }]]);
    expect((await h.call('GET', `/v1/checks/heartbeats/${tcp.id}/events`, undefined, 'other-key')).status).toBe(404);
    expect((await h.call('GET', '/v1/checks/heartbeats/missing/events')).status).toBe(404);
  });

  it('lists events newest first within limit and dates, with stats over all of them', async () => {
    h = harness();
    const hb = h.seedCheck('dev', { checkType: 'HEARTBEAT' });
    const states = ['RECEIVED', 'EARLY', 'GRACE', 'LATE', 'FAILING', 'RECEIVED', 'RECEIVED', 'RECEIVED', 'RECEIVED', 'RECEIVED', 'RECEIVED', 'RECEIVED'] as const;
    const events = states.map((state, i) =>
      h.recorder.recordHeartbeatEvent('dev', { checkId: hb.id, state, timestamp: new Date(h.clock.now - (i + 1) * 60 * MIN).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' }),
    );
    const all = await h.call('GET', `/v1/checks/heartbeats/${hb.id}/events`);
    expect(all.body[0].events).toHaveLength(10);
    expect(all.body[0].events[0]).toEqual({ id: events[0].id, state: 'RECEIVED', timestamp: events[0].timestamp, source: '127.0.0.1', userAgent: 'curl/8' });
    expect(all.body[0].stats.last24Hours).toEqual({ successRatio: { currentPeriod: 83.33, previousPeriod: 0 }, totalEntitiesCurrentPeriod: 12 });
    const narrowed = await h.call('GET', `/v1/checks/heartbeats/${hb.id}/events?limit=2&startTime=${events[5].timestamp}&endTime=${events[2].timestamp}`);
    expect(narrowed.body[0].events.map((e: any) => e.state)).toEqual(['GRACE', 'LATE']);
    for (const q of ['limit=0', 'limit=11', 'startTime=yesterday', `startTime=${events[0].timestamp}&endTime=${events[3].timestamp}`]) {
      expect([q, (await h.call('GET', `/v1/checks/heartbeats/${hb.id}/events?${q}`)).status]).toEqual([q, 400]);
    }
  });
});
