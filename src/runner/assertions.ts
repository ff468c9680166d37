import type { Assertion, AssertionResult } from './types.js';
import { readJsonPath } from './jsonpath.js';
import { boundedRegexExec, REGEX_TIME_LIMIT_MS } from './regex.js';

/**
 * The assertion evaluator of api-decisions §5.3, shared by the service and `mac test`.
 * Values are compared as text, except LESS_THAN/GREATER_THAN and every comparison on
 * RESPONSE_TIME, which are numeric; the key/value/null comparisons test the JSON value.
 */

/** Assertion sources per check type (api-decisions §2). */
export const ASSERTION_SOURCES = {
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_TIME', 'RESPONSE_CODE', 'TEXT_ANSWER', 'JSON_ANSWER'],
  URL: ['STATUS_CODE'],
  API: ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'],
  ICMP: ['LATENCY', 'JSON_RESPONSE'],
} as const;

// Sources whose value is JSON, so that `property` reads into it directly.
const JSON_SOURCES = new Set(['JSON_ANSWER', 'JSON_BODY', 'JSON_RESPONSE']);
// Sources whose `property` names a key of an object of values, case-insensitively (HTTP headers;
// ICMP latency statistics: avg, min, max, stdDev).
const NAMED_SOURCES = new Set(['HEADERS', 'LATENCY']);
const NUMERIC_SOURCES = new Set(['RESPONSE_TIME', 'LATENCY']);
/**
 * Sources whose values are small and bounded (a status, a time, a response code, headers within
 * the HTTP client's limit, four latency figures): without a regex, assertions on them need no
 * budget and no other thread. Bodies and answers (up to 1 MiB) are not among them.
 */
export const ASSERTION_SOURCES_CHEAP: ReadonlySet<string> = new Set(['STATUS_CODE', 'RESPONSE_TIME', 'RESPONSE_CODE', 'HEADERS', 'LATENCY']);

/** Text form of a value: strings as they are, null/undefined as "", anything else as JSON. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const asNumber = (value: unknown): number => {
  const text = asText(value).trim();
  return text === '' ? NaN : Number(text);
};

const isEmpty = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

const hasKey = (v: unknown, key: string): boolean =>
  isContainer(v) && (Array.isArray(v) ? /^\d+$/.test(key) && Number(key) < v.length : Object.hasOwn(v, key));

const hasValue = (v: unknown, target: string): boolean =>
  isContainer(v) && Object.values(v).some((item) => asText(item) === target);

const equals = (actual: unknown, target: string, numeric: boolean): boolean =>
  numeric ? asNumber(actual) === asNumber(target) : asText(actual) === target;

/** Every comparison, by name: whether `actual` satisfies it for `target`. */
export const COMPARISONS: Record<string, (actual: unknown, target: string, numeric: boolean) => boolean> = {
  EQUALS: equals,
  NOT_EQUALS: (a, t, n) => !equals(a, t, n),
  IS_EMPTY: (a) => isEmpty(a),
  NOT_EMPTY: (a) => !isEmpty(a),
  LESS_THAN: (a, t) => asNumber(a) < asNumber(t),
  GREATER_THAN: (a, t) => asNumber(a) > asNumber(t),
  CONTAINS: (a, t) => asText(a).includes(t),
  NOT_CONTAINS: (a, t) => !asText(a).includes(t),
  HAS_KEY: (a, t) => hasKey(a, t),
  NOT_HAS_KEY: (a, t) => !hasKey(a, t),
  HAS_VALUE: (a, t) => hasValue(a, t),
  NOT_HAS_VALUE: (a, t) => !hasValue(a, t),
  IS_NULL: (a) => a === null || a === undefined,
  NOT_NULL: (a) => a !== null && a !== undefined,
};

/** The value an assertion looks at: its source, read at `property`, narrowed by `regex`. */
export function assertionValue(a: Assertion, values: Record<string, unknown>, regexLimitMs = REGEX_TIME_LIMIT_MS): unknown {
  let value = values[a.source];
  if (a.property && NAMED_SOURCES.has(a.source)) {
    const name = a.property.trim().toLowerCase();
    value = isContainer(value) && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
  } else if (a.property) {
    // RESPONSE_DATA may hold JSON text; a property then reads into it, as it does on JSON sources.
    const json = JSON_SOURCES.has(a.source) ? value : parseJson(asText(value));
    value = readJsonPath(json, a.property);
  }
  if (a.regex) {
    const m = boundedRegexExec(a.regex, asText(value), regexLimitMs);
    value = m ? (m[1] ?? m[0]) : '';
  }
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Evaluates one assertion against the values a probe observed. An unknown source or
 * comparison, a bad path or a bad regex fails the assertion rather than passing it silently.
 */
export function evaluateAssertion(a: Assertion, values: Record<string, unknown>, regexLimitMs = REGEX_TIME_LIMIT_MS): AssertionResult {
  const compare = COMPARISONS[a.comparison];
  if (!compare || !(a.source in values)) return { ...a, actual: null, passed: false };
  let actual: unknown;
  try {
    actual = assertionValue(a, values, regexLimitMs);
  } catch {
    return { ...a, actual: null, passed: false };
  }
  const passed = compare(actual, a.target, NUMERIC_SOURCES.has(a.source));
  // Results store what was found as text, like every other field of a result; null = nothing there.
  return { ...a, actual: actual === undefined || actual === null ? null : shownActual(asText(actual)), passed };
}

/**
 * Most characters of an assertion's `actual` kept in its result. Without a bound, each of a
 * check's assertions on TEXT_BODY would store the whole body read (up to 1 MiB) once more.
 */
export const MAX_ACTUAL_CHARS = 4096;

function shownActual(text: string): string {
  return text.length <= MAX_ACTUAL_CHARS ? text : `${text.slice(0, MAX_ACTUAL_CHARS)}…`;
}

/** Milliseconds of assertion evaluation one run of a check may use, over all its attempts. */
export const ASSERTION_BUDGET_MS = 1000;

/** What evaluating a check's assertions within a time budget gave. */
export interface Evaluation {
  results: AssertionResult[];
  /** Milliseconds spent. */
  elapsedMs: number;
  /** The budget ran out before every assertion was evaluated: the ones left are failed, unevaluated. */
  overBudget: boolean;
  /** Assertions evaluated (the first ones, in order). */
  evaluated: number;
}

/**
 * Evaluates `assertions` in order within `budgetMs` of this thread's time: each regex gets at
 * most what is left of the budget (and never more than its own limit); once the budget is spent,
 * the assertions left are failed without being evaluated. HTTP probes leave JSON_BODY undefined
 * beside TEXT_BODY: the body is parsed here, once, only when an assertion reads it.
 */
export function evaluateAssertions(assertions: Assertion[], values: Record<string, unknown>, budgetMs: number, now: () => number = () => performance.now()): Evaluation {
  const began = now();
  let view = values;
  if (values.JSON_BODY === undefined && typeof values.TEXT_BODY === 'string' && assertions.some((a) => a.source === 'JSON_BODY')) {
    view = { ...values, JSON_BODY: parseJson(values.TEXT_BODY) };
  }
  const results: AssertionResult[] = [];
  let evaluated = 0;
  for (const a of assertions) {
    const left = budgetMs - (now() - began);
    if (left <= 0) {
      results.push({ ...a, actual: null, passed: false });
      continue;
    }
    results.push(evaluateAssertion(a, view, Math.max(1, Math.min(REGEX_TIME_LIMIT_MS, Math.floor(left)))));
    evaluated++;
  }
  const elapsedMs = now() - began;
  return { results, elapsedMs, overBudget: evaluated < assertions.length || elapsedMs > budgetMs, evaluated };
}

/** `<SOURCE> <COMPARISON> "<target>" failed, actual "<actual>"` (api-decisions §5.4). */
export function assertionFailureMessage(r: AssertionResult): string {
  return `${r.source} ${r.comparison} "${r.target}" failed, actual "${asText(r.actual)}"`;
}
