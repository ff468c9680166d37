import { ASSERTION, CHECK_ENV_VARS, checkKind } from './check-common.js';

/**
 * DNS checks: request {query, recordType, nameServer, port, protocol, assertions}; thresholds
 * 500/1000 ms. The create-only extras (heartbeat, script, snippets, local scripts) are stored and
 * returned by the service (api-decisions §3.2), so they are compared; mac sends `heartbeat: {}`
 * and `script: ""` when a definition omits them (§6).
 */
export const dnsCheckKind = checkKind({
  kind: 'DnsCheck',
  segment: 'dns',
  shape: {
    request: {
      object: {
        query: {},
        recordType: {},
        nameServer: { emptyIsNull: true },
        port: { default: 53 },
        protocol: { default: 'UDP' },
        assertions: { default: [], items: ASSERTION },
      },
    },
    degradedResponseTime: { default: 500, nullable: true },
    maxResponseTime: { default: 1000, nullable: true },
    heartbeat: { default: {}, free: true },
    script: { default: '' },
    scriptPath: { default: null, nullable: true, emptyIsNull: true },
    sslCheckDomain: { emptyIsNull: true },
    environmentVariables: { default: [], set: 'key', items: CHECK_ENV_VARS },
    setupSnippetId: { default: null, nullable: true },
    tearDownSnippetId: { default: null, nullable: true },
    localSetupScript: { default: null, nullable: true, emptyIsNull: true },
    localTearDownScript: { default: null, nullable: true, emptyIsNull: true },
  },
});
