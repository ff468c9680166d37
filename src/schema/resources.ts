/** Definition schemas of snippets, dashboards, environment variables and alert channels. */
import { z } from 'zod';
import { ALERT_CHANNEL_TYPES, CUSTOM_URL, apiFields, doc } from './fields.js';
import { idField, kindField, renamedFromField, scriptFileField, stateField, variableRenamedFromField } from './common.js';

const f = apiFields('strict');

/** A snippet definition: `script` or `scriptFile` is required. Snippets are matched by name. */
export const SnippetSchema = z.strictObject({
  kind: kindField('Snippet'),
  id: idField,
  renamedFrom: renamedFromField,
  state: stateField,
  name: doc(z.string().min(1), 'Snippet name; live snippets are matched by name'),
  script: f.snippet.script.optional(),
  scriptFile: scriptFileField,
});

/** A dashboard definition. `customUrl` is required here because dashboards are matched by it. */
export const DashboardSchema = z.strictObject({
  kind: kindField('Dashboard'),
  id: idField,
  renamedFrom: renamedFromField,
  state: stateField,
  ...f.dashboard,
  header: doc(z.string(), 'Text at the top of the dashboard'),
  customUrl: doc(
    z.string().regex(CUSTOM_URL, 'must be 1..63 of [a-z0-9-] without a leading or trailing -'),
    'Subdomain of the dashboard, unique across all accounts; live dashboards are matched by it',
  ),
});

/** An account environment variable; its `key` is its logical id. */
export const EnvironmentVariableSchema = z.strictObject({
  kind: kindField('EnvironmentVariable'),
  renamedFrom: variableRenamedFromField,
  state: stateField,
  ...f.variable,
});

/** One alert-channel definition schema per channel type (config differs by type). */
function channelOf<T extends (typeof ALERT_CHANNEL_TYPES)[number], C extends z.ZodType>(type: T, config: C) {
  return z.strictObject({
    kind: kindField('AlertChannel'),
    id: idField,
    renamedFrom: renamedFromField,
    state: stateField,
    type: z.literal(type).describe('Alert channel type'),
    config: doc(config, `Settings of the ${type} channel`),
    ...f.alertChannelShared,
  });
}

const configs = f.alertChannelConfigs;

/** An alert channel definition, by `type`. Channels are matched by type plus address. */
export const AlertChannelSchema = z.discriminatedUnion('type', [
  channelOf('EMAIL', configs.EMAIL),
  channelOf('SLACK', configs.SLACK),
  channelOf('WEBHOOK', configs.WEBHOOK),
  channelOf('SMS', configs.SMS),
  channelOf('CALL', configs.CALL),
  channelOf('PAGERDUTY', configs.PAGERDUTY),
  channelOf('OPSGENIE', configs.OPSGENIE),
]);
