import { describe, expect, it } from 'vitest';
import { dnsBody, tcpBody, testServer } from './client.js';
import { seedWorld } from './world.js';

// Rules of the spec's §2 and §8 (with the ranges api-decisions §3 gives them) that the other
// server tests do not hit: each case is one request that must answer 400 at the named path.
const env = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, value: 'v' }));
const ms = (extra: Record<string, unknown> = {}) => ({ name: 'm', script: 'x', ...extra });

const RULES: Array<[string, string, unknown, string]> = [
  // §2.1 / §8: response-time thresholds 0..5000 (TCP and DNS), groupOrder >= 0, frequencyOffset >= 1.
  ['POST', '/v1/checks/tcp', tcpBody({ maxResponseTime: 5001 }), 'maxResponseTime'],
  ['POST', '/v1/checks/tcp', tcpBody({ degradedResponseTime: -1 }), 'degradedResponseTime'],
  ['POST', '/v1/checks/dns', dnsBody({ maxResponseTime: 5001 }), 'maxResponseTime'],
  ['POST', '/v1/checks/dns', dnsBody({ degradedResponseTime: -0.5 }), 'degradedResponseTime'],
  ['POST', '/v1/checks/tcp', tcpBody({ frequencyOffset: 0 }), 'frequencyOffset'],
  ['POST', '/v1/checks/tcp', tcpBody({ frequency: 60, frequencyOffset: 601 }), 'frequencyOffset'],
  ['POST', '/v1/checks/tcp', tcpBody({ frequency: 1440, frequencyOffset: 25 }), 'frequencyOffset'],
  ['POST', '/v1/checks/dns', dnsBody({ frequency: 0, frequencyOffset: 5 }), 'frequencyOffset'],
  ['POST', '/v1/checks/dns', dnsBody({ groupOrder: -1 }), 'groupOrder'],
  ['POST', '/v1/checks/tcp', tcpBody({ name: '' }), 'name'],
  ['POST', '/v1/checks/tcp', tcpBody({ tags: 'prod' }), 'tags'],
  ['POST', '/v1/checks/tcp', tcpBody({ activated: 'yes' }), 'activated'],
  ['POST', '/v1/checks/tcp', tcpBody({ alertChannelSubscriptions: [{ alertChannelId: 1 }] }), 'alertChannelSubscriptions.0.activated'],
  // §2.1.5: multi-step frequencies.
  ['POST', '/v1/checks/multistep', ms({ frequency: 3 }), 'frequency'],
  ['POST', '/v1/checks/tcp', tcpBody({ frequency: 45 }), 'frequency'],
  // §2.1.2 / §2.1.3 / §2.1.4 with the decided enums and ranges.
  ['POST', '/v1/checks/tcp', tcpBody({ alertSettings: { escalationType: 'SOMETIMES' } }), 'alertSettings.escalationType'],
  ['POST', '/v1/checks/tcp', tcpBody({ alertSettings: { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 7 } } }), 'alertSettings.timeBasedEscalation.minutesFailingThreshold'],
  ['POST', '/v1/checks/tcp', tcpBody({ alertSettings: { reminders: { amount: 6 } } }), 'alertSettings.reminders.amount'],
  ['POST', '/v1/checks/tcp', tcpBody({ alertSettings: { parallelRunFailureThreshold: { enabled: true, percentage: 15 } } }), 'alertSettings.parallelRunFailureThreshold.percentage'],
  ['POST', '/v1/checks/tcp', tcpBody({ retryStrategy: { type: 'RANDOM' } }), 'retryStrategy.type'],
  ['POST', '/v1/checks/tcp', tcpBody({ retryStrategy: { type: 'LINEAR', maxRetries: 11 } }), 'retryStrategy.maxRetries'],
  ['POST', '/v1/checks/tcp', tcpBody({ retryStrategy: { type: 'LINEAR', maxDurationSeconds: 601 } }), 'retryStrategy.maxDurationSeconds'],
  ['POST', '/v1/checks/tcp', tcpBody({ triggerIncident: { serviceId: 's', severity: 'HUGE', name: 'n', description: 'd', notifySubscribers: true } }), 'triggerIncident.severity'],
  // §2.2, §2.3 with the decided request rules.
  ['POST', '/v1/checks/tcp', tcpBody({ request: { hostname: 'h', port: 0 } }), 'request.port'],
  ['POST', '/v1/checks/tcp', tcpBody({ request: { hostname: 'h', port: 1, assertions: [{ source: 'RESPONSE_DATA', comparison: 'HAS_KEY', target: 'x' }] } }), 'request.assertions.0.comparison'],
  ['POST', '/v1/checks/dns', dnsBody({ request: { query: 'a.example', recordType: 'A', protocol: 'SCTP' } }), 'request.protocol'],
  ['POST', '/v1/checks/dns', dnsBody({ request: { recordType: 'A' } }), 'request.query'],
  ['POST', '/v1/checks/dns', dnsBody({ request: { query: 'a.example', recordType: 'A', assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'x' }] } }), 'request.assertions.0.source'],
  ['POST', '/v1/checks/dns', dnsBody({ heartbeat: { periodUnit: 'weeks' } }), 'heartbeat.periodUnit'],
  ['POST', '/v1/checks/dns', dnsBody({ heartbeat: { grace: -1 } }), 'heartbeat.grace'],
  // §2.1.8, §2.3, §2.4, §8: at most 50 environment variables.
  ['POST', '/v1/checks/dns', dnsBody({ environmentVariables: env(51) }), 'environmentVariables'],
  ['POST', '/v1/checks/multistep', ms({ environmentVariables: env(51) }), 'environmentVariables'],
  ['POST', '/v1/checks/multistep', ms({ environmentVariables: [{ key: 'A' }] }), 'environmentVariables.0.value'],
  // §2.4: script null or non-empty; dependencies items path (<= 1000) and content.
  ['POST', '/v1/checks/multistep', ms({ script: '' }), 'script'],
  ['POST', '/v1/checks/multistep', ms({ dependencies: [{ path: 'x'.repeat(1001), content: '' }] }), 'dependencies.0.path'],
  ['POST', '/v1/checks/multistep', ms({ dependencies: [{ path: 'a.js' }] }), 'dependencies.0.content'],
  // §2.5 / §8: dashboards.
  ['POST', '/v1/dashboards', { header: 'h', checksPerPage: 0 }, 'checksPerPage'],
  ['POST', '/v1/dashboards', { header: 'h', paginationRate: 45 }, 'paginationRate'],
  ['POST', '/v1/dashboards', { header: 'h', customUrl: 'Upper' }, 'customUrl'],
  ['POST', '/v1/dashboards', { header: 'h', isPrivate: 'no' }, 'isPrivate'],
  // §2.10 / §8: alert channels.
  ['POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@example.com' }, sslExpiryThreshold: 0 }, 'sslExpiryThreshold'],
  ['POST', '/v1/alert-channels', { type: 'FAX', config: {} }, 'type'],
  ['POST', '/v1/alert-channels', { type: 'EMAIL' }, 'config'],
  ['POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'n', url: 'https://example.com', method: 'TRACE' } }, 'config.method'],
  // §2.8, §2.9: snippets and variables.
  ['POST', '/v1/snippets', { script: 'x' }, 'name'],
  ['POST', '/v1/variables', { key: 'K', value: 'v', locked: 'no' }, 'locked'],
  ['POST', '/v1/variables', { value: 'v' }, 'key'],
  // §2.6, §2.7 with the decided statuses and severities.
  ['POST', '/v1/status-pages', { name: 'n', cards: [] }, 'url'],
  ['POST', '/v1/status-pages', { name: 'n', url: 'u' }, 'cards'],
  ['POST', '/v1/status-pages', { name: 'n', url: 'u', cards: [{ services: [] }] }, 'cards.0.name'],
  ['POST', '/v1/status-pages', { name: 'n', url: 'u', cards: [], whiteLabel: 'yes' }, 'whiteLabel'],
  ['POST', '/v1/status-pages/incidents', { name: 'i', severity: 'MINOR', services: [], incidentUpdates: [{ description: 'd' }] }, 'services'],
  ['POST', '/v1/status-pages/incidents', { name: 'x'.repeat(256), severity: 'MINOR', services: [{ id: 's' }], incidentUpdates: [{ description: 'd' }] }, 'name'],
  ['POST', '/v1/status-pages/incidents', { name: 'i', severity: 'MINOR', services: [{ id: 's' }], incidentUpdates: [] }, 'incidentUpdates'],
];

describe('every validation rule of the spec (§2, §8) answers 400 at its path', () => {
  it.each(RULES.map((r, i) => [i, ...r] as const))('#%i %s %s -> %s', async (_i, method, path, body, key) => {
    const t = testServer();
    const a = await t.call(method, path, body);
    expect(a.status, JSON.stringify(a.body)).toBe(400);
    expect(a.body.attributes.source).toBe('payload');
    expect(a.body.attributes.keys).toContain(key);
  });

  it('rules on incident updates (endpoint 1): description required, status and date checked', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    const path = `/v1/status-pages/incidents/${w.incident.id}/incident-updates`;
    for (const [body, key] of [[{}, 'description'], [{ description: 'd', status: 'DONE' }, 'status'], [{ description: 'd', publicIncidentUpdateDate: 'today' }, 'publicIncidentUpdateDate'], [{ description: 'd', notifySubscribers: 1 }, 'notifySubscribers']] as const) {
      const a = await t.call('POST', path, body);
      expect([JSON.stringify(body), a.status, a.body.attributes?.keys]).toEqual([JSON.stringify(body), 400, [key]]);
    }
  });

  it('the boundaries themselves are accepted', async () => {
    const t = testServer();
    const ok = async (method: string, path: string, body: unknown) => {
      const a = await t.call(method, path, body);
      expect(a.status, `${path} ${JSON.stringify(a.body)}`).toBeLessThan(300);
      return a.body;
    };
    await ok('POST', '/v1/checks/tcp', tcpBody({ degradedResponseTime: 0, maxResponseTime: 5000, groupOrder: 0, frequency: 60, frequencyOffset: 600 }));
    await ok('POST', '/v1/checks/tcp', tcpBody({ degradedResponseTime: null, maxResponseTime: null, frequency: 1440, frequencyOffset: 24 }));
    await ok('POST', '/v1/checks/tcp', tcpBody({ alertSettings: { reminders: { amount: 100000 }, parallelRunFailureThreshold: { enabled: true, percentage: 100 } } }));
    await ok('POST', '/v1/checks/dns', dnsBody({ environmentVariables: env(50), frequency: 0, frequencyOffset: 30 }));
    await ok('POST', '/v1/checks/multistep', ms({ script: null, environmentVariables: env(50), frequency: 1 }));
    await ok('POST', '/v1/dashboards', { header: 'h', checksPerPage: 1 });
    await ok('POST', '/v1/dashboards', { header: 'h', checksPerPage: 20, refreshRate: 600, paginationRate: 300, width: '960PX' });
    await ok('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@example.com' }, sslExpiryThreshold: 1 });
    await ok('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'b@example.com' }, sslExpiryThreshold: 30 });
  });
});
