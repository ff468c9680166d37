import type { TlsCertificate } from './probe.js';
import { z } from 'zod';
// The API's value sets are the schema's (one list each), read leniently here.
import { API_METHODS, BODY_TYPES, RECORD_TYPES } from '../schema/fields/values.js';

/**
 * What the runner reads of a check: the API's own check body (api-decisions §3), parsed
 * leniently so that both a stored check of the service and a loaded definition of `mac test`
 * run the same way. Defaults here are the API's create defaults, applied when a body omits them.
 */

/** One assertion as the API stores it; comparison semantics are in assertions.ts. */
export const assertionSchema = z.object({
  source: z.string(),
  comparison: z.string(),
  target: z.string().nullish().transform((v) => v ?? ''),
  property: z.string().nullish().transform((v) => v ?? ''),
  regex: z.string().nullish().transform((v) => v ?? ''),
});
/** An assertion with its optional fields filled in. */
export type Assertion = z.infer<typeof assertionSchema>;

const assertions = z.array(assertionSchema).nullish().transform((v) => v ?? []);

/** The `request` of a TCP check. */
export const tcpRequestSchema = z.object({
  hostname: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  data: z.string().nullish().transform((v) => v ?? null),
  ipFamily: z.enum(['IPv4', 'IPv6']).nullish().transform((v) => v ?? 'IPv4'),
  assertions,
});
/** A TCP request with defaults applied. */
export type TcpRequest = z.infer<typeof tcpRequestSchema>;

/** The `request` of a DNS check. */
export const dnsRequestSchema = z.object({
  query: z.string().min(1),
  recordType: z.enum(RECORD_TYPES),
  nameServer: z.string().nullish().transform((v) => (v ? v : null)),
  port: z.number().int().min(1).max(65535).nullish().transform((v) => v ?? 53),
  protocol: z.enum(['UDP', 'TCP']).nullish().transform((v) => v ?? 'UDP'),
  assertions,
});
/** A DNS request with defaults applied. */
export type DnsRequest = z.infer<typeof dnsRequestSchema>;

/** The `request` of an ICMP monitor (reference ChecksV1IcmpRequest: pingCount 1..50, default 10). */
export const icmpRequestSchema = z.object({
  hostname: z.string().min(1).max(2048),
  ipFamily: z.enum(['IPv4', 'IPv6']).nullish().transform((v) => v ?? 'IPv4'),
  pingCount: z.number().int().min(1).max(50).nullish().transform((v) => v ?? 10),
  assertions,
});
/** An ICMP request with defaults applied. */
export type IcmpRequest = z.infer<typeof icmpRequestSchema>;

/** One header or query parameter (ChecksV1KeyValue); a `locked` value is masked in results. */
const keyValue = z.object({
  key: z.string(),
  value: z.string().nullish().transform((v) => v ?? ''),
  locked: z.boolean().nullish().transform((v) => v ?? false),
});
const keyValues = z.array(keyValue).nullish().transform((v) => v ?? []);

const httpCommon = {
  url: z.string().min(1).max(2048),
  // The reference leaves followRedirects without a default; it follows unless told not to.
  followRedirects: z.boolean().nullish().transform((v) => v ?? true),
  skipSSL: z.boolean().nullish().transform((v) => v ?? false),
  ipFamily: z.enum(['IPv4', 'IPv6']).nullish().transform((v) => v ?? 'IPv4'),
  assertions,
};

/** The `request` of a URL monitor (ChecksV1UrlRequest): GET only. */
export const urlRequestSchema = z.object({
  ...httpCommon,
  method: z.literal('GET').nullish().transform(() => 'GET' as const),
});
/** A URL monitor's request with defaults applied. */
export type UrlRequest = z.infer<typeof urlRequestSchema>;

/** The `request` of an API check (ChecksV1ApiRequest). */
export const apiRequestSchema = z.object({
  ...httpCommon,
  method: z.enum(API_METHODS),
  body: z.string().nullish().transform((v) => v ?? ''),
  bodyType: z.enum(BODY_TYPES).nullish().transform((v) => v ?? 'NONE'),
  headers: keyValues,
  queryParameters: keyValues,
  basicAuth: z
    .object({ username: z.string(), password: z.string() })
    .nullish()
    .transform((v) => v ?? null),
});
/** An API check's request with defaults applied. */
export type ApiRequest = z.infer<typeof apiRequestSchema>;

/** Either HTTP request, as the probe takes it. */
export type HttpRequest = UrlRequest | ApiRequest;

/** `retryStrategy` of a check (api-decisions §3.1 ranges and defaults). */
export const retryStrategySchema = z.object({
  type: z.enum(['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY']),
  baseBackoffSeconds: z.number().min(0).nullish().transform((v) => v ?? 60),
  maxRetries: z.number().int().min(0).nullish().transform((v) => v ?? 2),
  maxDurationSeconds: z.number().min(0).nullish().transform((v) => v ?? 600),
  sameRegion: z.boolean().nullish().transform((v) => v ?? true),
  onlyOn: z.array(z.string()).nullish().transform((v) => v ?? []),
});
/** A retry strategy with defaults applied. */
export type RetryStrategy = z.infer<typeof retryStrategySchema>;

const common = {
  name: z.string().nullish().transform((v) => v ?? ''),
  shouldFail: z.boolean().nullish().transform((v) => v ?? false),
  doubleCheck: z.boolean().nullish().transform((v) => v ?? true),
  retryStrategy: retryStrategySchema.nullish().transform((v) => v ?? null),
};

// Thresholds default per type (spec 2.1); an explicit null means "never triggers".
const threshold = (fallback: number) =>
  z
    .number()
    .min(0)
    .nullable()
    .optional()
    .transform((v) => (v === undefined ? fallback : v));

/** A TCP check as the runner needs it. */
export const tcpCheckSchema = z.object({
  ...common,
  checkType: z.literal('TCP'),
  request: tcpRequestSchema,
  degradedResponseTime: threshold(3000),
  maxResponseTime: threshold(5000),
});
/** A DNS check as the runner needs it. */
export const dnsCheckSchema = z.object({
  ...common,
  checkType: z.literal('DNS'),
  request: dnsRequestSchema,
  degradedResponseTime: threshold(500),
  maxResponseTime: threshold(1000),
});
/** One environment variable of a check as the API stores it (values of secret ones included). */
export const checkVariableSchema = z.object({
  key: z.string(),
  value: z.string().nullish().transform((v) => v ?? ''),
  secret: z.boolean().nullish().transform((v) => v ?? false),
});

/** A multi-step check: a Playwright Test script run in a child process (src/runner/multistep/). */
export const multiStepCheckSchema = z.object({
  ...common,
  checkType: z.literal('MULTI_STEP'),
  script: z.string().nullish().transform((v) => v ?? null),
  runtimeId: z.string().nullish().transform((v) => v ?? null),
  environmentVariables: z.array(checkVariableSchema).nullish().transform((v) => v ?? []),
});
/** A multi-step check with defaults applied. */
export type MultiStepCheck = z.infer<typeof multiStepCheckSchema>;

/** A browser check: a Playwright Test script using `page`, run in the system's Chromium (src/runner/multistep/). */
export const browserCheckSchema = z.object({
  ...common,
  checkType: z.literal('BROWSER'),
  script: z.string().nullish().transform((v) => v ?? null),
  runtimeId: z.string().nullish().transform((v) => v ?? null),
  environmentVariables: z.array(checkVariableSchema).nullish().transform((v) => v ?? []),
});
/** A browser check with defaults applied. */
export type BrowserCheck = z.infer<typeof browserCheckSchema>;

/** A URL monitor as the runner needs it (ChecksV1UrlMonitorCreate defaults). */
export const urlCheckSchema = z.object({
  ...common,
  checkType: z.literal('URL'),
  request: urlRequestSchema,
  degradedResponseTime: threshold(3000),
  maxResponseTime: threshold(5000),
});
/** An API check as the runner needs it (ChecksV1ApiCheckCreate defaults). */
export const apiCheckSchema = z.object({
  ...common,
  checkType: z.literal('API'),
  request: apiRequestSchema,
  degradedResponseTime: threshold(5000),
  maxResponseTime: threshold(20000),
  // Run in the script sandbox before and after the request (http/scripts.ts); the service and
  // mac test put a referenced snippet's script here when the check has no script of its own.
  localSetupScript: z.string().nullish().transform((v) => (v && v.trim() !== '' ? v : null)),
  localTearDownScript: z.string().nullish().transform((v) => (v && v.trim() !== '' ? v : null)),
  environmentVariables: z.array(checkVariableSchema).nullish().transform((v) => v ?? []),
});
/** An ICMP monitor (ChecksV1IcmpMonitorCreate defaults): latency thresholds in ms, loss thresholds in %. */
export const icmpCheckSchema = z.object({
  ...common,
  checkType: z.literal('ICMP'),
  request: icmpRequestSchema,
  degradedResponseTime: threshold(10000),
  maxResponseTime: threshold(20000),
  degradedPacketLossThreshold: threshold(10),
  maxPacketLossThreshold: threshold(20),
});
/** An ICMP monitor with defaults applied. */
export type IcmpCheck = z.infer<typeof icmpCheckSchema>;

/** A check whose kind this runner does not execute (heartbeats). */
export const otherCheckSchema = z.object({
  ...common,
  checkType: z.enum(['HEARTBEAT']),
});

/** Every check the runner accepts, told apart by `checkType`. */
export const runnableCheckSchema = z.discriminatedUnion('checkType', [
  tcpCheckSchema,
  dnsCheckSchema,
  urlCheckSchema,
  apiCheckSchema,
  icmpCheckSchema,
  multiStepCheckSchema,
  browserCheckSchema,
  otherCheckSchema,
]);
/** A URL monitor with defaults applied. */
export type UrlCheck = z.infer<typeof urlCheckSchema>;
/** An API check with defaults applied. */
export type ApiCheck = z.infer<typeof apiCheckSchema>;
/** A TCP check with defaults applied. */
export type TcpCheck = z.infer<typeof tcpCheckSchema>;
/** A DNS check with defaults applied. */
export type DnsCheck = z.infer<typeof dnsCheckSchema>;
/** A check the runner accepts, with defaults applied. */
export type RunnableCheck = z.infer<typeof runnableCheckSchema>;
/** The check body as it may be passed in, before defaults. */
export type RunnableCheckInput = z.input<typeof runnableCheckSchema>;

/** Milliseconds of each phase of one attempt (api-decisions §5.3); 0 when not applicable. */
export interface TimingPhases {
  wait: number;
  dns: number;
  tcp: number;
  firstByte: number;
  download: number;
  total: number;
}

/** One assertion after evaluation: the stored assertion plus what was found (as text; null = absent) and whether it held. */
export interface AssertionResult extends Assertion {
  actual: string | null;
  passed: boolean;
}

/**
 * Milliseconds from the start of an HTTP attempt to each boundary of its last request (the
 * `timings` of the result; null for TCP and DNS). `secureConnect` is null over plain HTTP.
 */
export interface HttpTimings {
  socket: number;
  lookup: number;
  connect: number;
  secureConnect: number | null;
  response: number;
  end: number;
}

/**
 * `apiCheckResult` of a TCP, DNS, URL, API or ICMP attempt (api-decisions §5.3), as the service
 * stores it: TCP and DNS keep headers and params empty; ICMP has method `ICMP`, url `icmp://host`
 * and the run's JSON document (packets, loss, latency) as its body.
 */
export interface ApiCheckResult {
  request: { method: string; url: string; data: string; headers: Record<string, string>; params: Record<string, string> };
  response: {
    status: number;
    statusText: string;
    body: string;
    headers: Record<string, string>;
    timings: HttpTimings | null;
    timingPhases: TimingPhases;
  };
  assertions: AssertionResult[];
  requestError: string | null;
  /** HTTPS: the server's certificate (its expiry drives SSL expiry alerts); absent otherwise. */
  certificate?: TlsCertificate;
  jobLog: null;
  jobAssets: null;
  pcapDataUrl: null;
}

/**
 * `multiStepCheckResult` (api-decisions §5.3, the reference's MultiStepResultBrowser): `errors`
 * first names the failing test and step; times are epoch ms; `jobLog` one line per entry.
 */
export interface MultiStepCheckResult {
  errors: string[];
  startTime: number;
  endTime: number;
  runtimeVersion: string | null;
  jobLog: string[];
  jobAssets: null;
}

/** The web vitals measured on each page of a browser check. */
export type WebVitalName = 'TTFB' | 'FCP' | 'LCP' | 'CLS' | 'TBT';

/** One page a browser check navigated to, with the vitals it had (ms; CLS unitless); absent = not measured. */
export interface BrowserPage {
  url: string;
  webVitals: Partial<Record<WebVitalName, { value: number; score: 'GOOD' | 'NEEDS_IMPROVEMENT' | 'POOR' }>>;
}

/**
 * `browserCheckResult` (the reference's CheckResultBrowser): the multi-step fields plus the pages
 * with their web vitals, a summary of the console, network, page-script and document errors (at
 * most 20 of each listed), and the names of the run's assets (fetched through the service).
 */
export interface BrowserCheckResult {
  type: 'PLAYWRIGHT_TEST';
  errors: string[];
  startTime: number;
  endTime: number;
  runtimeVersion: string | null;
  jobLog: string[];
  /** Names of the run's assets: `screenshot.png`, `trace.zip`. */
  jobAssets: string[];
  traceSummary: {
    consoleErrors: number;
    networkErrors: number;
    userScriptErrors: number;
    documentErrors: number;
    console: Array<{ text: string; url: string }>;
    network: Array<{ url: string; method: string; status: number | null; error: string | null }>;
  };
  pages: BrowserPage[];
  playwrightTestVideos: string[];
  playwrightTestTraces: string[];
}

/** A file a run produced (a failed browser check's screenshot and trace), kept beside its result. */
export interface RunAsset {
  name: string;
  type: 'screenshot' | 'trace';
  contentType: string;
  data: Buffer;
}
