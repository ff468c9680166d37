import { describe, expect, it } from 'vitest';
import { icmpBody, testServer } from './client.js';

// ICMP monitors stored like the reference's POST/PUT /v1/checks/icmp: defaults, ranges, the
// LATENCY property rule, a request replaced whole on update, and the type's own PUT only.

describe('POST /v1/checks/icmp', () => {
  it('creates with the reference defaults', async () => {
    const t = testServer();
    const r = await t.call('POST', '/v1/checks/icmp', icmpBody());
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      checkType: 'ICMP',
      name: 'gateway',
      frequency: 10,
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      degradedPacketLossThreshold: 10,
      maxPacketLossThreshold: 20,
      request: { hostname: '10.0.0.1', ipFamily: 'IPv4', pingCount: 10, assertions: [] },
    });
    expect((await t.call('GET', `/v1/checks/${r.body.id}`)).body).toEqual(r.body);
    expect((await t.call('GET', '/v1/checks?checkType=ICMP')).body.map((c: { id: string }) => c.id)).toEqual([r.body.id]);
  });

  it('fills assertion fields and treats a null ipFamily or pingCount as the default', async () => {
    const t = testServer();
    const r = await t.call('POST', '/v1/checks/icmp', icmpBody({ request: { hostname: 'h', ipFamily: null, pingCount: null, assertions: [{ source: 'LATENCY', comparison: 'LESS_THAN', property: 'stdDev', target: '5' }] } }));
    expect(r.status).toBe(201);
    expect(r.body.request).toEqual({ hostname: 'h', ipFamily: 'IPv4', pingCount: 10, assertions: [{ source: 'LATENCY', comparison: 'LESS_THAN', property: 'stdDev', target: '5', regex: '' }] });
  });

  it.each([
    [{ request: { hostname: 'h', pingCount: 51 } }, 'request.pingCount'],
    [{ request: { hostname: 'h', pingCount: 0 } }, 'request.pingCount'],
    [{ request: { hostname: '' } }, 'request.hostname'],
    [{ request: { hostname: 'h', ipFamily: 'IPv5' } }, 'request.ipFamily'],
    [{ request: { hostname: 'h', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }, 'request.assertions.0.source'],
    [{ request: { hostname: 'h', assertions: [{ source: 'LATENCY', comparison: 'LESS_THAN', target: '5' }] } }, 'request.assertions.0.property'],
    [{ request: { hostname: 'h', assertions: [{ source: 'LATENCY', comparison: 'LESS_THAN', property: 'p99', target: '5' }] } }, 'request.assertions.0.property'],
    [{ maxPacketLossThreshold: 0 }, 'maxPacketLossThreshold'],
    [{ degradedPacketLossThreshold: 101 }, 'degradedPacketLossThreshold'],
    [{ maxResponseTime: 300001 }, 'maxResponseTime'],
    [{ frequency: 0 }, 'frequency'],
  ])('rejects %j naming %s', async (extra, path) => {
    const t = testServer();
    const r = await t.call('POST', '/v1/checks/icmp', icmpBody(extra));
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain(path);
  });

  it('requires name and request', async () => {
    const t = testServer();
    expect((await t.call('POST', '/v1/checks/icmp', { name: 'x' })).status).toBe(400);
    expect((await t.call('POST', '/v1/checks/icmp', { request: { hostname: 'h' } })).status).toBe(400);
  });
});

describe('PUT /v1/checks/icmp/{id}', () => {
  it('merges fields, replaces the request whole with its defaults, and keeps the type', async () => {
    const t = testServer();
    const created = (await t.call('POST', '/v1/checks/icmp', icmpBody({ request: { hostname: 'a', pingCount: 5, ipFamily: 'IPv6' } }))).body;
    const r = await t.call('PUT', `/v1/checks/icmp/${created.id}`, { maxPacketLossThreshold: null, request: { hostname: 'b' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'gateway', maxPacketLossThreshold: null, degradedPacketLossThreshold: 10, request: { hostname: 'b', ipFamily: 'IPv4', pingCount: 10 } });
    const tcp = (await t.call('POST', '/v1/checks/tcp', { name: 'db', request: { hostname: 'db', port: 5432 } })).body;
    expect((await t.call('PUT', `/v1/checks/icmp/${tcp.id}`, { name: 'x' })).status).toBe(400);
    expect((await t.call('PUT', `/v1/checks/tcp/${created.id}`, { name: 'x' })).status).toBe(400);
    // The deprecated PUT takes an ICMP body for an ICMP monitor.
    expect((await t.call('PUT', `/v1/checks/${created.id}`, { checkType: 'ICMP', request: { hostname: 'c', pingCount: 3 } })).body.request).toMatchObject({ hostname: 'c', pingCount: 3 });
  });
});
