/** Definition schemas of the check kinds: API field names plus kind, id, state and references. */
import { z } from 'zod';
import { apiFields, doc, minuteFrequency, subminuteFrequency } from './fields.js';
import { adoptField, alertChannelsField, groupRefField, idField, kindField, privateLocationsField, renamedFromField, triggerIncidentField, scriptFileField, snippetRefField, stateField } from './common.js';

const f = apiFields('strict');

const required = {
  name: doc(z.string().min(1), 'Check name'),
};

/** Definition-only fields of every check. */
const checkDefinitionFields = {
  id: idField,
  renamedFrom: renamedFromField,
  adopt: adoptField,
  state: stateField,
  alertChannels: alertChannelsField,
  group: groupRefField,
};

/** A TCP check definition. */
export const TcpCheckSchema = z.strictObject({
  kind: kindField('TcpCheck'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  ...f.thresholds,
  frequency: doc(subminuteFrequency.optional(), 'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds', 10),
  request: doc(f.tcpRequest, 'What to connect to and what to assert'),
});

/** A DNS check definition; its API body references snippets (like API checks'). */
export const DnsCheckSchema = z.strictObject({
  kind: kindField('DnsCheck'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  ...f.thresholds,
  ...f.dnsExtras,
  frequency: doc(subminuteFrequency.optional(), 'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds', 10),
  request: doc(f.dnsRequest, 'What to resolve and what to assert'),
  setupSnippet: snippetRefField('setup'),
  tearDownSnippet: snippetRefField('teardown'),
  scriptFile: scriptFileField,
});

/** A multi-step check definition; `script` or `scriptFile` is required. */
export const MultiStepCheckSchema = z.strictObject({
  kind: kindField('MultiStepCheck'),
  ...checkDefinitionFields,
  ...f.checkBodies.MULTI_STEP,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  frequency: doc(minuteFrequency.optional(), 'Minutes between runs', 10),
  scriptFile: scriptFileField,
});

/** A browser check definition: a Playwright Test script using `page`; `script` or `scriptFile` is required. */
export const BrowserCheckSchema = z.strictObject({
  kind: kindField('BrowserCheck'),
  ...checkDefinitionFields,
  ...f.checkBodies.BROWSER,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  frequency: doc(minuteFrequency.optional(), 'Minutes between runs', 10),
  scriptFile: scriptFileField,
});

/** A heartbeat check definition: pinged by a job, fails when pings stop (api-decisions §5.5). */
export const HeartbeatCheckSchema = z.strictObject({
  kind: kindField('HeartbeatCheck'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  frequency: doc(minuteFrequency.optional(), 'Minutes between evaluations', 10),
  heartbeat: doc(f.heartbeat, 'Expected ping period and grace time'),
});

/** A URL monitor definition: a GET of one URL, assertions on the status code (reference ChecksV1UrlMonitorCreate). */
export const UrlMonitorSchema = z.strictObject({
  kind: kindField('UrlMonitor'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  degradedResponseTime: doc(f.httpThresholds.degradedResponseTime, 'Response time (ms, 0..45000) from which the monitor is degraded', 3000),
  maxResponseTime: doc(f.httpThresholds.maxResponseTime, 'Response time (ms, 0..45000) from which the monitor fails', 5000),
  frequency: doc(subminuteFrequency.optional(), 'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds', 10),
  request: doc(f.urlRequest, 'The URL requested (GET) and the status-code assertions'),
});

/** An API check definition: one HTTP request with assertions; may run setup and teardown snippets (reference ChecksV1ApiCheckCreate). */
export const ApiCheckSchema = z.strictObject({
  kind: kindField('ApiCheck'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  degradedResponseTime: doc(f.httpThresholds.degradedResponseTime, 'Response time (ms, 0..45000) from which the check is degraded', 5000),
  maxResponseTime: doc(f.httpThresholds.maxResponseTime, 'Response time (ms, 0..45000) from which the check fails', 20000),
  ...f.apiExtras,
  frequency: doc(subminuteFrequency.optional(), 'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds', 10),
  request: doc(f.apiRequest, 'The HTTP request (method, url, headers, body, basic auth) and its assertions'),
  setupSnippet: snippetRefField('setup'),
  tearDownSnippet: snippetRefField('teardown'),
});

/** An ICMP monitor definition: echo requests to one host, judged by loss and latency (reference ChecksV1IcmpMonitorCreate). */
export const IcmpMonitorSchema = z.strictObject({
  kind: kindField('IcmpMonitor'),
  ...checkDefinitionFields,
  ...f.checkShared,
  privateLocations: privateLocationsField,
  triggerIncident: triggerIncidentField,
  ...required,
  ...f.icmpThresholds,
  frequency: doc(subminuteFrequency.optional(), 'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds', 10),
  request: doc(f.icmpRequest, 'The host pinged, how many echo requests, and the assertions on latency and the JSON document of the run'),
});

/** Fields `defaults.check` of mac.config.yaml may set: any field of any check kind except identity. */
export const CheckDefaultsSchema = z
  .strictObject({
    ...f.checkShared,
    ...f.thresholds,
    frequency: doc(subminuteFrequency.optional(), 'Minutes between runs', 10),
    environmentVariables: f.environmentVariables.optional(),
    alertChannels: alertChannelsField,
  })
  .describe('Fields merged under every check that accepts them; a check\'s own value wins');
