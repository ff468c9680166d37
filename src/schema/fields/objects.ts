/**
 * API-level object schemas and field shapes (spec §2, §8; api-decisions §2, §3), built for one
 * unknown-key mode: `strict` (definitions, strict API bodies) or `strip` (most API bodies).
 * No server defaults are applied here (PUT merges need omitted fields to stay omitted); they are
 * recorded as JSON Schema `default` annotations only. No definition-only concepts (kind, id).
 */
import { z } from 'zod';
import {
  API_ASSERTION_SOURCES, API_COMPARISONS, HTTP_MAX_RESPONSE_TIME, URL_ASSERTION_SOURCES, URL_COMPARISONS, apiMethod, bodyType,
  DNS_ASSERTION_SOURCES, DNS_COMPARISONS, ICMP_ASSERTION_SOURCES, ICMP_COMPARISONS, ICMP_MAX_RESPONSE_TIME, ICMP_PING_COUNT, MINUTES_FAILING_THRESHOLDS, PAGINATION_RATES,
  REFRESH_RATES, REMINDER_INTERVALS, TCP_ASSERTION_SOURCES, TCP_COMPARISONS, dashboardWidth,
  dnsProtocol, escalationType, heartbeatUnit, ipFamily, location, minuteFrequency, oneOfNumbers, opsgeniePriority, opsgenieRegion,
  recordType, retryStrategyType, runtimeId, severity, subminuteFrequency, webhookMethod,
} from './values.js';

/** How an object schema treats keys it does not know. */
export type ObjectMode = 'strict' | 'strip';

/** Attaches a description and (documentation only) the server's default. */
export function doc<T extends z.ZodType>(schema: T, description: string, serverDefault?: unknown): T {
  return schema.meta(serverDefault === undefined ? { description } : { description, default: serverDefault as never });
}

/**
 * Environment-variable keys: 1..255 chars without `/ ? # %` or whitespace (api-decisions §3.6),
 * and neither `.` nor `..`: the key is a URL path segment (`/v1/variables/{key}`), and those two
 * would name another path.
 */
export const VARIABLE_KEY = /^(?!\.\.?$)[^/?#%\s]{1,255}$/;
/** What VARIABLE_KEY says, for messages. */
export const VARIABLE_KEY_RULE = 'must be 1..255 characters without / ? # % or whitespace, and not . or ..';
/** Private-location slugs (api-decisions §3.6). */
export const PRIVATE_LOCATION_SLUG = /^[a-zA-Z0-9-]{1,30}$/;
/** Dashboard customUrl: [a-z0-9-], 1..63, no leading or trailing `-` (api-decisions §3.4). */
export const CUSTOM_URL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Phone numbers of SMS and CALL channels, E.164. */
export const E164 = /^\+[1-9]\d{1,14}$/;
/** Most environment variables allowed on one check (spec §8). */
export const MAX_CHECK_VARIABLES = 50;
/** URLs of URL monitors and API checks: http or https, 1..2048 characters. */
export const HTTP_URL = /^https?:\/\/[^\s]+$/i;
/** HTTP header names (RFC 9110 tokens). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header values: no CR, LF or NUL (they would split or end the request). */
export const HEADER_VALUE = /^[^\r\n\0]*$/;
/** Most headers, and most query parameters, on one API check. */
export const MAX_HTTP_PAIRS = 50;
/**
 * Most assertions on one check, of every kind (a choice of ours: the reference sets no bound).
 * Each is evaluated at every run, within the run's evaluation budget, and stored in its result.
 */
export const MAX_ASSERTIONS = 200;

function build(mode: ObjectMode) {
  const obj = <S extends z.ZodRawShape>(shape: S) => (mode === 'strict' ? z.strictObject(shape) : z.object(shape));
  const responseTime = () => z.number().min(0).max(5000).nullable().optional();

  // TCP and DNS assertions share one shape; only the sources, comparisons and property differ.
  const assertion = <Src extends readonly [string, ...string[]], Cmp extends readonly [string, ...string[]]>(sources: Src, comparisons: Cmp, propertyDoc: string) =>
    obj({
      source: z.enum(sources),
      comparison: z.enum(comparisons),
      target: doc(z.string(), 'Value compared with the source'),
      property: doc(z.string().optional(), propertyDoc),
      regex: doc(z.string().optional(), 'Regular expression applied to the source; its first group is compared', ''),
    });
  const tcpAssertion = assertion(TCP_ASSERTION_SOURCES, TCP_COMPARISONS, 'Property of the source to read');
  const dnsAssertion = assertion(DNS_ASSERTION_SOURCES, DNS_COMPARISONS, 'JSON path read from JSON_ANSWER, e.g. $[0].data');

  const tcpRequest = obj({
    hostname: doc(z.string().min(1).max(2048), 'Host to connect to'),
    port: doc(z.number().int().min(1).max(65535), 'TCP port'),
    data: doc(z.string().nullable().optional(), 'Text sent after connecting', null),
    assertions: doc(z.array(tcpAssertion).max(MAX_ASSERTIONS).optional(), `Assertions on the response (at most ${MAX_ASSERTIONS})`, []),
    ipFamily: ipFamily.optional(),
  });
  const dnsRequest = obj({
    query: doc(z.string().min(1).max(100), 'Name to resolve'),
    recordType,
    nameServer: doc(z.string().min(1).optional(), 'Name server to ask; absent = the system resolver'),
    port: doc(z.number().int().min(1).max(65535).optional(), 'Name server port', 53),
    assertions: doc(z.array(dnsAssertion).max(MAX_ASSERTIONS).optional(), `Assertions on the answer (at most ${MAX_ASSERTIONS})`, []),
    protocol: dnsProtocol.optional(),
  });

  // URL monitors and API checks (reference ChecksV1UrlRequest / ChecksV1ApiRequest). Assertions:
  // source and comparison required; target, property and regex default to "" (regex may be null).
  const httpAssertion = <Src extends readonly [string, ...string[]], Cmp extends readonly [string, ...string[]]>(sources: Src, comparisons: Cmp) =>
    obj({
      source: z.enum(sources),
      comparison: z.enum(comparisons),
      property: doc(z.string().optional(), 'JSON_BODY: JSON path such as $.data.id; HEADERS: header name', ''),
      target: doc(z.string().optional(), 'Value compared with the source', ''),
      regex: doc(z.string().nullable().optional(), 'Regular expression applied to the source; its first group is compared', ''),
    });
  const urlAssertion = httpAssertion(URL_ASSERTION_SOURCES, URL_COMPARISONS);
  const apiAssertion = httpAssertion(API_ASSERTION_SOURCES, API_COMPARISONS);
  const httpUrl = doc(z.string().min(1).max(2048).regex(HTTP_URL, 'must be an http:// or https:// URL'), 'URL requested (http or https, at most 2048 characters)');
  const httpCommon = {
    url: httpUrl,
    followRedirects: doc(z.boolean().optional(), 'Follow redirects', true),
    skipSSL: doc(z.boolean().optional(), 'Do not verify the TLS certificate', false),
    ipFamily: ipFamily.optional(),
  };
  const httpKeyValue = (what: 'header' | 'query') =>
    obj({
      key: what === 'header' ? doc(z.string().min(1).max(256).regex(HEADER_NAME, 'must be an HTTP header name'), 'Header name') : doc(z.string().min(1).max(1024), 'Parameter name'),
      value:
        what === 'header'
          ? doc(z.string().max(8192).regex(HEADER_VALUE, 'must not contain CR, LF or NUL'), 'Header value')
          : doc(z.string().max(8192), 'Parameter value (URL-encoded when sent)'),
      locked: doc(z.boolean().optional(), 'Hide the value in the UI and in plans', false),
    });
  // ICMP monitors (reference ChecksV1IcmpRequest / ChecksV1IcmpAssertion).
  const icmpAssertion = obj({
    source: z.enum(ICMP_ASSERTION_SOURCES),
    comparison: z.enum(ICMP_COMPARISONS),
    property: doc(z.string().optional(), 'LATENCY: avg, min, max or stdDev; JSON_RESPONSE: JSON path such as $.packetLoss', ''),
    target: doc(z.string().optional(), 'Value compared with the source', ''),
    regex: doc(z.string().nullable().optional(), 'Regular expression applied to the source; its first group is compared', ''),
  });
  const icmpRequest = obj({
    hostname: doc(z.string().min(1).max(2048), 'Host name or IP address to ping'),
    ipFamily: doc(z.enum(['IPv4', 'IPv6']).nullable().optional(), 'IP family of the echo requests', 'IPv4'),
    pingCount: doc(
      z.number().int().min(ICMP_PING_COUNT.min).max(ICMP_PING_COUNT.max).nullable().optional(),
      `Echo requests per run (${ICMP_PING_COUNT.min}..${ICMP_PING_COUNT.max})`,
      ICMP_PING_COUNT.default,
    ),
    assertions: doc(z.array(icmpAssertion).max(MAX_ASSERTIONS).optional(), `Assertions on the latency and on the JSON document of the run (at most ${MAX_ASSERTIONS})`, []),
  });
  const icmpResponseTime = () => z.number().min(0).max(ICMP_MAX_RESPONSE_TIME).nullable().optional();
  const packetLoss = () => z.number().gt(0).max(100).nullable().optional();
  /** Thresholds of ICMP monitors: average latency (ms) and packet loss (%). */
  const icmpThresholds = {
    degradedResponseTime: doc(icmpResponseTime(), `Average latency (ms, 0..${ICMP_MAX_RESPONSE_TIME}) from which the monitor is degraded`, 10000),
    maxResponseTime: doc(icmpResponseTime(), `Average latency (ms, 0..${ICMP_MAX_RESPONSE_TIME}) from which the monitor fails`, 20000),
    degradedPacketLossThreshold: doc(packetLoss(), 'Packet loss (%, above 0, at most 100) from which the monitor is degraded', 10),
    maxPacketLossThreshold: doc(packetLoss(), 'Packet loss (%, above 0, at most 100) from which the monitor fails', 20),
  };

  const basicAuth = obj({
    username: doc(z.string(), 'User name'),
    password: doc(z.string(), 'Password; masked in plans'),
  });
  const urlRequest = obj({
    method: doc(z.literal('GET').optional(), 'URL monitors only GET', 'GET'),
    ...httpCommon,
    assertions: doc(z.array(urlAssertion).max(MAX_ASSERTIONS).optional(), `Assertions on the status code (at most ${MAX_ASSERTIONS})`, []),
  });
  const apiRequest = obj({
    method: apiMethod,
    ...httpCommon,
    body: doc(z.string().optional(), 'Request body', ''),
    bodyType: bodyType.optional(),
    headers: doc(z.array(httpKeyValue('header')).max(MAX_HTTP_PAIRS).optional(), `Request headers (at most ${MAX_HTTP_PAIRS})`, []),
    queryParameters: doc(z.array(httpKeyValue('query')).max(MAX_HTTP_PAIRS).optional(), `Query parameters appended to the URL (at most ${MAX_HTTP_PAIRS})`, []),
    assertions: doc(z.array(apiAssertion).max(MAX_ASSERTIONS).optional(), `Assertions on the response (at most ${MAX_ASSERTIONS})`, []),
    basicAuth: doc(basicAuth.nullable().optional(), 'Basic authentication', null),
  });

  const alertSettings = obj({
    escalationType: escalationType.optional(),
    runBasedEscalation: obj({
      failedRunThreshold: doc(z.number().int().min(1).max(5), 'Consecutive failing runs before alerting (1..5)'),
    }).optional(),
    timeBasedEscalation: obj({
      minutesFailingThreshold: oneOfNumbers(MINUTES_FAILING_THRESHOLDS),
    }).optional(),
    reminders: obj({
      amount: doc(
        z.number().int().refine((n) => (n >= 0 && n <= 5) || n === 100000, 'must be 0..5 or 100000').optional(),
        'Reminders sent while failing: 0..5, or 100000 for unlimited',
      ),
      interval: oneOfNumbers(REMINDER_INTERVALS).optional(),
    }).optional(),
    parallelRunFailureThreshold: obj({
      enabled: z.boolean().optional(),
      percentage: doc(z.number().int().min(10).max(100).multipleOf(10).optional(), 'Percentage of failing locations (10..100, step 10)'),
    }).optional(),
  });

  const retryStrategy = obj({
    type: retryStrategyType,
    baseBackoffSeconds: doc(z.number().min(0).max(600).optional(), 'Base wait between retries (0..600 s)', 60),
    maxRetries: doc(z.number().int().min(1).max(10).optional(), 'Retries (1..10; SINGLE_RETRY allows 1)', 2),
    maxDurationSeconds: doc(z.number().min(0).max(600).optional(), 'Longest time spent retrying (0..600 s)', 600),
    sameRegion: doc(z.boolean().optional(), 'Retry in the same location', true),
    onlyOn: doc(z.array(z.string().min(1)).optional(), 'Error classes that trigger a retry, e.g. NETWORK_ERROR; [] = any failure', []),
  });

  const triggerIncident = obj({
    serviceId: doc(z.string().min(1), 'Status-page service the incident is opened on'),
    severity,
    name: doc(z.string().min(1).max(255), 'Incident name'),
    description: doc(z.string(), 'Text of the first incident update'),
    notifySubscribers: z.boolean(),
  });

  const environmentVariable = obj({
    key: doc(z.string().regex(VARIABLE_KEY, VARIABLE_KEY_RULE), 'Variable name'),
    value: doc(z.string(), 'Variable value'),
    locked: doc(z.boolean().optional(), 'Hide the value in the UI', false),
    secret: doc(z.boolean().optional(), 'Write-only value; cannot be turned off once set', false),
  });
  const environmentVariables = doc(
    z.array(environmentVariable).max(MAX_CHECK_VARIABLES).nullable(),
    `Environment variables of the check (at most ${MAX_CHECK_VARIABLES})`,
  );

  const alertChannelSubscription = obj({
    alertChannelId: doc(z.number().int().min(1), 'API id of the alert channel'),
    activated: z.boolean(),
  });

  // DNS heartbeat: free-form ({} allowed) but known keys are type-checked (api-decisions §2).
  const dnsHeartbeat = z.looseObject({
    period: z.number().gt(0).optional(),
    periodUnit: heartbeatUnit.optional(),
    grace: z.number().min(0).optional(),
    graceUnit: heartbeatUnit.optional(),
  });
  const heartbeat = obj({
    period: doc(z.number().gt(0), 'Expected time between pings'),
    periodUnit: heartbeatUnit,
    grace: doc(z.number().min(0), 'Extra time allowed after the period before the check fails'),
    graceUnit: heartbeatUnit,
  });

  /** Fields every check type shares (spec 2.1), all optional: the caller decides what is required. */
  const checkShared = {
    name: doc(z.string().min(1).optional(), 'Check name'),
    activated: doc(z.boolean().optional(), 'Whether the check runs', true),
    muted: doc(z.boolean().optional(), 'When true, no notifications go out', false),
    doubleCheck: doc(z.boolean().optional(), 'Deprecated: retry once on failure (retryStrategy replaces it)', true),
    shouldFail: doc(z.boolean().optional(), 'Invert the failure criterion', false),
    locations: doc(z.array(location).nullable().optional(), 'Public locations that run the check', []),
    tags: doc(z.array(z.string()).optional(), 'Tags for organizing and filtering checks', []),
    alertSettings: doc(alertSettings.optional(), 'Alert escalation and reminders'),
    useGlobalAlertSettings: doc(z.boolean().optional(), "Use the account's alert settings instead of the check's", true),
    groupId: doc(z.number().int().min(1).nullable().optional(), 'Check group id', null),
    groupOrder: doc(z.number().min(0).nullable().optional(), 'Position in the group (>= 0)', null),
    runtimeId: runtimeId.nullable().optional(),
    alertChannelSubscriptions: doc(z.array(alertChannelSubscription).optional(), 'Alert channels by API id', []),
    retryStrategy: doc(retryStrategy.nullable().optional(), 'Retries on failure', null),
    triggerIncident: doc(triggerIncident.nullable().optional(), 'Open and resolve a status-page incident from alerts', null),
    runParallel: doc(z.boolean().optional(), 'Run in all locations at once', false),
    privateLocations: doc(z.array(z.string().regex(PRIVATE_LOCATION_SLUG, 'must be a private-location slug')).nullable().optional(), 'Private locations (slugs) that run the check', []),
    frequencyOffset: doc(z.number().int().min(1).optional(), 'Seconds: the sub-minute interval when frequency is 0, else the start offset'),
  };

  /** Response-time thresholds of TCP and DNS checks (0..5000 ms). */
  const thresholds = {
    degradedResponseTime: doc(responseTime(), 'Response time (ms, 0..5000) from which the check is degraded'),
    maxResponseTime: doc(responseTime(), 'Response time (ms, 0..5000) from which the check fails'),
  };

  /** Response-time thresholds of URL monitors and API checks (0..45000 ms, the reference). */
  const httpResponseTime = () => z.number().min(0).max(HTTP_MAX_RESPONSE_TIME).nullable().optional();
  const httpThresholds = {
    degradedResponseTime: doc(httpResponseTime(), `Response time (ms, 0..${HTTP_MAX_RESPONSE_TIME}) from which the check is degraded`),
    maxResponseTime: doc(httpResponseTime(), `Response time (ms, 0..${HTTP_MAX_RESPONSE_TIME}) from which the check fails`),
  };

  /** API-check fields besides request (reference ChecksV1ApiCheckCreate), all optional. */
  const apiExtras = {
    setupSnippetId: doc(z.number().int().min(1).nullable().optional(), 'API id of the setup snippet', null),
    tearDownSnippetId: doc(z.number().int().min(1).nullable().optional(), 'API id of the teardown snippet', null),
    localSetupScript: doc(z.string().nullable().optional(), 'JavaScript run before the request', null),
    localTearDownScript: doc(z.string().nullable().optional(), 'JavaScript run after the request', null),
  };

  /** DNS-only create/update fields besides request (spec 2.3), all optional. */
  const dnsExtras = {
    heartbeat: doc(dnsHeartbeat.optional(), 'Heartbeat settings of the DNS check (free-form)', {}),
    script: doc(z.string().optional(), 'Script of the check; may be empty', ''),
    scriptPath: doc(z.string().nullable().optional(), 'Path of the script in the runtime'),
    sslCheckDomain: z.string().optional(),
    environmentVariables: environmentVariables.optional(),
    setupSnippetId: doc(z.number().int().min(1).nullable().optional(), 'API id of the setup snippet'),
    tearDownSnippetId: doc(z.number().int().min(1).nullable().optional(), 'API id of the teardown snippet'),
    localSetupScript: doc(z.string().nullable().optional(), 'JavaScript run in the setup phase'),
    localTearDownScript: doc(z.string().nullable().optional(), 'JavaScript run in the teardown phase'),
  };

  /** Multi-step fields (spec 2.4), all optional. */
  const multiStepExtras = {
    script: doc(z.string().min(1).nullable().optional(), 'JavaScript of the multi-step interaction (null or non-empty)'),
    environmentVariables: environmentVariables.optional(),
    scriptPath: doc(z.string().nullable().optional(), 'Path of the script in the runtime (write-only)'),
    dependencies: doc(
      z.array(obj({ path: z.string().min(1).max(1000), content: z.string() })).nullable().optional(),
      'Dependency files (write-only)',
    ),
  };

  /** Browser-check fields (reference ChecksV1BrowserCheckCreate): the multi-step ones plus sslCheckDomain. */
  const browserExtras = {
    ...multiStepExtras,
    script: doc(z.string().min(1).nullable().optional(), 'Playwright Test script using page, run in Chromium (null or non-empty)'),
    sslCheckDomain: doc(z.string().nullable().optional(), 'Domain whose certificate is watched', null),
  };

  const keyValue = obj({ key: z.string(), value: z.string(), locked: z.boolean().optional() });
  /** Alert channel config per type (api-decisions §3.5). */
  const alertChannelConfigs = {
    EMAIL: obj({ address: doc(z.email(), 'Address that receives alerts') }),
    SLACK: obj({ url: doc(z.url(), 'Slack incoming-webhook URL'), channel: z.string().optional() }),
    WEBHOOK: obj({
      name: z.string().min(1),
      url: doc(z.url(), 'URL called on alerts'),
      method: webhookMethod.optional(),
      template: doc(z.string().optional(), 'Body template; empty = the default JSON body', ''),
      headers: doc(z.array(keyValue).optional(), 'Request headers', []),
      queryParameters: doc(z.array(keyValue).optional(), 'Query parameters', []),
      webhookSecret: doc(z.string().nullable().optional(), 'Secret used to sign the request', null),
      webhookType: z.string().nullable().optional(),
    }),
    SMS: obj({ number: doc(z.string().regex(E164, 'must be an E.164 number such as +4915112345678'), 'Phone number'), name: z.string().min(1) }),
    CALL: obj({ number: doc(z.string().regex(E164, 'must be an E.164 number such as +4915112345678'), 'Phone number'), name: z.string().min(1) }),
    PAGERDUTY: obj({ serviceKey: z.string().min(1), serviceName: z.string().optional(), account: z.string().optional() }),
    OPSGENIE: obj({ apiKey: z.string().min(1), name: z.string().optional(), region: opsgenieRegion.optional(), priority: opsgeniePriority.optional() }),
  };
  // The other of checkId/groupId may be null, as a channel's subscriptions read back (reference: nullable).
  const alertChannelSubscriptionItem = obj({
    checkId: z.string().min(1).nullish(),
    groupId: z.number().int().min(1).nullish(),
    activated: z.boolean(),
  });
  /** Alert channel fields besides type and config (spec 2.10), all optional. */
  const alertChannelShared = {
    sendRecovery: doc(z.boolean().optional(), 'Alert when a check recovers', true),
    sendFailure: doc(z.boolean().optional(), 'Alert when a check fails', true),
    sendDegraded: doc(z.boolean().optional(), 'Alert when a check degrades', false),
    sslExpiry: doc(z.boolean().optional(), 'Alert on expiring SSL certificates', false),
    sslExpiryThreshold: doc(z.number().int().min(1).max(30).optional(), 'Days before expiry to start alerting (1..30)', 30),
    autoSubscribe: doc(z.boolean().optional(), 'Subscribe newly created checks', false),
    subscriptions: doc(z.array(alertChannelSubscriptionItem).optional(), 'Subscribed checks or groups (checkId xor groupId)', []),
  };

  /** Dashboard fields (spec 2.5, api-decisions §3.4), all optional. */
  const dashboard = {
    header: doc(z.string().optional(), 'Text at the top of the dashboard (required on create)'),
    customUrl: doc(z.string().regex(CUSTOM_URL, 'must be 1..63 of [a-z0-9-] without a leading or trailing -').optional(), 'Subdomain of the dashboard; unique across all accounts'),
    customDomain: doc(z.string().nullable().optional(), 'Custom domain', null),
    logo: doc(z.string().nullable().optional(), 'URL of the logo image', null),
    favicon: doc(z.string().nullable().optional(), 'URL of the favicon', null),
    link: doc(z.string().nullable().optional(), 'URL opened when the logo is clicked', null),
    description: doc(z.string().nullable().optional(), 'Text below the header', null),
    width: dashboardWidth.optional(),
    refreshRate: doc(oneOfNumbers(REFRESH_RATES).optional(), 'Seconds between refreshes', 60),
    paginate: doc(z.boolean().optional(), 'Page through checks', true),
    paginationRate: doc(oneOfNumbers(PAGINATION_RATES).optional(), 'Seconds per page', 60),
    checksPerPage: doc(z.number().int().min(1).max(20).nullable().optional(), 'Checks per page (1..20)', 15),
    useTagsAndOperator: doc(z.boolean().nullable().optional(), 'Match all tags instead of any', false),
    hideTags: doc(z.boolean().optional(), 'Hide tags', false),
    enableIncidents: doc(z.boolean().optional(), 'Show incidents', false),
    expandChecks: doc(z.boolean().optional(), 'Expand checks', false),
    tags: doc(z.array(z.string()).optional(), 'Only checks with these tags are shown', []),
    showHeader: doc(z.boolean().optional(), 'Show header and description', true),
    showCheckRunLinks: doc(z.boolean().optional(), 'Show check-run links', false),
    customCSS: doc(z.string().nullable().optional(), 'Custom CSS', ''),
    isPrivate: doc(z.boolean().optional(), 'Private dashboards are read with keys', false),
    showP95: doc(z.boolean().optional(), 'Show p95', true),
    showP99: doc(z.boolean().optional(), 'Show p99', true),
  };

  /** Snippet fields (spec 2.8). */
  const snippet = {
    name: doc(z.string().min(1), 'Snippet name'),
    script: doc(z.string().min(1), 'JavaScript of the snippet'),
  };

  /** Account environment variable fields (spec 2.9, api-decisions §3.6). */
  const variable = {
    key: doc(z.string().regex(VARIABLE_KEY, VARIABLE_KEY_RULE), 'Variable name; cannot change'),
    value: doc(z.string().min(1), 'Variable value'),
    locked: doc(z.boolean().optional(), 'Hide the value in the UI', false),
    secret: doc(z.boolean().optional(), 'Write-only value; cannot be turned off once set', false),
  };

  const { frequencyOffset: _multiStepHasNoOffset, ...sharedWithoutOffset } = checkShared;
  /**
   * Full body shapes per check type (every field optional; the caller decides what a create
   * requires). `frequency` takes the type's allowed values (spec 2.1.5).
   */
  const checkBodies = {
    TCP: { ...checkShared, ...thresholds, frequency: subminuteFrequency.optional(), request: tcpRequest.optional() },
    DNS: { ...checkShared, ...thresholds, ...dnsExtras, frequency: subminuteFrequency.optional(), request: dnsRequest.optional() },
    MULTI_STEP: { ...sharedWithoutOffset, ...multiStepExtras, frequency: minuteFrequency.optional() },
    BROWSER: { ...sharedWithoutOffset, ...browserExtras, frequency: minuteFrequency.optional() },
    HEARTBEAT: { ...checkShared, frequency: minuteFrequency.optional(), heartbeat: heartbeat.optional() },
    URL: { ...checkShared, ...httpThresholds, frequency: subminuteFrequency.optional(), request: urlRequest.optional() },
    API: { ...checkShared, ...httpThresholds, ...apiExtras, frequency: subminuteFrequency.optional(), request: apiRequest.optional() },
    ICMP: { ...checkShared, ...icmpThresholds, frequency: subminuteFrequency.optional(), request: icmpRequest.optional() },
  };

  return {
    checkBodies,
    tcpAssertion, dnsAssertion, tcpRequest, dnsRequest, icmpAssertion, icmpRequest, icmpThresholds, urlAssertion, apiAssertion, urlRequest, apiRequest, basicAuth, httpThresholds, apiExtras, alertSettings, retryStrategy, triggerIncident,
    environmentVariable, environmentVariables, alertChannelSubscription, dnsHeartbeat, heartbeat,
    checkShared, thresholds, dnsExtras, multiStepExtras, browserExtras, alertChannelConfigs, alertChannelSubscriptionItem,
    alertChannelShared, dashboard, snippet, variable, keyValue,
  };
}

/** The API field schemas built for one unknown-key mode. */
export type ApiFields = ReturnType<typeof build>;

const cache = new Map<ObjectMode, ApiFields>();

/** API field schemas and shapes for `mode`: `strict` rejects unknown keys, `strip` drops them. */
export function apiFields(mode: ObjectMode): ApiFields {
  let fields = cache.get(mode);
  if (!fields) cache.set(mode, (fields = build(mode)));
  return fields;
}
