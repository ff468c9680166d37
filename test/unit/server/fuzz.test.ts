import { describe, expect, it } from 'vitest';
import { dnsBody, tcpBody, testServer } from './client.js';

// A small seeded PRNG so that a failure is reproducible from the printed seed.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -0, 65536, '', 'x', ' ', '\u0000', 'é', '__proto__', 'constructor', '9'.repeat(400), [], {}];

function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 3 || r < 0.5) return ATOMS[Math.floor(rand() * ATOMS.length)];
  if (r < 0.75) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  const keys = ['name', 'request', 'port', 'hostname', 'type', 'config', 'value', 'key', 'id', 'frequency', 'checkId', 'groupId', 'activated', 'subscriptions', '__proto__', 'constructor'];
  for (let i = Math.floor(rand() * 5); i > 0; i--) o[keys[Math.floor(rand() * keys.length)]] = randomValue(rand, depth + 1);
  return o;
}

/** Replaces, deletes or retypes one field somewhere in a valid body. */
function mutate(value: unknown, rand: () => number): unknown {
  if (value === null || typeof value !== 'object') return randomValue(rand);
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0) return randomValue(rand);
  const k = keys[Math.floor(rand() * keys.length)];
  const r = rand();
  if (r < 0.3) delete copy[k];
  else if (r < 0.6) copy[k] = randomValue(rand);
  else copy[k] = mutate(copy[k], rand);
  return copy;
}

const VALID: Record<string, unknown> = {
  tcp: tcpBody({ frequency: 0, frequencyOffset: 10, retryStrategy: { type: 'FIXED' }, alertSettings: { reminders: { amount: 1 } }, environmentVariables: undefined }),
  dns: dnsBody({ environmentVariables: [{ key: 'A', value: 'b', secret: true }], request: { query: 'a.example', recordType: 'MX', assertions: [{ source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: 'mx' }] } }),
  multistep: { name: 'm', script: 'x', dependencies: [{ path: 'a', content: 'b' }] },
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
        const r = rand();
        const init = r < 0.1 ? { raw: JSON.stringify(valid).slice(0, Math.floor(rand() * 40)) } : undefined;
        const body = init ? undefined : r < 0.4 ? randomValue(rand) : mutate(valid, rand);
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
