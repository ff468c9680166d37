/** Definition schemas of snippets, dashboards, environment variables, alert channels, private locations, status pages and maintenance windows. */
import { z } from 'zod';
import { ALERT_CHANNEL_TYPES, CUSTOM_URL, LOCATIONS, PRIVATE_LOCATION_SLUG, THEME_COLOR_KEYS, apiFields, doc, themeColor } from './fields.js';
import { adoptField, idField, logicalId, kindField, renamedFromField, scriptFileField, stateField, variableRenamedFromField } from './common.js';

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

/**
 * A private location (api-decisions §3.6): matched by `slugName`, which never changes; `name`,
 * `icon` and `proxyUrl` are updated in place. Checks name it by logical id in `privateLocations`.
 */
export const PrivateLocationSchema = z.strictObject({
  kind: kindField('PrivateLocation'),
  id: idField,
  renamedFrom: renamedFromField,
  state: stateField,
  name: doc(z.string().min(1).max(255), 'Display name of the location'),
  slugName: doc(
    z
      .string()
      .regex(PRIVATE_LOCATION_SLUG, 'must be 1..30 of [a-zA-Z0-9-]')
      .refine((s) => !(LOCATIONS as readonly string[]).includes(s), 'must not be the name of a public location'),
    'Slug the checks run in (unique per account, cannot change); live private locations are matched by it',
  ),
  icon: doc(z.string().min(1).optional(), 'Icon of the location', 'location'),
  proxyUrl: doc(z.url().nullable().optional(), 'Proxy the agents of the location go through', null),
});

/**
 * A check group (api-decisions §3.3): matched by the ownership tag `mac:<project>/<id>` like
 * checks, so a new name is an update of the same group. Checks join it with `group: <id>`.
 */
export const CheckGroupSchema = z.strictObject({
  kind: kindField('CheckGroup'),
  id: idField,
  renamedFrom: doc(
    z.union([logicalId, z.array(logicalId).min(1)]).optional(),
    'Previous logical id (or ids) of this group: the live group tagged with the old id is updated in place instead of re-created',
  ),
  adopt: adoptField,
  state: stateField,
  name: doc(z.string().min(1), 'Group name'),
  activated: doc(z.boolean().optional(), 'Whether the checks of the group run', true),
  muted: doc(z.boolean().optional(), 'When true, no notifications go out for the group', false),
  tags: doc(z.array(z.string()).optional(), 'Tags of the group', []),
  locations: doc(z.array(z.enum(LOCATIONS)).optional(), 'Public locations of the group', []),
  concurrency: doc(z.number().int().min(1).max(10).optional(), 'How many checks of the group run at once (1..10)', 3),
});

/**
 * A status-page service: only a name. Matched by `name`; a rename lists the old name in
 * `previousNames`, so the live service (its incidents, the cards and checks pointing at it) is
 * updated in place instead of re-created.
 */
export const StatusPageServiceSchema = z.strictObject({
  kind: kindField('StatusPageService'),
  id: idField,
  state: stateField,
  name: doc(z.string().min(1).max(255), 'Service name; live services are matched by it'),
  previousNames: doc(
    z.array(z.string().min(1).max(255)).min(1).optional(),
    'Names the live service may still have: when no live service has `name`, the first unclaimed one with one of these names is renamed in place (keeping its id and incident history)',
  ),
});

const THEME = z.strictObject(Object.fromEntries(THEME_COLOR_KEYS.map((k) => [k, themeColor])) as Record<(typeof THEME_COLOR_KEYS)[number], typeof themeColor>);
const optionalText = z.string().max(2048).nullable().optional();

/** A status page: matched by `url` (unique across accounts); cards name services by logical id. */
export const StatusPageSchema = z.strictObject({
  kind: kindField('StatusPage'),
  id: idField,
  renamedFrom: renamedFromField,
  state: stateField,
  name: doc(z.string().min(1).max(255), 'Title of the page'),
  url: doc(z.string().min(1).max(255), 'Subdomain of the page, unique across all accounts; live status pages are matched by it'),
  cards: doc(
    z.array(
      z.strictObject({
        name: doc(z.string().min(1).max(255), 'Card title'),
        services: doc(z.array(logicalId).optional(), 'StatusPageService ids shown on the card, in order', []),
      }),
    ),
    'Cards of the page, in order',
  ),
  customDomain: doc(optionalText, 'Custom domain of the page', null),
  themeColors: doc(z.strictObject({ light: THEME, dark: THEME }).nullable().optional(), 'Colours of the light and dark themes', null),
  logo: doc(optionalText, 'Logo URL', null),
  redirectTo: doc(optionalText, 'Where the logo links to', null),
  favicon: doc(optionalText, 'Favicon URL', null),
  defaultTheme: doc(z.enum(['LIGHT', 'DARK', 'AUTO']).optional(), 'Theme shown first', 'AUTO'),
  whiteLabel: doc(z.boolean().optional(), 'Hide the vendor branding', false),
  uptimeWindowDays: doc(
    z.union([z.literal(30), z.literal(60), z.literal(90)], { error: 'must be 30, 60 or 90' }).optional(),
    'Days of the uptime bars on the public page: 30, 60 or 90 (a mac serve addition)',
    90,
  ),
});

/** Repeat units of a maintenance window (reference `repeatUnit`). */
export const REPEAT_UNITS = ['DAY', 'WEEK', 'MONTH'] as const;
/** A repeat unit. */
export type RepeatUnit = (typeof REPEAT_UNITS)[number];

/** Shortest length of one repeat unit in days (a month has at least 28): an occurrence may not outlast its period. */
export const MIN_UNIT_DAYS: Record<RepeatUnit, number> = { DAY: 1, WEEK: 7, MONTH: 28 };

const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date-time (2030-01-05T02:00:00Z) or date' });
const windowTags = z.array(z.string().min(1).max(255)).max(100);

/**
 * A maintenance window (reference MaintenanceWindowCreate): matched by `name`. The service
 * refuses `pauseAllChecks: true` (checks keep running in maintenance), so it is not a field here.
 */
export const MaintenanceWindowSchema = z.strictObject({
  kind: kindField('MaintenanceWindow'),
  id: idField,
  renamedFrom: renamedFromField,
  state: stateField,
  name: doc(z.string().min(1).max(200), 'Window name; live windows are matched by it'),
  tags: doc(windowTags.optional(), 'Checks with any of these tags alert no one while the window is in progress (they still run)', []),
  startsAt: doc(instant, 'Start of the first occurrence (ISO 8601; stored in UTC)'),
  endsAt: doc(instant, 'End of the first occurrence; after startsAt'),
  repeatUnit: doc(z.enum(REPEAT_UNITS).nullable().optional(), 'DAY, WEEK or MONTH; the window repeats when repeatInterval is set too', null),
  repeatInterval: doc(z.number().int().min(1).max(365).nullable().optional(), 'Repeat every N units from the first occurrence', null),
  repeatEndsAt: doc(z.union([z.iso.date(), z.iso.datetime({ offset: true })]).nullable().optional(), 'Last date (inclusive, in timezone) on which an occurrence may start', null),
  timezone: doc(
    z.string().refine(isTimeZoneName, 'must be an IANA time zone name such as "Europe/Berlin" (UTC offsets are not accepted)').nullable().optional(),
    'IANA time zone whose days, weeks and months the window repeats by (startsAt and endsAt stay instants); UTC when null',
    null,
  ),
  description: doc(z.string().max(2000).nullable().optional(), 'Shown on status pages with the window', null),
  silenceAlertsTags: doc(windowTags.optional(), 'More tags whose checks alert no one during the window', []),
  silenceAllAlerts: doc(z.boolean().optional(), 'Silence the alerts of every check of the account during the window', false),
});

/** Whether a string names an IANA time zone known to this runtime (offsets such as "+05:00" are not names). */
function isTimeZoneName(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Cross-field rules of a maintenance window's body (the service's, so that a plan fails before apply does). */
export function maintenanceWindowRuleIssues(spec: Record<string, unknown>): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  const start = Date.parse(String(spec.startsAt));
  const end = Date.parse(String(spec.endsAt));
  const interval = typeof spec.repeatInterval === 'number' ? spec.repeatInterval : null;
  const unit = typeof spec.repeatUnit === 'string' ? (spec.repeatUnit as (typeof REPEAT_UNITS)[number]) : null;
  const endsOn = typeof spec.repeatEndsAt === 'string' ? spec.repeatEndsAt.slice(0, 10) : null;
  if (end <= start) issues.push({ path: 'endsAt', message: 'must be after startsAt' });
  if (interval !== null && unit === null) issues.push({ path: 'repeatUnit', message: 'is required when repeatInterval is set' });
  if (endsOn !== null && interval === null) issues.push({ path: 'repeatEndsAt', message: 'is only allowed on a repeating window (set repeatInterval)' });
  // In another zone the start's date may differ from its UTC date: the service checks that one.
  const utc = spec.timezone === undefined || spec.timezone === null || spec.timezone === 'UTC';
  if (utc && endsOn !== null && Number.isFinite(start) && endsOn < new Date(start).toISOString().slice(0, 10)) issues.push({ path: 'repeatEndsAt', message: 'must not be before the date of startsAt' });
  if (interval !== null && unit !== null && end > start && end - start > interval * MIN_UNIT_DAYS[unit] * 86_400_000) {
    issues.push({ path: 'endsAt', message: `must be at most one repeat period (${interval} ${unit}) after startsAt` });
  }
  return issues;
}
