/** The 21 spec endpoints as table rows (shared by the in-process and the built-CLI tests). */
import { expect } from 'vitest';
import type { World } from './world.js';

// The field names of the spec's section 2 shapes, as each of the 21 endpoints of section 4 returns
// them (status codes from api-decisions §0).
const SHARED_CHECK = [
  'name', 'id', 'activated', 'muted', 'doubleCheck', 'shouldFail', 'locations', 'tags', 'alertSettings', 'useGlobalAlertSettings', 'groupId',
  'groupOrder', 'runtimeId', 'alertChannelSubscriptions', 'retryStrategy', 'triggerIncident', 'runParallel', 'frequency', 'privateLocations',
  'checkType', 'created_at', 'updated_at', 'alertChannels',
];
const ALERT_CHANNELS = ['email', 'webhook', 'slack', 'sms'];
const INCIDENT_UPDATE = ['id', 'description', 'status', 'publicIncidentUpdateDate', 'created_at', 'notifySubscribers'];
const SERVICE = ['name', 'id', 'accountId', 'created_at', 'updated_at'];
const INCIDENT = ['id', 'name', 'severity', 'services', 'incidentUpdates', 'lastUpdateStatus', 'created_at', 'updated_at'];
const STATUS_PAGE = ['id', 'name', 'url', 'customDomain', 'themeColors', 'logo', 'redirectTo', 'favicon', 'defaultTheme', 'cards', 'whiteLabel', 'uptimeWindowDays'];
const CARD = ['id', 'name', 'created_at', 'updated_at', 'services'];
const DASHBOARD = [
  'id', 'dashboardId', 'created_at', 'customDomain', 'customUrl', 'logo', 'favicon', 'link', 'description', 'width', 'refreshRate', 'paginate',
  'paginationRate', 'checksPerPage', 'useTagsAndOperator', 'hideTags', 'enableIncidents', 'expandChecks', 'tags', 'showHeader', 'showCheckRunLinks',
  'customCSS', 'isPrivate', 'showP95', 'showP99', 'keys', 'header',
];
const CHECK_RESULT = [
  'resultType', 'id', 'name', 'checkId', 'hasFailures', 'hasErrors', 'isDegraded', 'overMaxResponseTime', 'runLocation', 'startedAt', 'stoppedAt',
  'created_at', 'responseTime', 'apiCheckResult', 'browserCheckResult', 'multiStepCheckResult', 'checkRunId', 'attempts', 'sequenceId',
];
const API_CHECK_RESULT = ['assertions', 'request', 'response', 'requestError', 'jobLog', 'jobAssets', 'pcapDataUrl'];
const SESSION = ['checkSessionId', 'checkSessionLink', 'checkId', 'checkType', 'status', 'startedAt', 'timeElapsed', 'runLocations', 'name', 'stoppedAt', 'results'];
const SESSION_RESULT = ['checkResultId', 'checkResultLink', 'checkId', 'checkType', 'runLocation', 'resultType', 'hasErrors', 'hasFailures', 'isDegraded', 'aborted', 'name'];
const HEARTBEAT_EVENT = ['id', 'state', 'timestamp', 'source', 'userAgent'];
const PERIOD_STATS = ['successRatio', 'totalEntitiesCurrentPeriod'];
const ANALYTICS = ['checkId', 'name', 'checkType', 'activated', 'muted', 'frequency', 'from', 'to', 'tags', 'series', 'pagination', 'metadata'];
const ALERT_CHANNEL = ['id', 'type', 'config', 'subscriptions', 'sendRecovery', 'sendFailure', 'sendDegraded', 'sslExpiry', 'sslExpiryThreshold', 'autoSubscribe', 'created_at', 'updated_at'];
const VARIABLE = ['key', 'value', 'locked', 'secret'];
const SNIPPET = ['id', 'name', 'script', 'created_at', 'updated_at'];
const PL_KEY = ['id', 'rawKey', 'maskedKey', 'created_at', 'updated_at'];
const TRIGGER = ['id', 'token', 'created_at', 'called_at', 'updated_at', 'groupId'];
const ERROR_GROUP = ['id', 'checkId', 'errorHash', 'rawErrorMessage', 'cleanedErrorMessage', 'firstSeen', 'lastSeen', 'archivedUntilNextEvent'];

const has = (value: unknown, fields: string[]) => expect(Object.keys(value as object)).toEqual(expect.arrayContaining(fields));

/** One spec endpoint called once with valid data: its request, success status and shape check. */
export interface Row {
  n: number;
  method: string;
  path: (w: World) => string;
  body?: (w: World) => unknown;
  status: number;
  shape: (body: any, w: World) => void;
}

/** The 21 endpoints of spec section 4, in order, against the records of `seedWorld`. */
export const ROWS: Row[] = [
  {
    n: 1, method: 'POST', path: (w) => `/v1/status-pages/incidents/${w.incident.id}/incident-updates`, status: 200,
    body: () => ({ description: 'found it', status: 'IDENTIFIED', publicIncidentUpdateDate: '2025-03-12T12:00:00Z', notifySubscribers: false, id: 'ignored', created_at: 'ignored' }),
    shape: (b) => {
      has(b, INCIDENT_UPDATE);
      expect(b).toMatchObject({ description: 'found it', status: 'IDENTIFIED', publicIncidentUpdateDate: '2025-03-12T12:00:00.000Z', notifySubscribers: false });
      expect(b.id).not.toBe('ignored');
    },
  },
  { n: 2, method: 'GET', path: (w) => `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`, status: 200, shape: (b, w) => (has(b, INCIDENT_UPDATE), expect(b.id).toBe(w.update.id)) },
  {
    n: 3, method: 'GET', path: () => '/v1/status-pages/incidents', status: 200,
    shape: (b) => {
      expect(Object.keys(b).sort()).toEqual(['entries', 'length', 'nextId']);
      expect(b).toMatchObject({ length: 1, nextId: null });
      has(b.entries[0], INCIDENT);
      has(b.entries[0].services[0], SERVICE);
      has(b.entries[0].incidentUpdates[0], INCIDENT_UPDATE);
    },
  },
  {
    n: 4, method: 'GET', path: (w) => `/v1/status-pages/${w.page.id}`, status: 200,
    shape: (b) => (has(b, STATUS_PAGE), has(b.cards[0], CARD), has(b.cards[0].services[0], SERVICE)),
  },
  { n: 5, method: 'DELETE', path: (w) => `/v1/status-pages/${w.page.id}/subscriptions/${w.subscription.id}`, status: 204, shape: (b) => expect(b).toBeUndefined() },
  {
    n: 6, method: 'PUT', path: (w) => `/v1/dashboards/${w.dashboard.dashboardId}`, status: 200, body: () => ({ description: 'all of it', checksPerPage: 20 }),
    shape: (b) => (has(b, DASHBOARD), expect(b).toMatchObject({ header: 'Status', description: 'all of it', checksPerPage: 20 })),
  },
  {
    n: 7, method: 'PUT', path: (w) => `/v1/checks/tcp/${w.check.id}`, status: 200, body: () => ({ name: 'db 2', request: { hostname: 'db2.internal', port: 5433 } }),
    shape: (b) => {
      has(b, [...SHARED_CHECK, 'request', 'degradedResponseTime', 'maxResponseTime']);
      has(b.request, ['port', 'hostname', 'data', 'assertions', 'ipFamily']);
      has(b.alertChannels, ALERT_CHANNELS);
      expect(b.checkType).toBe('TCP');
    },
  },
  {
    n: 8, method: 'POST', path: () => '/v1/checks/dns', status: 201, body: () => ({ name: 'dns', request: { query: 'example.com', recordType: 'AAAA' }, heartbeat: {}, script: '' }),
    shape: (b) => {
      has(b, [...SHARED_CHECK, 'request', 'degradedResponseTime', 'maxResponseTime', 'heartbeat', 'script']);
      has(b.request, ['query', 'recordType', 'port', 'assertions', 'protocol']);
      expect(b.checkType).toBe('DNS');
    },
  },
  {
    n: 9, method: 'POST', path: () => '/v1/checks/multistep', status: 201, body: () => ({ name: 'flow', script: 'await page.goto(url)' }),
    shape: (b) => (has(b, [...SHARED_CHECK, 'script']), has(b.alertChannels, ALERT_CHANNELS), expect(b.checkType).toBe('MULTI_STEP')),
  },
  {
    n: 10, method: 'GET', path: (w) => `/v1/check-results/${w.check.id}/${w.result.id}`, status: 200,
    shape: (b) => (has(b, CHECK_RESULT), has(b.apiCheckResult, API_CHECK_RESULT), expect(b.resultType).toBe('FINAL')),
  },
  {
    n: 11, method: 'GET', path: (w) => `/v1/check-sessions/${w.session.checkSessionId}`, status: 200,
    shape: (b) => (has(b, SESSION), has(b.results[0], SESSION_RESULT), expect(b.status).toBe('FAILED')),
  },
  {
    n: 12, method: 'GET', path: (w) => `/v1/checks/heartbeats/${w.heartbeat.id}/events?limit=10`, status: 200,
    shape: (b) => {
      expect(b).toHaveLength(1);
      expect(Object.keys(b[0]).sort()).toEqual(['events', 'stats']);
      has(b[0].events[0], HEARTBEAT_EVENT);
      for (const p of ['last24Hours', 'last7Days']) (has(b[0].stats[p], PERIOD_STATS), has(b[0].stats[p].successRatio, ['previousPeriod', 'currentPeriod']));
    },
  },
  {
    n: 13, method: 'GET', path: (w) => `/v1/analytics/url-monitors/${w.check.id}?metrics=responseTime_p95,availability`, status: 200,
    shape: (b) => {
      has(b, ANALYTICS);
      expect(b.series.every((s: unknown) => typeof s === 'string')).toBe(true);
      expect(b.pagination).toEqual({ page: 1, limit: 10 });
      has(b.metadata.responseTime_p95, ['unit', 'label', 'aggregation']);
    },
  },
  { n: 14, method: 'GET', path: () => '/v1/alert-channels?limit=10&page=1', status: 200, shape: (b) => (expect(b).toHaveLength(1), has(b[0], ALERT_CHANNEL)) },
  { n: 15, method: 'GET', path: () => '/v1/variables?limit=10&page=1', status: 200, shape: (b) => (expect(b).toHaveLength(1), has(b[0], VARIABLE)) },
  {
    n: 16, method: 'PUT', path: (w) => `/v1/snippets/${w.snippet.id}`, status: 200, body: () => ({ name: 'setup', script: 'y()' }),
    shape: (b) => (has(b, SNIPPET), expect(b).toMatchObject({ name: 'setup', script: 'y()' })),
  },
  { n: 17, method: 'GET', path: (w) => `/v1/snippets/${w.snippet.id}`, status: 200, shape: (b) => has(b, SNIPPET) },
  { n: 18, method: 'POST', path: (w) => `/v1/private-locations/${w.location.id}/keys`, status: 201, shape: (b) => (has(b, PL_KEY), expect(b.maskedKey).toBe(`...${b.rawKey.slice(-4)}`)) },
  { n: 19, method: 'POST', path: (w) => `/v1/triggers/check-groups/${w.group.id}`, status: 200, shape: (b, w) => (has(b, TRIGGER), expect(b).toEqual(w.trigger)) },
  {
    n: 20, method: 'PATCH', path: (w) => `/v1/error-groups/${w.errorGroup.id}`, status: 200, body: () => ({ archiveForEver: false, archivedUntilNextEvent: true }),
    shape: (b) => (has(b, ERROR_GROUP), expect(b.archivedUntilNextEvent).toBe(true)),
  },
  { n: 21, method: 'GET', path: (w) => `/v1/error-groups/checks/${w.check.id}`, status: 200, shape: (b) => (expect(b).toHaveLength(1), has(b[0], ERROR_GROUP)) },
];

