import { ASSERTION, checkKind } from './check-common.js';

/** TCP checks: request {hostname, port, data, assertions, ipFamily}; thresholds 3000/5000 ms. */
export const tcpCheckKind = checkKind({
  kind: 'TcpCheck',
  segment: 'tcp',
  shape: {
    request: {
      object: {
        hostname: {},
        port: {},
        data: { default: null, nullable: true, emptyIsNull: true },
        assertions: { default: [], items: ASSERTION },
        ipFamily: { default: 'IPv4' },
      },
    },
    degradedResponseTime: { default: 3000, nullable: true },
    maxResponseTime: { default: 5000, nullable: true },
  },
});
