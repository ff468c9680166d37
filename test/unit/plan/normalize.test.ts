import { describe, expect, it } from 'vitest';
import { buildDesired, compareObjects, normalizeLive } from '../../../src/plan/index.js';
import type { Kind } from '../../../src/schema/kinds.js';
import { def, liveTcp } from './fixtures.js';

const resolveNothing = (ref: string) => ({ $ref: ref });

/** The patch between a definition's desired body and a live object. */
function diff(kind: Kind, spec: Record<string, unknown>, liveObj: Record<string, unknown>, id = 'x') {
  const d = buildDesired(def(kind, id, spec), 'shop', resolveNothing);
  return compareObjects(kind, d.body, normalizeLive(kind, liveObj), d.secrets.map((s) => s.path)).patch;
}

const sharedDefaults = (tags: string[]) => ({
  activated: true, muted: false, doubleCheck: true, shouldFail: false, locations: [], privateLocations: [], tags,
  alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 0, interval: 5 }, parallelRunFailureThreshold: { enabled: false, percentage: 10 } },
  useGlobalAlertSettings: true, groupId: null, groupOrder: null, runtimeId: null, alertChannelSubscriptions: [], retryStrategy: null,
  triggerIncident: null, runParallel: false, frequency: 10, created_at: '2026-01-01T00:00:00.000Z', updated_at: null, alertChannels: {},
});

describe('normalization per kind: a minimal definition equals what the service stores', () => {
  it('TcpCheck', () => {
    expect(diff('TcpCheck', { name: 'DB', request: { hostname: 'db.internal', port: 5432 } }, liveTcp('u', 'DB', ['mac:shop/x']))).toEqual([]);
  });

  it('DnsCheck (heartbeat {} and script "" sent when omitted; nameServer absent)', () => {
    const live = {
      id: 'u', checkType: 'DNS', name: 'dns', ...sharedDefaults(['mac:shop/x']),
      degradedResponseTime: 500, maxResponseTime: 1000,
      request: { query: 'example.com', recordType: 'A', port: 53, protocol: 'UDP', assertions: [] },
      heartbeat: {}, script: '', scriptPath: null, environmentVariables: null, setupSnippetId: null, tearDownSnippetId: null,
      localSetupScript: null, localTearDownScript: null,
    };
    const d = buildDesired(def('DnsCheck', 'x', { name: 'dns', request: { query: 'example.com', recordType: 'A' } }), 'shop', resolveNothing);
    expect(d.body).toMatchObject({ heartbeat: {}, script: '' });
    expect(diff('DnsCheck', { name: 'dns', request: { query: 'example.com', recordType: 'A' } }, live)).toEqual([]);
  });

  it('MultiStepCheck (scriptPath and dependencies are write-only)', () => {
    const live = { id: 'u', checkType: 'MULTI_STEP', name: 'flow', ...sharedDefaults(['mac:shop/x']), script: 'x()', environmentVariables: [] };
    expect(diff('MultiStepCheck', { name: 'flow', script: 'x()', scriptPath: 'a.js', dependencies: [{ path: 'b.js', content: 'y' }] }, live)).toEqual([]);
  });

  it('HeartbeatCheck (pingToken is server-owned)', () => {
    const hb = { period: 5, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes' };
    const live = { id: 'u', checkType: 'HEARTBEAT', name: 'cron', ...sharedDefaults(['mac:shop/x']), heartbeat: { ...hb, pingToken: 'tok' } };
    expect(diff('HeartbeatCheck', { name: 'cron', heartbeat: hb }, live)).toEqual([]);
  });

  it('Snippet, EnvironmentVariable', () => {
    expect(diff('Snippet', { name: 's', script: 'x' }, { id: 1, name: 's', script: 'x', created_at: 'a', updated_at: null })).toEqual([]);
    expect(diff('EnvironmentVariable', { key: 'K', value: 'v' }, { key: 'K', value: 'v', locked: false, secret: false })).toEqual([]);
  });

  it('Dashboard (keys, ids, customCSS null vs "")', () => {
    const live = {
      id: 1, dashboardId: 'd-uuid', customUrl: 'status', header: 'Status', customDomain: null, logo: null, favicon: null, link: null, description: null,
      width: 'FULL', refreshRate: 60, paginate: true, paginationRate: 60, checksPerPage: 15, useTagsAndOperator: null, hideTags: false,
      enableIncidents: false, expandChecks: false, tags: [], showHeader: true, showCheckRunLinks: false, customCSS: null, isPrivate: false,
      showP95: true, showP99: true, keys: [], created_at: 'a', updated_at: null,
    };
    expect(diff('Dashboard', { customUrl: 'status', header: 'Status' }, live)).toEqual([]);
  });

  it('AlertChannel per type, with the config defaults of api-decisions §3.5', () => {
    const base = { id: 2, sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false, subscriptions: [{ id: 1, checkId: 'c', groupId: null, activated: true }] };
    const webhook = { name: 'h', url: 'https://h.example' };
    expect(diff('AlertChannel', { type: 'WEBHOOK', config: webhook }, { ...base, type: 'WEBHOOK', config: { ...webhook, method: 'POST', template: '', headers: [], queryParameters: [], webhookSecret: null, webhookType: null } })).toEqual([]);
    expect(diff('AlertChannel', { type: 'SLACK', config: { url: 'https://s' } }, { ...base, type: 'SLACK', config: { url: 'https://s', channel: null } })).toEqual([]);
    expect(diff('AlertChannel', { type: 'EMAIL', config: { address: 'a@b.c' } }, { ...base, type: 'EMAIL', config: { address: 'a@b.c' } })).toEqual([]);
  });
});

describe('normalization of MaintenanceWindow', () => {
  const live = {
    id: 1, name: 'Upgrade', tags: ['b', 'a'], startsAt: '2030-01-05T01:00:00.000Z', endsAt: '2030-01-05T03:00:00.000Z',
    repeatInterval: null, repeatUnit: null, repeatEndsAt: null, timezone: null, description: null, pauseAllChecks: false,
    silenceAlertsTags: [], silenceAllAlerts: false, created_at: '2030-01-01T00:00:00.000Z', updated_at: null,
  };
  it('instants compare in UTC whatever their spelling; tags are a set; server-owned fields are not compared', () => {
    expect(diff('MaintenanceWindow', { name: 'Upgrade', tags: ['a', 'b'], startsAt: '2030-01-05T02:00:00+01:00', endsAt: '2030-01-05T03:00:00Z' }, live)).toEqual([]);
    const d = buildDesired(def('MaintenanceWindow', 'x', { name: 'Upgrade', startsAt: '2030-01-05', endsAt: '2030-01-05T03:00:00Z', repeatEndsAt: '2030-02-01T23:30:00-05:00' }), 'shop', resolveNothing);
    expect(d.body).toMatchObject({ startsAt: '2030-01-05T00:00:00.000Z', repeatEndsAt: '2030-02-02', repeatUnit: null, timezone: null, silenceAllAlerts: false });
  });
  it('a different instant is a change', () => {
    expect(diff('MaintenanceWindow', { name: 'Upgrade', tags: ['a', 'b'], startsAt: '2030-01-05T02:00:00Z', endsAt: '2030-01-05T03:00:00Z' }, live)).toEqual([
      { op: 'replace', path: '/startsAt', oldValue: '2030-01-05T01:00:00.000Z', value: '2030-01-05T02:00:00.000Z' },
    ]);
  });
});

describe('normalization rules', () => {
  const live = liveTcp('u', 'DB', ['mac:shop/x', 'b', 'a'], { locations: ['us-east-1', 'eu-west-1'] });
  const spec = { name: 'DB', request: { hostname: 'db.internal', port: 5432 } };

  it('compares tags and locations as sets', () => {
    expect(diff('TcpCheck', { ...spec, tags: ['a', 'b'], locations: ['eu-west-1', 'us-east-1'] }, live)).toEqual([]);
  });

  it('completes partial alertSettings and retryStrategy from the server defaults', () => {
    const l = liveTcp('u', 'DB', ['mac:shop/x'], {
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 2, interval: 5 }, parallelRunFailureThreshold: { enabled: false, percentage: 10 } },
      retryStrategy: { type: 'SINGLE_RETRY', baseBackoffSeconds: 60, maxRetries: 1, maxDurationSeconds: 600, sameRegion: true, onlyOn: [] },
    });
    expect(diff('TcpCheck', { ...spec, alertSettings: { reminders: { amount: 2 } }, retryStrategy: { type: 'SINGLE_RETRY' } }, l)).toEqual([]);
  });

  it('unifies null, absent and empty where the API does', () => {
    const l = liveTcp('u', 'DB', ['mac:shop/x'], { privateLocations: null, request: { hostname: 'db.internal', port: 5432, data: '', assertions: null, ipFamily: 'IPv4' } });
    expect(diff('TcpCheck', { ...spec, request: { ...spec.request, data: null } }, l)).toEqual([]);
  });

  it('orders the alert subscriptions by channel id', () => {
    const l = liveTcp('u', 'DB', ['mac:shop/x'], { alertChannelSubscriptions: [{ alertChannelId: 9, activated: true }, { alertChannelId: 3, activated: true }] });
    expect(diff('TcpCheck', { ...spec, alertChannelSubscriptions: [{ alertChannelId: 3, activated: true }, { alertChannelId: 9, activated: true }] }, l)).toEqual([]);
  });

  it('keeps assertion order significant and diffs inside them by index', () => {
    const assertions = [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'ok', regex: '' }];
    const l = liveTcp('u', 'DB', ['mac:shop/x'], { request: { hostname: 'db.internal', port: 5432, data: null, assertions, ipFamily: 'IPv4' } });
    expect(diff('TcpCheck', { ...spec, request: { ...spec.request, assertions: [{ ...assertions[0], target: 'OK' }] } }, l)).toEqual([
      { op: 'replace', path: '/request/assertions/0/target', value: 'OK', oldValue: 'ok' },
    ]);
  });

  it('reports fields it does not know as dropped', () => {
    expect(buildDesired(def('Snippet', 's', { name: 's', script: 'x', colour: 'red' }), 'shop', resolveNothing).dropped).toEqual(['/colour']);
  });
});
