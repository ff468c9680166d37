import { describe, expect, it } from 'vitest';
import { assemblePlan, buildDesired, compareObjects, KIND_SPECS, normalizeLive } from '../../../src/plan/index.js';
import { unmanagedFields } from '../../../src/plan/compare.js';
import type { Kind } from '../../../src/schema/kinds.js';
import { def, live, liveTcp, project } from './fixtures.js';

const resolveNothing = (ref: string) => ({ $ref: ref });
const tcpSpec = { name: 'DB', request: { hostname: 'db.internal', port: 5432 } };

function diff(kind: Kind, spec: Record<string, unknown>, liveObj: Record<string, unknown>) {
  const d = buildDesired(def(kind, 'x', spec), 'shop', resolveNothing);
  return compareObjects(kind, d.body, normalizeLive(kind, liveObj), []).patch;
}

describe('fields a merging PUT keeps when omitted', () => {
  it('a live frequencyOffset that the definition omits is not managed: no change, and a note says why', () => {
    const p = assemblePlan({
      project: project([def('TcpCheck', 'db', tcpSpec)]),
      live: live({ TcpCheck: [liveTcp('u1', 'DB', ['mac:shop/db'], { frequencyOffset: 30 })] }),
      apiUrl: 'http://127.0.0.1:4010',
      prune: false,
    });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 1, orphaned: 0 });
    expect(p.changes[0].notes?.join('\n')).toMatch(/^frequencyOffset: not set in the definition, so not managed/);
  });

  it('a frequencyOffset the definition sets is still compared', () => {
    const l = liveTcp('u', 'DB', ['mac:shop/x'], { frequencyOffset: 30 });
    expect(diff('TcpCheck', { ...tcpSpec, frequencyOffset: 5 }, l)).toEqual([{ op: 'replace', path: '/frequencyOffset', value: 5, oldValue: 30 }]);
    expect(diff('TcpCheck', { ...tcpSpec, frequencyOffset: 5 }, liveTcp('u', 'DB', ['mac:shop/x']))).toEqual([{ op: 'add', path: '/frequencyOffset', value: 5 }]);
  });

  it('heartbeat checks know frequencyOffset; multi-step checks have none', () => {
    expect(buildDesired(def('HeartbeatCheck', 'h', { name: 'h', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' }, frequencyOffset: 3 }), 'shop', resolveNothing)).toMatchObject({
      body: { frequencyOffset: 3 },
      dropped: [],
    });
    expect(KIND_SPECS.MultiStepCheck.shapeOf({}).frequencyOffset).toBeUndefined();
  });

  it('completes a time-based escalation the way the service does (5 minutes)', () => {
    const l = liveTcp('u', 'DB', ['mac:shop/x'], {
      alertSettings: {
        escalationType: 'TIME_BASED',
        runBasedEscalation: { failedRunThreshold: 1 },
        timeBasedEscalation: { minutesFailingThreshold: 5 },
        reminders: { amount: 0, interval: 5 },
        parallelRunFailureThreshold: { enabled: false, percentage: 10 },
      },
    });
    expect(diff('TcpCheck', { ...tcpSpec, alertSettings: { escalationType: 'TIME_BASED' } }, l)).toEqual([]);
  });

  it('every kind: the fields left unmanaged when omitted are exactly those without a default under a merging PUT', () => {
    // A new field without a default must be decided here: required by the definition, given a
    // default, or knowingly left unmanaged when omitted.
    const kept = Object.fromEntries(
      Object.values(KIND_SPECS).map((spec) => {
        const liveObj = Object.fromEntries(Object.keys(spec.shapeOf({})).map((f) => [f, 'live value']));
        return [spec.kind, unmanagedFields(spec.kind, {}, liveObj)];
      }),
    );
    expect(kept).toEqual({
      EnvironmentVariable: [],
      Snippet: [],
      AlertChannel: [],
      // PrivateLocation's PUT does not merge; CheckGroup's name is required by the definition schema.
      PrivateLocation: [],
      CheckGroup: ['name'],
      // name, request, heartbeat and customUrl are required by the definition schemas.
      TcpCheck: ['name', 'frequencyOffset', 'request'],
      DnsCheck: ['name', 'frequencyOffset', 'request', 'sslCheckDomain'],
      MultiStepCheck: ['name', 'scriptPath', 'dependencies'],
      BrowserCheck: ['name', 'scriptPath', 'dependencies'],
      HeartbeatCheck: ['name', 'frequencyOffset', 'heartbeat'],
      UrlMonitor: ['name', 'frequencyOffset', 'request'],
      ApiCheck: ['name', 'frequencyOffset', 'request'],
      IcmpMonitor: ['name', 'frequencyOffset', 'request'],
      Dashboard: ['customUrl', 'header'],
      // Status-page and service PUTs replace.
      StatusPageService: [],
      StatusPage: [],
      // name, startsAt and endsAt are required by the definition schema.
      MaintenanceWindow: ['name', 'startsAt', 'endsAt'],
    });
  });

  it('a live sslCheckDomain that a DNS definition omits is not managed either', () => {
    const liveDns = {
      ...liveTcp('u', 'D', ['mac:shop/x'], { checkType: 'DNS', degradedResponseTime: 500, maxResponseTime: 1000, sslCheckDomain: 'example.com' }),
      request: { query: 'example.com', recordType: 'A', port: 53, protocol: 'UDP', assertions: [] },
      heartbeat: {}, script: '', scriptPath: null, environmentVariables: [], setupSnippetId: null, tearDownSnippetId: null, localSetupScript: null, localTearDownScript: null,
    };
    expect(diff('DnsCheck', { name: 'D', request: { query: 'example.com', recordType: 'A' } }, liveDns)).toEqual([]);
  });
});
