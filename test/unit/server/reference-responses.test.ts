import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/server/app.js';
import { OpenApiValidator, type Schema } from '../../helpers/openapi-validate.js';
import { apiBody, dnsBody, icmpBody, tcpBody, testServer, urlBody, type TestClient } from './client.js';
import { seedSessionsOfEveryType, seedWorld, type World } from './world.js';
import { runsOf } from '../../../src/server/runs/runs.js';
import { startHttpTarget } from '../../helpers/http-target.js';
import { closedPort, startTcpServer } from '../../helpers/tcp-server.js';

// Every operation the service shares with the reference OpenAPI document answers with a body that
// the reference's 2xx response schema accepts. Differences the spec or api-decisions.md decide are
// skipped by an explicit list, each with its reason.

const doc = JSON.parse(readFileSync(new URL('../../reference/openapi.json', import.meta.url), 'utf8')) as Schema;
const validator = new OpenApiValidator(doc);

/** `/v1/checks/:id` and `/v1/checks/{id}` -> `/v1/checks/{}`. */
const shape = (path: string) => path.replace(/:[A-Za-z]+/g, '{}').replace(/\{[A-Za-z]+\}/g, '{}');

type Call = (w: World, t: TestClient) => { path: string; body?: unknown } | Promise<{ path: string; body?: unknown }>;

const service = (w: World) => w.service.id as string;
const windowBody = () => ({ name: 'Ref window', tags: ['prod'], startsAt: '2030-01-05T02:00:00Z', endsAt: '2030-01-05T04:00:00Z', repeatUnit: 'WEEK' });
const CALLS: Record<string, Call> = {
  'GET /v1/accounts/me': () => ({ path: '/v1/accounts/me' }),
  'GET /v1/analytics/url-monitors/{}': (w) => ({ path: `/v1/analytics/url-monitors/${w.check.id}?metrics=responseTime_p95,availability` }),
  'GET /v1/analytics/api-checks/{}': (w) => ({ path: `/v1/analytics/api-checks/${w.check.id}?metrics=dns_p95,firstByte,download_max,retries` }),
  'GET /v1/analytics/icmp/{}': (w) => ({ path: `/v1/analytics/icmp/${w.check.id}?metrics=packetLoss,latencyMin_p95,latencyAvg,latencyMax_max,latencyStdDev,availability,retries` }),
  'GET /v1/checks': () => ({ path: '/v1/checks' }),
  'POST /v1/checks/tcp': () => ({ path: '/v1/checks/tcp', body: tcpBody({ name: 'ref tcp' }) }),
  'PUT /v1/checks/tcp/{}': (w) => ({ path: `/v1/checks/tcp/${w.check.id}`, body: tcpBody({ groupId: w.group.id }) }),
  'POST /v1/checks/dns': () => ({ path: '/v1/checks/dns', body: dnsBody({ name: 'ref dns' }) }),
  'PUT /v1/checks/dns/{}': (w) => ({ path: `/v1/checks/dns/${w.dns.id}`, body: dnsBody() }),
  'POST /v1/checks/browser': () => ({ path: '/v1/checks/browser', body: { name: 'ref browser', script: 'x()' } }),
  'PUT /v1/checks/browser/{}': async (_w, t) => {
    const b = (await t.call('POST', '/v1/checks/browser', { name: 'b', script: 'x()' })).body;
    return { path: `/v1/checks/browser/${b.id}`, body: { name: 'b2', script: 'y()' } };
  },
  'POST /v1/checks/multistep': () => ({ path: '/v1/checks/multistep', body: { name: 'ref ms', script: 'x()' } }),
  'PUT /v1/checks/multistep/{}': async (_w, t) => {
    const ms = (await t.call('POST', '/v1/checks/multistep', { name: 'ms', script: 'x()' })).body;
    return { path: `/v1/checks/multistep/${ms.id}`, body: { name: 'ms2', script: 'y()' } };
  },
  'POST /v1/checks/heartbeat': () => ({ path: '/v1/checks/heartbeat', body: { name: 'ref hb', heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' } } }),
  'PUT /v1/checks/heartbeat/{}': (w) => ({ path: `/v1/checks/heartbeat/${w.heartbeat.id}`, body: { name: 'hb2', heartbeat: { period: 2, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' } } }),
  'POST /v1/checks/url': () => ({
    path: '/v1/checks/url',
    body: urlBody({ name: 'ref url', request: { url: 'https://example.com/', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }),
  }),
  'PUT /v1/checks/url/{}': async (_w, t) => {
    const url = (await t.call('POST', '/v1/checks/url', urlBody())).body;
    return { path: `/v1/checks/url/${url.id}`, body: { name: 'url2', frequency: 0, frequencyOffset: 10, request: { url: 'https://example.com/health', followRedirects: false } } };
  },
  'POST /v1/checks/api': (w) => ({
    path: '/v1/checks/api',
    body: apiBody({
      name: 'ref api',
      setupSnippetId: w.snippet.id,
      request: {
        method: 'POST', url: 'https://api.example.com/orders', body: '{"a":1}', bodyType: 'JSON',
        headers: [{ key: 'X-Token', value: 't', locked: true }], queryParameters: [{ key: 'q', value: '1' }],
        basicAuth: { username: 'u', password: 'p' },
        assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', property: '$.a', target: '1' }, { source: 'HEADERS', comparison: 'CONTAINS', property: 'content-type', target: 'json', regex: null }],
      },
    }),
  }),
  'PUT /v1/checks/api/{}': async (_w, t) => {
    const api = (await t.call('POST', '/v1/checks/api', apiBody())).body;
    return { path: `/v1/checks/api/${api.id}`, body: { name: 'api2', degradedResponseTime: 10000, maxResponseTime: 45000, request: { method: 'HEAD', url: 'https://api.example.com/' } } };
  },
  'POST /v1/checks/icmp': () => ({
    path: '/v1/checks/icmp',
    body: icmpBody({
      name: 'ref icmp',
      frequency: 0,
      frequencyOffset: 10,
      degradedPacketLossThreshold: 5,
      request: { hostname: 'gateway.example.com', ipFamily: 'IPv6', pingCount: 50, assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '100' }] },
    }),
  }),
  'PUT /v1/checks/icmp/{}': async (_w, t) => {
    const icmp = (await t.call('POST', '/v1/checks/icmp', icmpBody())).body;
    return {
      path: `/v1/checks/icmp/${icmp.id}`,
      body: { name: 'icmp2', maxPacketLossThreshold: 50, request: { hostname: '10.0.0.2', pingCount: null, assertions: [{ source: 'JSON_RESPONSE', property: '$.packetLoss', comparison: 'LESS_THAN', target: '10', regex: null }] } },
    };
  },
  'GET /v1/checks/{}': (w) => ({ path: `/v1/checks/${w.check.id}` }),
  'PUT /v1/checks/{}': (w) => ({ path: `/v1/checks/${w.check.id}`, body: { ...tcpBody(), checkType: 'TCP' } }),
  'GET /v1/check-groups': () => ({ path: '/v1/check-groups' }),
  'POST /v1/check-groups': () => ({ path: '/v1/check-groups', body: { name: 'ref group' } }),
  'GET /v1/check-groups/{}': (w) => ({ path: `/v1/check-groups/${w.group.id}` }),
  'PUT /v1/check-groups/{}': (w) => ({ path: `/v1/check-groups/${w.group.id}`, body: { name: 'g2' } }),
  'POST /v1/triggers/check-groups/{}': (w) => ({ path: `/v1/triggers/check-groups/${w.group.id}` }),
  'GET /v1/triggers/check-groups/{}': (w) => ({ path: `/v1/triggers/check-groups/${w.group.id}` }),
  'GET /v1/snippets': () => ({ path: '/v1/snippets' }),
  'POST /v1/snippets': () => ({ path: '/v1/snippets', body: { name: 'ref', script: 'x()' } }),
  'GET /v1/snippets/{}': (w) => ({ path: `/v1/snippets/${w.snippet.id}` }),
  'PUT /v1/snippets/{}': (w) => ({ path: `/v1/snippets/${w.snippet.id}`, body: { name: 's2', script: 'y()' } }),
  'GET /v1/dashboards': () => ({ path: '/v1/dashboards' }),
  'POST /v1/dashboards': () => ({ path: '/v1/dashboards', body: { header: 'Ref' } }),
  'GET /v1/dashboards/{}': (w) => ({ path: `/v1/dashboards/${w.dashboard.dashboardId}` }),
  'PUT /v1/dashboards/{}': (w) => ({ path: `/v1/dashboards/${w.dashboard.dashboardId}`, body: { header: 'Status 2' } }),
  'GET /v1/variables': () => ({ path: '/v1/variables' }),
  'POST /v1/variables': () => ({ path: '/v1/variables', body: { key: 'REF', value: 'v' } }),
  'GET /v1/variables/{}': () => ({ path: '/v1/variables/API_URL' }),
  'PUT /v1/variables/{}': () => ({ path: '/v1/variables/API_URL', body: { key: 'API_URL', value: 'https://example.org' } }),
  'GET /v1/alert-channels': () => ({ path: '/v1/alert-channels' }),
  'POST /v1/alert-channels': () => ({ path: '/v1/alert-channels', body: { type: 'EMAIL', config: { address: 'ref@example.com' } } }),
  'GET /v1/alert-channels/{}': (w) => ({ path: `/v1/alert-channels/${w.channel.id}` }),
  'PUT /v1/alert-channels/{}': (w) => ({ path: `/v1/alert-channels/${w.channel.id}`, body: { type: 'EMAIL', config: { address: 'ops2@example.com' } } }),
  'PUT /v1/alert-channels/{}/subscriptions': (w) => ({ path: `/v1/alert-channels/${w.channel.id}/subscriptions`, body: { checkId: w.check.id, activated: true } }),
  'GET /v1/private-locations': () => ({ path: '/v1/private-locations' }),
  'POST /v1/private-locations': () => ({ path: '/v1/private-locations', body: { name: 'Ref', slugName: 'ref-loc' } }),
  'GET /v1/private-locations/{}': (w) => ({ path: `/v1/private-locations/${w.location.id}` }),
  'GET /v1/private-locations/{}/metrics': (w) => ({ path: `/v1/private-locations/${w.location.id}/metrics?from=${Math.floor(Date.now() / 1000) - 3600}&to=${Math.floor(Date.now() / 1000)}` }),
  'PUT /v1/private-locations/{}': (w) => ({ path: `/v1/private-locations/${w.location.id}`, body: { name: 'Office 2' } }),
  'POST /v1/private-locations/{}/keys': (w) => ({ path: `/v1/private-locations/${w.location.id}/keys` }),
  'GET /v1/check-results/{}': (w) => ({ path: `/v1/check-results/${w.check.id}` }),
  'GET /v1/check-results/{}/{}': (w) => ({ path: `/v1/check-results/${w.check.id}/${w.result.id}` }),
  'GET /v1/check-sessions/{}': (w) => ({ path: `/v1/check-sessions/${w.session.checkSessionId}` }),
  // One check of its own, refused at once: a trigger with no target (or one it ignores, as
  // `tags`) runs every check created so far, Chromium and pings to unreachable hosts among them,
  // which then ran on beside the next test.
  'POST /v1/check-sessions/trigger': async (_w, t) => {
    const tcp = (await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'triggered', doubleCheck: false, request: { hostname: '127.0.0.1', port: await closedPort() } }))).body;
    return { path: '/v1/check-sessions/trigger', body: { target: { checkId: [tcp.id] } } };
  },
  'GET /v1/checks/heartbeats/{}/events': (w) => ({ path: `/v1/checks/heartbeats/${w.heartbeat.id}/events` }),
  'GET /v1/error-groups/checks/{}': (w) => ({ path: `/v1/error-groups/checks/${w.check.id}` }),
  'GET /v1/error-groups/{}': (w) => ({ path: `/v1/error-groups/${w.errorGroup.id}` }),
  'PATCH /v1/error-groups/{}': (w) => ({ path: `/v1/error-groups/${w.errorGroup.id}`, body: { archived: true } }),
  'GET /v1/alert-notifications': () => ({ path: '/v1/alert-notifications' }),
  'GET /v1/status-pages/services': () => ({ path: '/v1/status-pages/services' }),
  'POST /v1/status-pages/services': () => ({ path: '/v1/status-pages/services', body: { name: 'Ref' } }),
  'GET /v1/status-pages/services/{}': (w) => ({ path: `/v1/status-pages/services/${service(w)}` }),
  'PUT /v1/status-pages/services/{}': (w) => ({ path: `/v1/status-pages/services/${service(w)}`, body: { name: 'API 2' } }),
  'GET /v1/status-pages/incidents': () => ({ path: '/v1/status-pages/incidents' }),
  'POST /v1/status-pages/incidents': (w) => ({
    path: '/v1/status-pages/incidents',
    body: { name: 'Ref', severity: 'MINOR', services: [{ id: service(w) }], incidentUpdates: [{ description: 'x' }] },
  }),
  'GET /v1/status-pages/incidents/{}': (w) => ({ path: `/v1/status-pages/incidents/${w.incident.id}` }),
  'PUT /v1/status-pages/incidents/{}': (w) => ({ path: `/v1/status-pages/incidents/${w.incident.id}`, body: { name: 'Outage 2' } }),
  'POST /v1/status-pages/incidents/{}/incident-updates': (w) => ({ path: `/v1/status-pages/incidents/${w.incident.id}/incident-updates`, body: { description: 'more' } }),
  'GET /v1/status-pages/incidents/{}/incident-updates': (w) => ({ path: `/v1/status-pages/incidents/${w.incident.id}/incident-updates` }),
  'GET /v1/status-pages/incidents/{}/incident-updates/{}': (w) => ({ path: `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}` }),
  'PUT /v1/status-pages/incidents/{}/incident-updates/{}': (w) => ({
    path: `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`,
    body: { description: 'edited' },
  }),
  'GET /v1/status-pages': () => ({ path: '/v1/status-pages' }),
  'POST /v1/status-pages': (w) => ({ path: '/v1/status-pages', body: { name: 'Ref', url: 'ref-page', cards: [{ name: 'c', services: [{ id: service(w) }] }] } }),
  'GET /v1/status-pages/{}': (w) => ({ path: `/v1/status-pages/${w.page.id}` }),
  'PUT /v1/status-pages/{}': (w) => ({ path: `/v1/status-pages/${w.page.id}`, body: { name: 'Shop 2', url: 'shop', cards: [] } }),
  'GET /v1/status-pages/{}/subscriptions': (w) => ({ path: `/v1/status-pages/${w.page.id}/subscriptions` }),
  'POST /v1/status-pages/{}/subscriptions/bulk': (w) => ({
    path: `/v1/status-pages/${w.page.id}/subscriptions/bulk`,
    body: { subscriptions: [{ type: 'EMAIL', config: 'b@example.com' }] },
  }),
  'GET /v1/maintenance-windows': () => ({ path: '/v1/maintenance-windows' }),
  'POST /v1/maintenance-windows': () => ({ path: '/v1/maintenance-windows', body: windowBody() }),
  'GET /v1/maintenance-windows/{}': async (_w, t) => ({ path: `/v1/maintenance-windows/${(await t.call('POST', '/v1/maintenance-windows', windowBody())).body.id}` }),
  'PUT /v1/maintenance-windows/{}': async (_w, t) => ({
    path: `/v1/maintenance-windows/${(await t.call('POST', '/v1/maintenance-windows', windowBody())).body.id}`,
    body: { repeatInterval: 1, repeatEndsAt: '2031-01-01', description: 'weekly' },
  }),
};

/** Shared operations not validated, with the reason. */
const SKIPPED: Record<string, string> = {
  'GET /v1/check-results/{}/{}/assets': 'needs a browser run that failed (assets are kept on failure): validated against AssetManifest in test/e2e/browser.test.ts',
  'GET /v1/analytics/browser-checks/{}': 'needs browser results with web vitals: validated against AnalyticsBrowserCheckResponse in test/e2e/browser.test.ts',
};

/** Differences from the reference schema that the spec or api-decisions.md decide: operation, problem, reason. */
const DECIDED: Array<{ op: RegExp; problem: RegExp; reason: string }> = [
  { op: /^POST \/v1\/triggers\/check-groups\/\{\}$/, problem: /status 200 is not declared/, reason: 'api-decisions §0 #19: 200 with the existing trigger, unchanged' },
  { op: /^POST \/v1\/status-pages\/services$/, problem: /status 201 is not declared/, reason: 'api-decisions §4: services POST answers 201 (observed, though the reference says 200)' },
  { op: /check-groups/, problem: /apiCheckDefaults: required/, reason: 'api-decisions §3.3: check groups are minimal (name, activated, muted, tags, locations, concurrency)' },
  { op: /private-locations/, problem: /keys\[\d+\]\.rawKey: required/, reason: 'api-decisions §1.7: a key is shown in full only in the response that creates it' },
  { op: /check-results/, problem: /apiCheckResult\.response\.timings: null/, reason: 'api-decisions §5.3: TCP and DNS results have timings: null' },
  { op: /check-results/, problem: /traceId: required/, reason: 'monitoring-api.md §2.15 lists the check-result fields; traceId is not one of them' },
  { op: /check-sessions/, problem: /results\[\d+\]\.isCancelled: required/, reason: 'monitoring-api.md §2.16 lists the session-result fields; isCancelled is not one of them' },
  { op: /analytics/, problem: /\.series\[\d+\]: string where the reference has object/, reason: 'api-decisions §5.6: series is an array of strings, as the spec says' },
  { op: /status-pages\/(incidents|\{\}\/subscriptions)/, problem: /updated_at: null/, reason: 'monitoring-api.md §2: updated_at is a date-time or null (null until the first update)' },
];

describe('responses against the reference OpenAPI document', () => {
  it('covers every shared operation the service serves', () => {
    const t = testServer();
    const served = new Set(MODULES.flatMap((m) => m(t.server.ctx)).map((s) => `${s.method} ${shape(s.path)}`));
    const reference = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(path)}`)),
    );
    // DELETE answers 204 without a body: there is no response schema to validate against.
    const shared = [...served].filter((op) => reference.has(op) && !op.startsWith('DELETE '));
    expect(shared.filter((op) => !(op in CALLS) && !(op in SKIPPED))).toEqual([]);
    expect(Object.keys(CALLS).filter((op) => !shared.includes(op))).toEqual([]);
  });

  it('each answer fits its 2xx response schema', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    const problems: string[] = [];
    for (const [op, call] of Object.entries(CALLS)) {
      const [method, pattern] = op.split(' ') as [string, string];
      const { path, body } = await call(w, t);
      const answer = await t.call(method, path, body);
      if (answer.status >= 300) {
        problems.push(`${op}: status ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        continue;
      }
      const refPath = Object.keys(doc.paths).find((p) => shape(p) === pattern)!;
      const responses = doc.paths[refPath][method.toLowerCase()].responses as Record<string, Schema>;
      const declared = responses[String(answer.status)] ?? responses['2XX'] ?? responses.default;
      const schema = declared?.content?.['application/json']?.schema;
      if (!schema) {
        const p = `status ${answer.status} is not declared with a JSON body by the reference`;
        if (answer.body !== '' && answer.body !== undefined && !DECIDED.some((d) => d.op.test(op) && d.problem.test(p))) problems.push(`${op}: ${p}`);
        continue;
      }
      for (const p of validator.validate(answer.body, schema)) if (!DECIDED.some((d) => d.op.test(op) && d.problem.test(p))) problems.push(`${op}: ${p}`);
    }
    // The triggered run ends here, not beside the next test.
    await runsOf(t.server.ctx).engine.idle();
    expect(problems).toEqual([]);
  });

  it('sessions and results of every check type fit the reference', async () => {
    const t = testServer();
    const http = await startHttpTarget({ handler: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}') });
    const tcp = await startTcpServer({ reply: () => '+OK\r\n' });
    try {
      const sessions = await seedSessionsOfEveryType(t, { httpOrigin: http.origin, tcpPort: tcp.port, closedPort: await closedPort() });
      expect(sessions.map((s) => s.checkType)).toEqual(['TCP', 'DNS', 'URL', 'API', 'MULTI_STEP', 'ICMP', 'BROWSER']);
      const problems: string[] = [];
      const check = (op: string, pattern: string, answer: { status: number; body: unknown }) => {
        const refPath = Object.keys(doc.paths).find((p) => shape(p) === pattern)!;
        const schema = doc.paths[refPath].get.responses[String(answer.status)]?.content?.['application/json']?.schema;
        if (!schema) return void problems.push(`${op}: status ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        for (const p of validator.validate(answer.body, schema)) if (!DECIDED.some((d) => d.op.test(op) && d.problem.test(p))) problems.push(`${op}: ${p}`);
      };
      for (const s of sessions) {
        const session = await t.call('GET', `/v1/check-sessions/${s.checkSessionId}`);
        expect(session.body.results, `${s.checkType} ${JSON.stringify(session.body)}`).toHaveLength(1);
        check(`GET /v1/check-sessions/{} (${s.checkType})`, '/v1/check-sessions/{}', session);
        const results = await t.call('GET', `/v1/check-results/${s.checkId}`);
        expect(results.body.length, s.checkType).toBeGreaterThan(0);
        check(`GET /v1/check-results/{} (${s.checkType})`, '/v1/check-results/{}', results);
        check(`GET /v1/check-results/{}/{} (${s.checkType})`, '/v1/check-results/{}/{}', await t.call('GET', `/v1/check-results/${s.checkId}/${results.body[0].id}`));
      }
      // The multi-step run really ran, and its session item says it is not degraded.
      const ms = sessions.find((s) => s.checkType === 'MULTI_STEP')!;
      const msSession = (await t.call('GET', `/v1/check-sessions/${ms.checkSessionId}`)).body;
      expect(msSession.results[0]).toMatchObject({ hasFailures: false, hasErrors: false, isDegraded: false });
      for (const type of ['ICMP', 'BROWSER']) {
        const typed = sessions.find((s) => s.checkType === type)!;
        const body = (await t.call('GET', `/v1/check-sessions/${typed.checkSessionId}`)).body;
        expect(body.results[0], `${type} ${JSON.stringify(body)}`).toMatchObject({ hasFailures: false, hasErrors: false, isDegraded: false });
      }
      // Every metric of the reference's ICMP analytics, on the ICMP monitor's real run.
      const icmp = sessions.find((s) => s.checkType === 'ICMP')!;
      const icmpMetrics = ['packetLoss', 'latencyMin', 'latencyMax', 'latencyAvg', 'latencyStdDev', 'availability', 'retries'];
      const metadata = doc.components.schemas.AnalyticsIcmpMonitorMetadata.properties as Record<string, unknown>;
      expect(Object.keys(metadata).filter((m) => !m.includes('_')).sort()).toEqual([...icmpMetrics].sort());
      const icmpAnalytics = await t.call('GET', `/v1/analytics/icmp/${icmp.checkId}?metrics=${Object.keys(metadata).join(',')}&quickRange=last24Hours`);
      expect(icmpAnalytics.status).toBe(200);
      expect(Object.keys(icmpAnalytics.body.metadata).sort()).toEqual(Object.keys(metadata).sort());
      const point = JSON.parse(icmpAnalytics.body.series[0]).data[0];
      expect(point).toMatchObject({ packetLoss: 0, availability: 100, retries: 0 });
      for (const m of ['latencyMin', 'latencyMax', 'latencyAvg', 'latencyStdDev_max']) expect(typeof point[m], m).toBe('number');
      check('GET /v1/analytics/icmp/{}', '/v1/analytics/icmp/{}', icmpAnalytics);
      expect(problems).toEqual([]);
    } finally {
      await http.close();
      await tcp.close();
    }
    // A browser run in Chromium takes seconds, more on a loaded machine.
  }, 240_000);

  it('the validator finds what it is meant to find', () => {
    const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, n: { type: 'integer', nullable: true }, s: { enum: ['A'] } } };
    expect(validator.validate({ id: 'x', n: null, s: 'A' }, schema)).toEqual([]);
    expect(validator.validate({ n: 1.5, s: 'B' }, schema)).toEqual([
      '$.id: required by the reference, missing',
      '$.n: number where the reference has integer',
      '$.s: "B" is not one of ["A"]',
    ]);
    // D1: a status-page list entry without accountId fails the reference's list schema.
    const list = doc.paths['/v1/status-pages'].get.responses['200'].content['application/json'].schema;
    const entry = { id: 'p', name: 'n', url: 'u', cards: [], created_at: '2025-01-01T00:00:00.000Z' };
    expect(validator.validate({ length: 1, entries: [entry] }, list)).toEqual(['$.entries[0].accountId: required by the reference, missing']);
    expect(validator.validate({ length: 1, entries: [{ ...entry, accountId: 'dev' }] }, list)).toEqual([]);
  });
});
