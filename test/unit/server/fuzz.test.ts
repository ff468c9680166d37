import { describe, expect, it } from 'vitest';
import { apiBody, dnsBody, icmpBody, tcpBody, testServer, urlBody } from './client.js';
import { fuzzInput, prng } from './fuzzing.js';

const VALID: Record<string, unknown> = {
  tcp: tcpBody({ frequency: 0, frequencyOffset: 10, retryStrategy: { type: 'FIXED' }, alertSettings: { reminders: { amount: 1 } }, environmentVariables: undefined }),
  dns: dnsBody({ environmentVariables: [{ key: 'A', value: 'b', secret: true }], request: { query: 'a.example', recordType: 'MX', assertions: [{ source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: 'mx' }] } }),
  multistep: { name: 'm', script: 'x', dependencies: [{ path: 'a', content: 'b' }] },
  url: urlBody({ request: { url: 'https://example.com/', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }),
  api: apiBody({
    request: {
      method: 'POST', url: 'https://example.com/a', body: '{}', bodyType: 'JSON', headers: [{ key: 'X-A', value: 'b', locked: true }],
      queryParameters: [{ key: 'q', value: '1' }], basicAuth: { username: 'u', password: 'p' },
      assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', property: '$.a', target: '1' }],
    },
  }),
  icmp: icmpBody({ degradedPacketLossThreshold: 5, request: { hostname: 'h', ipFamily: 'IPv6', pingCount: 3, assertions: [{ source: 'LATENCY', comparison: 'LESS_THAN', property: 'avg', target: '9' }] } }),
  heartbeat: { name: 'h', heartbeat: { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' } },
  snippet: { name: 's', script: 'x' },
  variable: { key: 'K', value: 'v', secret: false },
  variablePut: { value: 'v2', locked: true },
  channel: { type: 'WEBHOOK', config: { name: 'n', url: 'https://example.com', headers: [{ key: 'a', value: 'b' }] }, subscriptions: [] },
  subscription: { activated: true },
  group: { name: 'g', tags: ['a'] },
  location: { name: 'l', slugName: 'loc-1' },
  locationPut: { name: 'l2' },
  dashboard: { header: 'h', isPrivate: true, tags: ['x'] },
};

describe('fuzzing every write endpoint', () => {
  it('never answers 5xx, always with a JSON error body on failure, for random and mutated bodies', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261121);
    const rand = prng(seed);
    const t = testServer();
    const check = (await t.call('POST', '/v1/checks/tcp', tcpBody())).body;
    const dns = (await t.call('POST', '/v1/checks/dns', dnsBody())).body;
    const ms = (await t.call('POST', '/v1/checks/multistep', VALID.multistep)).body;
    const hb = (await t.call('POST', '/v1/checks/heartbeat', VALID.heartbeat)).body;
    const url = (await t.call('POST', '/v1/checks/url', VALID.url)).body;
    const api = (await t.call('POST', '/v1/checks/api', VALID.api)).body;
    const icmp = (await t.call('POST', '/v1/checks/icmp', VALID.icmp)).body;
    await t.call('POST', '/v1/snippets', VALID.snippet);
    await t.call('POST', '/v1/variables', VALID.variable);
    await t.call('POST', '/v1/alert-channels', VALID.channel);
    await t.call('POST', '/v1/check-groups', VALID.group);
    const loc = (await t.call('POST', '/v1/private-locations', VALID.location)).body;
    const dash = (await t.call('POST', '/v1/dashboards', VALID.dashboard)).body;
    const endpoints: Array<[string, string, unknown]> = [
      ['POST', '/v1/checks/tcp', VALID.tcp],
      ['POST', '/v1/checks/dns', VALID.dns],
      ['POST', '/v1/checks/multistep', VALID.multistep],
      ['POST', '/v1/checks/heartbeat', VALID.heartbeat],
      ['PUT', `/v1/checks/tcp/${check.id}`, VALID.tcp],
      ['PUT', `/v1/checks/dns/${dns.id}`, VALID.dns],
      ['PUT', `/v1/checks/multistep/${ms.id}`, VALID.multistep],
      ['PUT', `/v1/checks/heartbeat/${hb.id}`, VALID.heartbeat],
      ['PUT', `/v1/checks/${dns.id}`, VALID.dns],
      ['PUT', `/v1/checks/api/${check.id}`, VALID.tcp],
      ['POST', '/v1/checks/url', VALID.url],
      ['POST', '/v1/checks/api', VALID.api],
      ['PUT', `/v1/checks/url/${url.id}`, VALID.url],
      ['PUT', `/v1/checks/api/${api.id}`, VALID.api],
      ['PUT', `/v1/checks/${api.id}`, VALID.api],
      ['POST', '/v1/checks/icmp', VALID.icmp],
      ['PUT', `/v1/checks/icmp/${icmp.id}`, VALID.icmp],
      ['PUT', `/v1/checks/${icmp.id}`, VALID.icmp],
      ['POST', '/v1/snippets', VALID.snippet],
      ['PUT', '/v1/snippets/1', VALID.snippet],
      ['POST', '/v1/variables', VALID.variable],
      ['PUT', '/v1/variables/K', VALID.variablePut],
      ['POST', '/v1/alert-channels', VALID.channel],
      ['PUT', '/v1/alert-channels/1', VALID.channel],
      ['PUT', '/v1/alert-channels/1/subscriptions', { ...(VALID.subscription as object), checkId: check.id }],
      ['POST', '/v1/check-groups', VALID.group],
      ['PUT', '/v1/check-groups/1', VALID.group],
      ['POST', '/v1/private-locations', VALID.location],
      ['PUT', `/v1/private-locations/${loc.id}`, VALID.locationPut],
      ['POST', '/v1/dashboards', VALID.dashboard],
      ['PUT', `/v1/dashboards/${dash.dashboardId}`, VALID.dashboard],
      ['POST', `/v1/private-locations/${loc.id}/keys`, {}],
      ['POST', '/v1/triggers/check-groups/1', {}],
    ];
    const seen = new Set<number>();
    for (let round = 0; round < 60; round++) {
      for (const [method, path, valid] of endpoints) {
        const { body, raw } = fuzzInput(valid, rand);
        const init = raw === undefined ? undefined : { raw };
        const a = await t.call(method, path, body, init);
        seen.add(a.status);
        expect(a.status, `seed ${seed} ${method} ${path} ${JSON.stringify(body) ?? init?.raw}`).toBeLessThan(500);
        if (a.status >= 400) expect(a.body).toMatchObject({ statusCode: a.status, error: expect.any(String), message: expect.any(String) });
      }
    }
    // The inputs reached both success and the validation paths.
    expect(seen).toContain(400);
    expect([...seen].some((s) => s < 300)).toBe(true);
    // Everything stored still reads back.
    expect((await t.call('GET', '/v1/checks?limit=100')).status).toBe(200);
  });
});
