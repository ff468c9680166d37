/**
 * The value sets of the monitoring API (spec §2, §8; api-decisions §2, §3), as zod enums.
 * Shared by the definition schemas and by the local service's request validation.
 */
import { z } from 'zod';

/** Public data-center locations (spec 2.1.1). */
export const LOCATIONS = [
  'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'ca-central-1', 'sa-east-1',
  'eu-west-1', 'eu-central-1', 'eu-west-2', 'eu-west-3', 'eu-north-1', 'eu-south-1',
  'me-south-1', 'ap-southeast-1', 'ap-northeast-1', 'ap-east-1', 'ap-southeast-2',
  'ap-southeast-3', 'ap-northeast-2', 'ap-northeast-3', 'ap-south-1', 'af-south-1',
] as const;
/** A public location. */
export const location = z.enum(LOCATIONS).describe('Public data-center location');

/** Runtime versions a check may pin (spec 2.1). */
export const RUNTIME_IDS = ['2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10'] as const;
/** A runtime version. */
export const runtimeId = z.enum(RUNTIME_IDS).describe('Fixed set of runtime dependencies');

/** Frequencies (minutes) of TCP, DNS, URL and API checks (spec 2.1.5, the reference); 0 = sub-minute, set by frequencyOffset. */
export const SUBMINUTE_FREQUENCIES = [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
/** Frequencies (minutes) of multi-step and heartbeat checks (spec 2.1.5): no sub-minute runs. */
export const MINUTE_FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;

/** Builds a zod schema for one of the given numbers, with a message that lists them. */
export function oneOfNumbers<const T extends readonly number[]>(values: T): z.ZodLiteral<T[number]> {
  return z.literal([...values], { error: () => `must be one of ${values.join(', ')}` }) as z.ZodLiteral<T[number]>;
}

/** Frequency of a TCP, DNS, URL or API check. */
export const subminuteFrequency = oneOfNumbers(SUBMINUTE_FREQUENCIES).describe(
  'Minutes between runs; 0 runs every frequencyOffset (10, 20 or 30) seconds',
);
/** Frequency of a multi-step or heartbeat check. */
export const minuteFrequency = oneOfNumbers(MINUTE_FREQUENCIES).describe('Minutes between runs');

/** Assertion sources of TCP checks. */
export const TCP_ASSERTION_SOURCES = ['RESPONSE_DATA', 'RESPONSE_TIME'] as const;
/** Assertion comparisons of TCP checks. */
export const TCP_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'IS_EMPTY', 'NOT_EMPTY', 'LESS_THAN', 'GREATER_THAN', 'CONTAINS', 'NOT_CONTAINS',
] as const;
/** Assertion sources of DNS checks. */
export const DNS_ASSERTION_SOURCES = ['RESPONSE_TIME', 'RESPONSE_CODE', 'TEXT_ANSWER', 'JSON_ANSWER'] as const;
/** Assertion comparisons of DNS checks: the TCP ones plus JSON tests. */
export const DNS_COMPARISONS = [
  ...TCP_COMPARISONS, 'HAS_KEY', 'NOT_HAS_KEY', 'HAS_VALUE', 'NOT_HAS_VALUE', 'IS_NULL', 'NOT_NULL',
] as const;

/** Assertion sources of ICMP monitors (reference ChecksV1IcmpAssertion). */
export const ICMP_ASSERTION_SOURCES = ['LATENCY', 'JSON_RESPONSE'] as const;
/** Assertion comparisons of ICMP monitors. */
export const ICMP_COMPARISONS = [...TCP_COMPARISONS, 'IS_NULL', 'NOT_NULL'] as const;
/** What a LATENCY assertion reads: round-trip statistics of the received echo replies (ms). */
export const ICMP_LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const;
/** Pings per ICMP run (reference ChecksV1IcmpRequest: 1..50, default 10). */
export const ICMP_PING_COUNT = { min: 1, max: 50, default: 10 } as const;
/** Largest response-time threshold (ms) of ICMP monitors (reference: 0..300000). */
export const ICMP_MAX_RESPONSE_TIME = 300000;

/** Assertion sources of URL monitors: the status code only (reference ChecksV1UrlAssertion). */
export const URL_ASSERTION_SOURCES = ['STATUS_CODE'] as const;
/** Assertion comparisons of URL monitors. */
export const URL_COMPARISONS = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN'] as const;
/** Assertion sources of API checks (reference ChecksV1ApiAssertion). */
export const API_ASSERTION_SOURCES = ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'] as const;
/** Assertion comparisons of API checks. */
export const API_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'HAS_KEY', 'NOT_HAS_KEY', 'HAS_VALUE', 'NOT_HAS_VALUE', 'IS_EMPTY', 'NOT_EMPTY',
  'GREATER_THAN', 'LESS_THAN', 'CONTAINS', 'NOT_CONTAINS', 'IS_NULL', 'NOT_NULL',
] as const;
/** HTTP methods of API checks; URL monitors only GET. */
export const API_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH'] as const;
/** HTTP method of an API check. */
export const apiMethod = z.enum(API_METHODS).describe('HTTP method of the request');
/** How an API check's body is sent (sets the content type). */
export const BODY_TYPES = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const;
/** Body type of an API check. */
export const bodyType = z.enum(BODY_TYPES).describe('How the body is sent: JSON, FORM (urlencoded), RAW, GRAPHQL or NONE').meta({ default: 'NONE' });
/** Largest response-time threshold (ms) of URL monitors and API checks (reference: 0..45000). */
export const HTTP_MAX_RESPONSE_TIME = 45000;

/** IP family of a TCP check. */
export const ipFamily = z.enum(['IPv4', 'IPv6']).describe('IP family used to connect').meta({ default: 'IPv4' });
/** DNS record types. */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SOA', 'NS', 'HTTPS'] as const;
/** DNS record type. */
export const recordType = z.enum(RECORD_TYPES).describe('DNS record type to query');
/** DNS transport protocol. */
export const dnsProtocol = z.enum(['UDP', 'TCP']).describe('Transport of the DNS query').meta({ default: 'UDP' });

/** Alert escalation types. */
export const escalationType = z.enum(['RUN_BASED', 'TIME_BASED']).describe('When a failing check alerts');
/** Minutes failing before a TIME_BASED escalation alerts. */
export const MINUTES_FAILING_THRESHOLDS = [5, 10, 15, 30] as const;
/** Reminder intervals (minutes). */
export const REMINDER_INTERVALS = [1, 2, 3, 4, 5, 10, 15, 30] as const;
/** Retry strategy types. */
export const retryStrategyType = z.enum(['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY']).describe('Backoff between retries');
/** Incident severities. */
export const severity = z.enum(['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR']).describe('Incident severity');

/** Alert channel types (spec 2.10). */
export const ALERT_CHANNEL_TYPES = ['EMAIL', 'SLACK', 'WEBHOOK', 'SMS', 'PAGERDUTY', 'OPSGENIE', 'CALL'] as const;
/** An alert channel type. */
export const alertChannelType = z.enum(ALERT_CHANNEL_TYPES).describe('Alert channel type');
/** HTTP methods of webhook alert channels. */
export const webhookMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE']).describe('HTTP method of the webhook').meta({ default: 'POST' });
/** Opsgenie regions. */
export const opsgenieRegion = z.enum(['US', 'EU']).describe('Opsgenie region');
/** Opsgenie priorities. */
export const opsgeniePriority = z.enum(['P1', 'P2', 'P3', 'P4', 'P5']).describe('Opsgenie alert priority');

/** Dashboard widths. */
export const dashboardWidth = z.enum(['FULL', '960PX']).describe('Page width').meta({ default: 'FULL' });
/** Dashboard refresh rates (seconds). */
export const REFRESH_RATES = [60, 300, 600] as const;
/** Dashboard pagination rates (seconds). */
export const PAGINATION_RATES = [30, 60, 300] as const;

/** Units of heartbeat periods and grace times. */
export const HEARTBEAT_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
/** A heartbeat time unit. */
export const heartbeatUnit = z.enum(HEARTBEAT_UNITS).describe('Time unit');

/** A colour of a status page's theme: #RGB or #RRGGBB (decisions §3.6). */
export const themeColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a colour #RGB or #RRGGBB');

/** The twelve colours of one status page theme, all required (decisions §3.6). */
export const THEME_COLOR_KEYS = [
  'bodyBackgroundColor',
  'headerBackgroundColor',
  'headerFontColor',
  'titleFontColor',
  'bodyFontColor',
  'bodyFontColorMuted',
  'navigationFontColor',
  'linkFontColor',
  'cardBackgroundColor',
  'borderColor',
  'primaryButtonBackgroundColor',
  'primaryButtonFontColor',
] as const;
