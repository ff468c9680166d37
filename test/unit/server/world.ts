/**
 * One of everything in account `dev` of a test service, through the API (and the run recorder for
 * run data, which only the scheduler writes): the fixtures of the spec-audit tests.
 */
import { Alerter, type CheckRecord } from '../../../src/server/runs/alerts.js';
import { COLL } from '../../../src/server/kinds.js';
import { expect } from 'vitest';
import { dnsBody, tcpBody, type TestClient } from './client.js';
import { RunRecorder } from '../../../src/server/rundata/recorder.js';
import { refusedAttempt, tcpAttempt } from '../../e2e/rundata-harness.js';
import { runsOf } from '../../../src/server/runs/runs.js';

/** Ids of the seeded records. */
export interface World {
  check: any;
  dns: any;
  heartbeat: any;
  snippet: any;
  variable: any;
  channel: any;
  group: any;
  location: any;
  dashboard: any;
  service: any;
  page: any;
  incident: any;
  update: any;
  subscription: any;
  session: { checkSessionId: string };
  result: { id: string };
  errorGroup: { id: string };
  trigger: any;
}

async function ok(t: TestClient, method: string, path: string, body?: unknown): Promise<any> {
  const a = await t.call(method, path, body);
  expect(a.status, `${method} ${path}: ${JSON.stringify(a.body)}`).toBeLessThan(300);
  return a.body;
}

/** Seeds one record of every kind (and run data of `check`) as account `dev`. */
export async function seedWorld(t: TestClient): Promise<World> {
  const channel = await ok(t, 'POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
  const group = await ok(t, 'POST', '/v1/check-groups', { name: 'g' });
  const location = await ok(t, 'POST', '/v1/private-locations', { name: 'Office', slugName: 'office' });
  const snippet = await ok(t, 'POST', '/v1/snippets', { name: 's', script: 'x()' });
  const variable = await ok(t, 'POST', '/v1/variables', { key: 'API_URL', value: 'https://example.com' });
  const dashboard = await ok(t, 'POST', '/v1/dashboards', { header: 'Status' });
  const service = await ok(t, 'POST', '/v1/status-pages/services', { name: 'API' });
  const page = await ok(t, 'POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [{ name: 'Main', services: [{ id: service.id }] }] });
  const incident = await ok(t, 'POST', '/v1/status-pages/incidents', { name: 'Outage', severity: 'MAJOR', services: [{ id: service.id }], incidentUpdates: [{ description: 'looking' }] });
  const update = incident.incidentUpdates[0];
  await ok(t, 'POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'a@example.com' }] });
  const [subscription] = await ok(t, 'GET', `/v1/status-pages/${page.id}/subscriptions`);
  const check = await ok(t, 'POST', '/v1/checks/tcp', tcpBody({ groupId: group.id }));
  const dns = await ok(t, 'POST', '/v1/checks/dns', dnsBody());
  const heartbeat = await ok(t, 'POST', '/v1/checks/heartbeat', { name: 'hb', heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' } });
  const trigger = await ok(t, 'POST', `/v1/triggers/check-groups/${group.id}`);

  const now = t.server.ctx.options.now;
  const recorder = new RunRecorder(t.server.ctx.store, now);
  const snap = { id: check.id, name: check.name, checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 };
  const session = recorder.openSession('dev', { check: snap, runLocations: ['eu-west-1', 'us-east-1'] });
  recorder.markExecuting('dev', session.checkSessionId);
  const { result, errorGroup } = recorder.finishLocation('dev', session.checkSessionId, refusedAttempt('eu-west-1', now() - 2000));
  recorder.finishLocation('dev', session.checkSessionId, tcpAttempt('us-east-1', now() - 1000));
  // An alert of the failing result, queued as a run queues it (IN_PROGRESS), and one delivered:
  // the e-mail channel has no SMTP server here, so it ends FAILURE with the reason.
  const alerter = new Alerter(t.server.ctx);
  const about = { runLocation: 'eu-west-1', responseTime: 12, startedAt: new Date(now() - 2000).toISOString(), errorMessage: 'connect ECONNREFUSED', checkResultId: result.id };
  await ok(t, 'PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId: dns.id, activated: true });
  await alerter.onVerdict('dev', t.server.ctx.store.get('dev', COLL.checks, dns.id) as unknown as CheckRecord, 'failed', about);
  t.server.deliverer.start();
  await t.server.deliverer.idle();
  await t.server.deliverer.stop();
  await ok(t, 'PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
  await alerter.onVerdict('dev', t.server.ctx.store.get('dev', COLL.checks, check.id) as unknown as CheckRecord, 'failed', about);
  recorder.recordHeartbeatEvent('dev', { checkId: heartbeat.id, state: 'RECEIVED', timestamp: new Date(now() - 60_000).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' });
  return { check, dns, heartbeat, snippet, variable, channel, group, location, dashboard, service, page, incident, update, subscription, session, result, errorGroup: errorGroup!, trigger };
}

/** One session of each executed check type, run by the service's own engine, and its check. */
export interface TypedSession {
  checkType: string;
  checkId: string;
  checkSessionId: string;
}

/**
 * Creates one check of every type the API stores (as account `dev`) and runs a session of each
 * through the service's run engine, as a trigger would: URL and API checks against `httpOrigin`,
 * a TCP check against `tcpPort`, a DNS check against a name server that refuses, a multi-step
 * script, an ICMP monitor pinging 127.0.0.1 and a browser check in Chromium (real runs). Heartbeat checks get no sessions (pings feed them; the scheduler never
 * runs them): seedWorld's heartbeat events cover them. For the reference-schema tests of sessions
 * and results, which must see every type's shape.
 */
export async function seedSessionsOfEveryType(t: TestClient, targets: { httpOrigin: string; tcpPort: number; closedPort: number }): Promise<TypedSession[]> {
  const bodies: Array<[string, string, Record<string, unknown>]> = [
    ['TCP', '/v1/checks/tcp', { name: 'typed tcp', request: { hostname: '127.0.0.1', port: targets.tcpPort } }],
    ['DNS', '/v1/checks/dns', { name: 'typed dns', heartbeat: {}, script: '', request: { query: 'example.com', recordType: 'A', nameServer: '127.0.0.1', port: targets.closedPort, protocol: 'TCP' } }],
    ['URL', '/v1/checks/url', { name: 'typed url', request: { url: `${targets.httpOrigin}/` } }],
    ['API', '/v1/checks/api', { name: 'typed api', degradedResponseTime: 0, request: { method: 'GET', url: `${targets.httpOrigin}/api` } }],
    ['MULTI_STEP', '/v1/checks/multistep', { name: 'typed ms', script: "const { test } = require('@playwright/test');\ntest('ok', async () => {});\n" }],
    ['ICMP', '/v1/checks/icmp', { name: 'typed icmp', request: { hostname: '127.0.0.1', pingCount: 2 } }],
    [
      'BROWSER',
      '/v1/checks/browser',
      { name: 'typed browser', script: `const { test, expect } = require('@playwright/test');\ntest('page', async ({ page }) => {\n  await page.goto('${targets.httpOrigin}/');\n  await expect(page.locator('body')).toBeVisible();\n});\n` },
    ],
  ];
  const { engine } = runsOf(t.server.ctx, { runner: { limits: { timeoutMs: 5000, idleMs: 100 } } });
  const out: TypedSession[] = [];
  for (const [checkType, path, body] of bodies) {
    const created = await ok(t, 'POST', path, { ...body, locations: ['eu-west-1'], doubleCheck: false, activated: true });
    const record = t.server.ctx.store.get<CheckRecord>('dev', COLL.checks, created.id)!;
    const session = engine.startSession('dev', record, { durable: true })!;
    out.push({ checkType, checkId: created.id, checkSessionId: session.checkSessionId });
  }
  await engine.idle();
  return out;
}
