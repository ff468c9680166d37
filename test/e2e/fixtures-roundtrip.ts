/** Resources the round-trip project refers to by API id, created outside the project first. */
export interface RoundTripRefs {
  /** A check group (`groupId`). */
  groupId: number;
  /** A status-page service (`triggerIncident.serviceId`). */
  serviceId: string;
  /** An alert channel not defined by the project (raw `alertChannelSubscriptions`). */
  channelId: number;
}

/**
 * A project that sets every field the definition schemas allow to a non-default value, one
 * resource of every kind (every alert-channel type), for the round-trip test.
 */
export function roundTripFiles({ groupId, serviceId, channelId }: RoundTripRefs): Record<string, string> {
  return {
    'mac.config.yaml': 'project: roundtrip\nenv: [RT_SECRET, RT_HOOK_SECRET, RT_CHECK_SECRET, RT_API_PASSWORD, RT_API_TOKEN]\n',
    'snippets.yaml': `kind: Snippet
id: setup
name: Setup snippet
script: "console.log('setup')"
---
kind: Snippet
id: teardown
name: Teardown snippet
script: "console.log('teardown')"
`,
    'variables.yaml': `kind: EnvironmentVariable
key: PLAIN_VAR
value: plain-value
locked: true
---
kind: EnvironmentVariable
key: SECRET_VAR
value: \${{ env.RT_SECRET }}
secret: true
`,
    'alerts.yaml': `kind: AlertChannel
id: email
type: EMAIL
config: { address: oncall@example.com }
sendRecovery: false
sendFailure: false
sendDegraded: true
sslExpiry: true
sslExpiryThreshold: 14
autoSubscribe: true
---
kind: AlertChannel
id: slack
type: SLACK
config: { url: "https://hooks.slack.example/T1/B2", channel: "#alerts" }
---
kind: AlertChannel
id: webhook
type: WEBHOOK
config:
  name: Incident hook
  url: "https://hooks.example/alert"
  method: PUT
  template: '{"check": "{{checkName}}"}'
  headers: [{ key: X-Team, value: shop, locked: true }]
  queryParameters: [{ key: source, value: mac }]
  webhookSecret: \${{ env.RT_HOOK_SECRET }}
  webhookType: WEBHOOK_GENERIC
---
kind: AlertChannel
id: sms
type: SMS
config: { number: "+4915112345678", name: Pager phone }
---
kind: AlertChannel
id: call
type: CALL
config: { number: "+4915187654321", name: Escalation phone }
---
kind: AlertChannel
id: pagerduty
type: PAGERDUTY
config: { serviceKey: pd-service-key-1, serviceName: Shop, account: shop-inc }
---
kind: AlertChannel
id: opsgenie
type: OPSGENIE
config: { apiKey: og-api-key-1, name: Shop genie, region: EU, priority: P2 }
`,
    'checks/tcp.yaml': `kind: TcpCheck
id: tcp-all
name: TCP with every field
activated: false
muted: true
doubleCheck: false
shouldFail: true
locations: [us-east-1, eu-west-1]
privateLocations: [edge-1]
tags: [team-a, db]
alertSettings:
  escalationType: TIME_BASED
  runBasedEscalation: { failedRunThreshold: 3 }
  timeBasedEscalation: { minutesFailingThreshold: 10 }
  reminders: { amount: 2, interval: 10 }
  parallelRunFailureThreshold: { enabled: true, percentage: 50 }
useGlobalAlertSettings: false
groupId: ${groupId}
groupOrder: 2
runtimeId: "2025.04"
alertChannels: [email, webhook]
retryStrategy: { type: LINEAR, baseBackoffSeconds: 30, maxRetries: 3, maxDurationSeconds: 300, sameRegion: false, onlyOn: [NETWORK_ERROR] }
triggerIncident: { serviceId: "${serviceId}", severity: MAJOR, name: Database down, description: The primary database is unreachable, notifySubscribers: true }
runParallel: true
frequency: 5
frequencyOffset: 7
degradedResponseTime: 1000
maxResponseTime: 2000
request:
  hostname: db.internal.example
  port: 5432
  data: "PING\\n"
  ipFamily: IPv6
  assertions:
    - { source: RESPONSE_DATA, comparison: CONTAINS, target: PONG, property: line, regex: "(P.NG)" }
    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "500" }
`,
    'checks/dns.yaml': `kind: DnsCheck
id: dns-all
name: DNS with every field
frequency: 0
frequencyOffset: 20
degradedResponseTime: 100
maxResponseTime: 200
tags: [dns]
request:
  query: example.com
  recordType: AAAA
  nameServer: 1.1.1.1
  port: 5353
  protocol: TCP
  assertions: [{ source: RESPONSE_CODE, comparison: EQUALS, target: NOERROR }]
heartbeat: { period: 1, periodUnit: hours, grace: 5, graceUnit: minutes }
script: "console.log('dns')"
scriptPath: checks/dns.js
sslCheckDomain: example.com
environmentVariables:
  - { key: ZETA, value: z, locked: true }
  - { key: ALPHA, value: "\${{ env.RT_CHECK_SECRET }}", secret: true }
setupSnippet: setup
tearDownSnippet: teardown
localSetupScript: "setup()"
localTearDownScript: "teardown()"
alertChannels: [sms]
`,
    'checks/multistep.yaml': `kind: MultiStepCheck
id: flow
name: Checkout flow
frequency: 15
runtimeId: "2024.09"
locations: [eu-central-1]
scriptFile: ../flows/checkout.js
scriptPath: flows/checkout.spec.js
dependencies: [{ path: flows/helper.js, content: "export const x = 1" }]
environmentVariables: [{ key: USER, value: demo }]
alertChannels: [slack, call]
alertChannelSubscriptions: [{ alertChannelId: ${channelId}, activated: false }]
retryStrategy: { type: SINGLE_RETRY }
`,
    'flows/checkout.js': "await page.goto('https://shop.example');\n",
    'checks/heartbeat.yaml': `kind: HeartbeatCheck
id: nightly
name: Nightly backup
heartbeat: { period: 1, periodUnit: days, grace: 30, graceUnit: minutes }
frequency: 60
frequencyOffset: 15
tags: [backup]
muted: true
alertChannels: [pagerduty, opsgenie]
`,
    'checks/url.yaml': `kind: UrlMonitor
id: home
name: Home page with every field
activated: false
muted: true
doubleCheck: false
shouldFail: true
locations: [eu-west-2]
privateLocations: [edge-1]
tags: [web]
useGlobalAlertSettings: false
groupId: ${groupId}
groupOrder: 1
runtimeId: "2024.02"
retryStrategy: { type: FIXED, maxRetries: 1 }
runParallel: true
frequency: 2
frequencyOffset: 20
degradedResponseTime: 0
maxResponseTime: 45000
request:
  method: GET
  url: https://www.example.com/
  followRedirects: false
  skipSSL: true
  ipFamily: IPv6
  assertions:
    - { source: STATUS_CODE, comparison: LESS_THAN, target: "400", property: "", regex: "(\\\\d+)" }
alertChannels: [email]
`,
    'checks/api.yaml': `kind: ApiCheck
id: orders
name: Orders API with every field
frequency: 0
frequencyOffset: 10
degradedResponseTime: 8000
maxResponseTime: null
tags: [api]
triggerIncident: { serviceId: "${serviceId}", severity: MINOR, name: Orders down, description: Orders API fails, notifySubscribers: false }
request:
  method: PATCH
  url: https://api.example.com/v1/orders/1
  followRedirects: false
  skipSSL: true
  ipFamily: IPv6
  body: '{"status":"paid"}'
  bodyType: GRAPHQL
  headers:
    - { key: X-Zeta, value: z }
    - { key: Authorization, value: "\${{ env.RT_API_TOKEN }}", locked: true }
  queryParameters:
    - { key: page, value: "2" }
    - { key: expand, value: items, locked: true }
  basicAuth: { username: monitor, password: "\${{ env.RT_API_PASSWORD }}" }
  assertions:
    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }
    - { source: JSON_BODY, property: "$.items[0].id", comparison: HAS_VALUE, target: "1", regex: "" }
    - { source: HEADERS, property: etag, comparison: NOT_EMPTY }
    - { source: TEXT_BODY, comparison: NOT_CONTAINS, target: error, regex: "err(or)" }
    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "900" }
setupSnippet: setup
tearDownSnippet: teardown
localSetupScript: "prepare()"
localTearDownScript: "cleanup()"
alertChannels: [webhook]
`,
    'checks/icmp.yaml': `kind: IcmpMonitor
id: gateway
name: Gateway with every field
activated: false
muted: true
doubleCheck: false
shouldFail: true
locations: [ap-south-1]
tags: [net]
runParallel: true
frequency: 0
frequencyOffset: 30
degradedResponseTime: 0
maxResponseTime: 300000
degradedPacketLossThreshold: 0.5
maxPacketLossThreshold: null
retryStrategy: { type: LINEAR, baseBackoffSeconds: 5, maxRetries: 3, maxDurationSeconds: 60, sameRegion: false, onlyOn: [NETWORK_ERROR] }
request:
  hostname: "2001:db8::1"
  ipFamily: IPv6
  pingCount: 50
  assertions:
    - { source: LATENCY, property: stdDev, comparison: LESS_THAN, target: "3" }
    - { source: JSON_RESPONSE, property: "$.pingResults[0].ttl", comparison: NOT_NULL, target: "", regex: "(\\\\d+)" }
alertChannels: [email]
`,
    'dashboards.yaml': `kind: Dashboard
id: status
customUrl: shop-status-rt
header: Shop status
customDomain: status.shop.example
logo: "https://shop.example/logo.png"
favicon: "https://shop.example/favicon.ico"
link: "https://shop.example"
description: Everything about the shop
width: 960PX
refreshRate: 300
paginate: false
paginationRate: 30
checksPerPage: 5
useTagsAndOperator: true
hideTags: true
enableIncidents: true
expandChecks: true
tags: [team-a, db]
showHeader: false
showCheckRunLinks: true
customCSS: "body { color: red }"
isPrivate: true
showP95: false
showP99: false
`,
  };
}

/** The secret values of the round-trip project; none may appear in any output. */
export const ROUNDTRIP_SECRETS = {
  RT_SECRET: 'rt-variable-secret-Q7x9',
  RT_HOOK_SECRET: 'rt-hook-secret-K2m4',
  RT_CHECK_SECRET: 'rt-check-secret-W5p1',
  RT_API_PASSWORD: 'rt-api-password-J8d3',
  RT_API_TOKEN: 'Bearer rt-api-token-N4v6',
};
