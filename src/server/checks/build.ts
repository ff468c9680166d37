import { randomUUID } from 'node:crypto';
import { checkRuleIssues } from '../../schema/fields.js';
import { validationError, type FieldProblem } from '../http/errors.js';
import type { AccountView, StoredRecord } from '../store/store.js';
import { COLL } from '../kinds.js';
import type { CheckTypeSpec } from './types.js';

/** A stored check: the response fields minus the derived ones, plus write-only fields. */
export type StoredCheck = StoredRecord & { id: string; checkType: string; name: string; created_at: string; updated_at: string | null };

/** alertSettings default; partial objects are completed from it (api-decisions §3.1). */
export const DEFAULT_ALERT_SETTINGS = {
  escalationType: 'RUN_BASED',
  runBasedEscalation: { failedRunThreshold: 1 },
  reminders: { amount: 0, interval: 5 },
  parallelRunFailureThreshold: { enabled: false, percentage: 10 },
};

/** Defaults every check type shares on create (api-decisions §3.1). */
const SHARED_DEFAULTS = {
  activated: true,
  muted: false,
  doubleCheck: true,
  shouldFail: false,
  locations: [],
  privateLocations: [],
  tags: [],
  useGlobalAlertSettings: true,
  groupId: null,
  groupOrder: null,
  runtimeId: null,
  retryStrategy: null,
  triggerIncident: null,
  runParallel: false,
  frequency: 10,
  alertSettings: DEFAULT_ALERT_SETTINGS,
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function withAssertionDefaults(assertions: unknown): unknown {
  if (!Array.isArray(assertions)) return [];
  return assertions.map((a: Obj) => ({ property: '', regex: '', ...a }));
}

/** HTTP assertions: `target` defaults to "" too (reference ChecksV1UrlAssertion / ChecksV1ApiAssertion). */
function withHttpAssertionDefaults(assertions: unknown): unknown {
  if (!Array.isArray(assertions)) return [];
  return assertions.map((a: Obj) => ({ source: a.source, comparison: a.comparison, property: a.property ?? '', target: a.target ?? '', regex: a.regex === undefined ? '' : a.regex }));
}

/** Header and query-parameter items: `locked` defaults to false (reference ChecksV1KeyValue). */
function withKeyValueDefaults(items: unknown): unknown {
  if (!Array.isArray(items)) return [];
  return items.map((kv: Obj) => ({ key: kv.key, value: kv.value, locked: kv.locked ?? false }));
}

/** The request object of each type with its defaults (api-decisions §3.2; URL/API: the reference). */
const REQUEST_DEFAULTS: Record<string, (v: Obj) => Obj> = {
  TCP: (v) => ({ data: null, ipFamily: 'IPv4', ...v, assertions: withAssertionDefaults(v.assertions) }),
  DNS: (v) => ({ port: 53, protocol: 'UDP', ...v, assertions: withAssertionDefaults(v.assertions) }),
  // ipFamily and pingCount are nullable in the reference; null means the default.
  ICMP: (v) => ({ ...v, ipFamily: v.ipFamily ?? 'IPv4', pingCount: v.pingCount ?? 10, assertions: withHttpAssertionDefaults(v.assertions) }),
  URL: (v) => ({ method: 'GET', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', ...v, assertions: withHttpAssertionDefaults(v.assertions) }),
  API: (v) => ({
    followRedirects: true,
    skipSSL: false,
    ipFamily: 'IPv4',
    body: '',
    bodyType: 'NONE',
    basicAuth: null,
    ...v,
    headers: withKeyValueDefaults(v.headers),
    queryParameters: withKeyValueDefaults(v.queryParameters),
    assertions: withHttpAssertionDefaults(v.assertions),
  }),
};

// One completion per object field: applied to a present value, on create and on a PUT alike.
const COMPLETE: Record<string, (value: Obj, type: CheckTypeSpec, stored?: StoredCheck) => Obj> = {
  alertSettings: (v) => {
    const out: Obj = {
      escalationType: v.escalationType ?? DEFAULT_ALERT_SETTINGS.escalationType,
      runBasedEscalation: { ...DEFAULT_ALERT_SETTINGS.runBasedEscalation, ...(v.runBasedEscalation as Obj) },
      reminders: { ...DEFAULT_ALERT_SETTINGS.reminders, ...(v.reminders as Obj) },
      parallelRunFailureThreshold: { ...DEFAULT_ALERT_SETTINGS.parallelRunFailureThreshold, ...(v.parallelRunFailureThreshold as Obj) },
    };
    if (v.timeBasedEscalation !== undefined || out.escalationType === 'TIME_BASED') {
      out.timeBasedEscalation = { minutesFailingThreshold: 5, ...(v.timeBasedEscalation as Obj) };
    }
    return out;
  },
  retryStrategy: (v) => ({
    baseBackoffSeconds: 60,
    maxRetries: v.type === 'SINGLE_RETRY' ? 1 : 2,
    maxDurationSeconds: 600,
    sameRegion: true,
    onlyOn: [],
    ...v,
  }),
  triggerIncident: (v) => v,
  request: (v, type) => REQUEST_DEFAULTS[type.checkType](v),
  // The ping token is the server's: generated once, kept across PUTs that replace the object.
  heartbeat: (v, type, stored) =>
    type.checkType === 'HEARTBEAT' ? { ...v, pingToken: (stored?.heartbeat as Obj | undefined)?.pingToken ?? randomUUID() } : v,
};

/** The body's fields as they will be stored: objects completed, server-owned fields dropped. */
function normalize(body: Obj, type: CheckTypeSpec, stored?: StoredCheck): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || key === 'checkType' || key === 'alertChannelSubscriptions') continue;
    if (type.objects.includes(key) && isObj(value)) out[key] = COMPLETE[key](value, type, stored);
    else if ((key === 'locations' || key === 'privateLocations') && value === null) out[key] = [];
    else if (key === 'environmentVariables' && Array.isArray(value)) out[key] = value.map((e: Obj) => ({ locked: false, secret: false, ...e }));
    else out[key] = value;
  }
  return out;
}

/** A new check from a validated create body: defaults, then the body (api-decisions §3.1, §3.2). */
export function createCheck(body: Obj, type: CheckTypeSpec, id: string, now: string): StoredCheck {
  const normalized = normalize(body, type);
  const check = { id, name: body.name, checkType: type.checkType, ...SHARED_DEFAULTS, ...type.defaults, ...normalized, created_at: now, updated_at: null };
  return check as unknown as StoredCheck;
}

/** A stored check merged with a validated PUT body (api-decisions §1.6: omitted = unchanged). */
export function mergeCheck(stored: StoredCheck, body: Obj, type: CheckTypeSpec, now: string): StoredCheck {
  return { ...stored, ...normalize(body, type, stored), updated_at: now };
}

/**
 * The rules on the resulting check (frequencyOffset, retries) and its references, which must
 * exist in the account: group, private locations, alert channels, snippets, incident service.
 * Throws one 400 with every problem.
 */
export function checkRulesAndReferences(check: StoredCheck, body: Obj, view: AccountView): void {
  const problems: FieldProblem[] = checkRuleIssues(check.checkType as never, check);
  if (check.groupId != null && !view.get(COLL.checkGroups, check.groupId as number)) {
    problems.push({ path: 'groupId', message: `check group ${String(check.groupId)} does not exist` });
  }
  const slugs = new Set(view.list(COLL.privateLocations).map((p) => p.slugName));
  ((check.privateLocations as string[] | undefined) ?? []).forEach((slug, i) => {
    if (!slugs.has(slug)) problems.push({ path: `privateLocations.${i}`, message: `private location "${slug}" does not exist` });
  });
  const subs = body.alertChannelSubscriptions;
  if (Array.isArray(subs)) {
    subs.forEach((s: Obj, i) => {
      if (!view.get(COLL.alertChannels, s.alertChannelId as number)) {
        problems.push({ path: `alertChannelSubscriptions.${i}.alertChannelId`, message: `alert channel ${String(s.alertChannelId)} does not exist` });
      }
    });
  }
  for (const field of ['setupSnippetId', 'tearDownSnippetId']) {
    const ref = check[field];
    if (ref != null && !view.get(COLL.snippets, ref as number)) problems.push({ path: field, message: `snippet ${String(ref)} does not exist` });
  }
  const trigger = check.triggerIncident as Obj | null | undefined;
  if (trigger && !view.get(COLL.services, trigger.serviceId as string)) {
    problems.push({ path: 'triggerIncident.serviceId', message: `service "${String(trigger.serviceId)}" does not exist` });
  }
  if (problems.length > 0) throw validationError('payload', problems);
}
