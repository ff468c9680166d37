/**
 * Cross-field rules of the API (spec 2.1.5, 2.1.6; api-decisions §2, §3) as pure functions over
 * plain bodies, so the definitions' rules phase and the local service (on merged PUT results)
 * apply the same rules.
 */
import { ICMP_LATENCY_PROPERTIES, MINUTE_FREQUENCIES, SUBMINUTE_FREQUENCIES } from './values.js';

/** One rule violation: a dot-joined field path ('' = whole body) and what is wrong. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** The API's check types that definitions can declare. */
export type ApiCheckType = 'TCP' | 'DNS' | 'MULTI_STEP' | 'BROWSER' | 'HEARTBEAT' | 'URL' | 'API' | 'ICMP';

/** Per check type: allowed frequencies, whether frequency 0 exists, and threshold defaults. */
export interface CheckTypeRules {
  frequencies: readonly number[];
  /** Frequency 0 (runs every frequencyOffset seconds) is allowed. */
  subMinute: boolean;
  /** Whether the body has frequencyOffset (multi-step bodies do not, spec 2.4). */
  hasFrequencyOffset: boolean;
  /** Server defaults of degradedResponseTime / maxResponseTime; null = the type has no thresholds. */
  thresholds: { degradedResponseTime: number; maxResponseTime: number } | null;
}

/** One row per check type. Heartbeat checks run on minute frequencies like multi-step ones. */
export const CHECK_TYPE_RULES: Record<ApiCheckType, CheckTypeRules> = {
  TCP: { frequencies: SUBMINUTE_FREQUENCIES, subMinute: true, hasFrequencyOffset: true, thresholds: { degradedResponseTime: 3000, maxResponseTime: 5000 } },
  // api-decisions §2: DNS allows frequency 0 as the 2.1.5 table lists it.
  DNS: { frequencies: SUBMINUTE_FREQUENCIES, subMinute: true, hasFrequencyOffset: true, thresholds: { degradedResponseTime: 500, maxResponseTime: 1000 } },
  // URL monitors and API checks: the reference's frequencies (0 included: spec 2.1.6 names API
  // checks for sub-minute runs) and thresholds (0..45000 ms).
  URL: { frequencies: SUBMINUTE_FREQUENCIES, subMinute: true, hasFrequencyOffset: true, thresholds: { degradedResponseTime: 3000, maxResponseTime: 5000 } },
  API: { frequencies: SUBMINUTE_FREQUENCIES, subMinute: true, hasFrequencyOffset: true, thresholds: { degradedResponseTime: 5000, maxResponseTime: 20000 } },
  // ICMP monitors (reference ChecksV1IcmpMonitorCreate): response time is the average latency.
  ICMP: { frequencies: SUBMINUTE_FREQUENCIES, subMinute: true, hasFrequencyOffset: true, thresholds: { degradedResponseTime: 10000, maxResponseTime: 20000 } },
  MULTI_STEP: { frequencies: MINUTE_FREQUENCIES, subMinute: false, hasFrequencyOffset: false, thresholds: null },
  // Browser checks (reference ChecksV1BrowserCheckCreate): minute frequencies, no offset, no thresholds.
  BROWSER: { frequencies: MINUTE_FREQUENCIES, subMinute: false, hasFrequencyOffset: false, thresholds: null },
  HEARTBEAT: { frequencies: MINUTE_FREQUENCIES, subMinute: false, hasFrequencyOffset: true, thresholds: null },
};

/** Default frequency (minutes) when a body omits it (api-decisions §3.1). */
export const DEFAULT_FREQUENCY = 10;
/** Offsets (seconds) allowed with frequency 0. */
export const SUBMINUTE_OFFSETS = [10, 20, 30] as const;

/**
 * The frequencyOffset rule of spec 2.1.6 for one frequency: 10, 20 or 30 when frequency is 0
 * (where allowed); 1..floor(f*10) up to 60 minutes; 1..ceil(f/60) above. Undefined offset is fine
 * except with frequency 0, which needs it.
 */
export function frequencyOffsetIssue(frequency: number | undefined, offset: number | undefined): FieldIssue | undefined {
  const f = frequency ?? DEFAULT_FREQUENCY;
  if (f === 0) {
    if (offset === undefined) return { path: 'frequency', message: 'frequency 0 needs frequencyOffset 10, 20 or 30 (seconds between runs)' };
    if (!(SUBMINUTE_OFFSETS as readonly number[]).includes(offset))
      return { path: 'frequencyOffset', message: `must be 10, 20 or 30 when frequency is 0, got ${offset}` };
    return undefined;
  }
  if (offset === undefined) return undefined;
  const max = maxFrequencyOffset(f);
  if (offset < 1 || offset > max) return { path: 'frequencyOffset', message: `must be between 1 and ${max} when frequency is ${f}, got ${offset}` };
  return undefined;
}

/** Largest frequencyOffset for a frequency above 0 (spec 2.1.6). */
export function maxFrequencyOffset(frequency: number): number {
  return frequency <= 60 ? Math.floor(frequency * 10) : Math.ceil(frequency / 60);
}

/** SINGLE_RETRY retries exactly once (api-decisions §3.1). */
export function retryStrategyIssue(retryStrategy: unknown): FieldIssue | undefined {
  if (!isRecord(retryStrategy)) return undefined;
  if (retryStrategy.type === 'SINGLE_RETRY' && retryStrategy.maxRetries !== undefined && retryStrategy.maxRetries !== 1)
    return { path: 'retryStrategy.maxRetries', message: `SINGLE_RETRY retries once; maxRetries must be 1, got ${String(retryStrategy.maxRetries)}` };
  return undefined;
}

/** Cross-field rules of a check body of `type` (already structurally valid). */
export function checkRuleIssues(type: ApiCheckType, body: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const rules = CHECK_TYPE_RULES[type];
  if (rules.hasFrequencyOffset) {
    const issue = frequencyOffsetIssue(asNumber(body.frequency), asNumber(body.frequencyOffset));
    if (issue) issues.push(issue);
  }
  const retry = retryStrategyIssue(body.retryStrategy);
  if (retry) issues.push(retry);
  if (type === 'ICMP') issues.push(...icmpAssertionIssues(body.request));
  return issues;
}

/** A LATENCY assertion names the statistic it reads: avg, min, max or stdDev (the reference's latency(property)). */
export function icmpAssertionIssues(request: unknown): FieldIssue[] {
  if (!isRecord(request) || !Array.isArray(request.assertions)) return [];
  return request.assertions.flatMap((a: unknown, i) =>
    isRecord(a) && a.source === 'LATENCY' && !(ICMP_LATENCY_PROPERTIES as readonly unknown[]).includes(a.property)
      ? [{ path: `request.assertions.${i}.property`, message: `a LATENCY assertion reads ${ICMP_LATENCY_PROPERTIES.join(', ')}, got ${JSON.stringify(a.property ?? '')}` }]
      : [],
  );
}

/** Alert-channel subscription items name a check or a group, never both (api-decisions §3.5). */
export function alertChannelRuleIssues(body: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const subs = Array.isArray(body.subscriptions) ? body.subscriptions : [];
  subs.forEach((item, i) => {
    if (!isRecord(item)) return;
    const hasCheck = item.checkId !== undefined && item.checkId !== null;
    const hasGroup = item.groupId !== undefined && item.groupId !== null;
    if (hasCheck === hasGroup) issues.push({ path: `subscriptions.${i}`, message: 'needs exactly one of checkId and groupId' });
  });
  return issues;
}

function asNumber(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
