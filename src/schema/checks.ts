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

/** A DNS check definition; the only check kind whose API body references snippets. */
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
