import { checkKind } from './check-common.js';

/**
 * Heartbeat checks: the shared check fields plus `heartbeat` {period, periodUnit, grace,
 * graceUnit}; the service's `heartbeat.pingToken` is server-owned and dropped.
 */
export const heartbeatCheckKind = checkKind({
  kind: 'HeartbeatCheck',
  segment: 'heartbeat',
  shape: {
    heartbeat: { object: { period: {}, periodUnit: {}, grace: {}, graceUnit: {} } },
  },
});
