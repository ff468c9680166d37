import type { Definition, LoadedProject } from '../../../src/config/types.js';
import type { Kind } from '../../../src/schema/kinds.js';
import type { LiveState } from '../../../src/plan/fetch.js';

/** A hand-made definition as the loader would produce it. */
export function def(kind: Kind, id: string, spec: Record<string, unknown>, extra: Partial<Definition> = {}): Definition {
  return { kind, id, state: 'present', spec, refs: {}, secretPaths: [], envSources: {}, file: `defs/${id}.yaml`, line: 1, col: 1, ...extra };
}

/** A loaded project named "shop" holding `definitions`. */
export function project(definitions: Definition[]): LoadedProject {
  return { dir: '/repo/monitoring', config: { project: 'shop', include: [], defaults: {}, env: [] }, files: [], definitions, diagnostics: [] };
}

/** Live state from per-kind arrays. */
export function live(entries: Partial<Record<Kind, Record<string, unknown>[]>>): LiveState {
  return new Map(Object.entries(entries) as Array<[Kind, Record<string, unknown>[]]>);
}

const stamps = { created_at: '2026-01-01T00:00:00.000Z', updated_at: null };

/** A TCP check as the service returns it after creating `{name, request, tags}` with defaults. */
export function liveTcp(id: string, name: string, tags: string[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    checkType: 'TCP',
    name,
    activated: true,
    muted: false,
    doubleCheck: true,
    shouldFail: false,
    locations: [],
    privateLocations: [],
    tags,
    alertSettings: {
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 1 },
      reminders: { amount: 0, interval: 5 },
      parallelRunFailureThreshold: { enabled: false, percentage: 10 },
    },
    useGlobalAlertSettings: true,
    groupId: null,
    groupOrder: null,
    runtimeId: null,
    alertChannelSubscriptions: [],
    retryStrategy: null,
    triggerIncident: null,
    runParallel: false,
    frequency: 10,
    degradedResponseTime: 3000,
    maxResponseTime: 5000,
    request: { hostname: 'db.internal', port: 5432, data: null, assertions: [], ipFamily: 'IPv4' },
    alertChannels: { email: [], webhook: [], slack: [], sms: [] },
    ...stamps,
    ...over,
  };
}
