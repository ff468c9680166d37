import { checkKind } from './check-common.js';
import { HTTP_ASSERTION } from './url-monitor.js';

/**
 * ICMP monitors (reference ChecksV1IcmpMonitorCreate): request {hostname, ipFamily, pingCount,
 * assertions}; latency thresholds 10000/20000 ms, packet-loss thresholds 10/20 %. Assertions
 * take the same defaults as HTTP ones ("" for property, target and regex); a null ipFamily or
 * pingCount is stored as its default.
 */
export const icmpMonitorKind = checkKind({
  kind: 'IcmpMonitor',
  segment: 'icmp',
  shape: {
    request: {
      object: {
        hostname: {},
        ipFamily: { default: 'IPv4' },
        pingCount: { default: 10 },
        assertions: { default: [], items: HTTP_ASSERTION },
      },
    },
    degradedResponseTime: { default: 10000, nullable: true },
    maxResponseTime: { default: 20000, nullable: true },
    degradedPacketLossThreshold: { default: 10, nullable: true },
    maxPacketLossThreshold: { default: 20, nullable: true },
  },
});
