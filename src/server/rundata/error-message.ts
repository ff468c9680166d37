/**
 * Error-group keys (decisions §5.4): the raw message of a failing FINAL result, its cleaned
 * form (variable parts replaced by placeholders so that one cause groups once) and its hash.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { ApiCheckResult, BrowserCheckResult, MultiStepCheckResult } from './types.js';

/** The parts of a failing result and of its check that decide its raw message. */
export interface FailureFacts {
  shouldFail: boolean;
  maxResponseTime: number | null;
  /** ICMP monitors: the loss (%) from which a run fails; null for other types. */
  maxPacketLossThreshold?: number | null;
  responseTime: number;
  apiCheckResult: ApiCheckResult | null;
  multiStepCheckResult: MultiStepCheckResult | null;
  browserCheckResult?: BrowserCheckResult | null;
}

/** The raw message of a failing result, by the rules of §5.4 in their order. */
export function rawErrorMessage(f: FailureFacts): string {
  // A failing result of a shouldFail check is one whose run passed.
  if (f.shouldFail) return 'Check was expected to fail but passed';
  const requestError = f.apiCheckResult?.requestError ?? f.multiStepCheckResult?.errors[0] ?? f.browserCheckResult?.errors[0] ?? null;
  if (requestError) return requestError;
  const loss = icmpPacketLoss(f.apiCheckResult);
  if (loss !== null && f.maxPacketLossThreshold != null && loss >= f.maxPacketLossThreshold) {
    return `Packet loss ${loss}% reached ${f.maxPacketLossThreshold}%`;
  }
  const failed = f.apiCheckResult?.assertions.find((a) => !a.passed);
  if (failed) return `${failed.source} ${failed.comparison} "${failed.target}" failed, actual "${failed.actual ?? ''}"`;
  if (f.maxResponseTime !== null && f.responseTime >= f.maxResponseTime) {
    return `Response time ${Math.round(f.responseTime)}ms exceeded ${f.maxResponseTime}ms`;
  }
  return 'Check failed';
}

/** The packet loss an ICMP result's JSON document records; null for other results. */
function icmpPacketLoss(r: ApiCheckResult | null): number | null {
  if (r?.request.method !== 'ICMP') return null;
  try {
    const loss = (JSON.parse(r.response.body) as { packetLoss?: unknown }).packetLoss;
    return typeof loss === 'number' ? loss : null;
  } catch {
    return null;
  }
}

const MAX_CLEANED = 1000;

/** One cleaning step: a pattern and what replaces a match (a callback may keep the match). */
type Step = [RegExp, string | ((match: string) => string)];

// Order matters: quoted text first (it may hold anything), numbers last (everything before
// them contains digits that must be recognised whole).
const STEPS: Step[] = [
  // A single quote between letters is an apostrophe (can't), not a quotation.
  [/(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])/gu, '<str>'],
  [/"[^"\n]*"/g, '<str>'],
  [/`[^`\n]*`/g, '<str>'],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`]+/gi, '<url>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?(?![\w])/g, '<date>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])/g, (m) => (validIPv4(m) ? '<ip>' : m)],
  [/\[([0-9a-f:.]+)\](?::\d{1,5})?/gi, (m) => (isIPv6(m.slice(1, m.indexOf(']'))) ? '<ip>' : m)],
  [/(?<![\w:])[0-9a-f]*:[0-9a-f:.]*(?![\w:])/gi, (m) => (isIPv6(m) ? '<ip>' : m)],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\d+(?:\.\d+)?/g, '<num>'],
];

function validIPv4(m: string): boolean {
  const host = m.split(':')[0];
  return host.split('.').every((o) => Number(o) <= 255);
}

/** The cleaned message: placeholders for variable parts, whitespace collapsed, at most 1000 chars. */
export function cleanErrorMessage(raw: string): string {
  let text = raw;
  for (const [pattern, replacement] of STEPS) {
    text = typeof replacement === 'string' ? text.replace(pattern, replacement) : text.replace(pattern, replacement);
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_CLEANED);
}

/** Lowercase hex SHA-256 of the cleaned message's UTF-8 bytes. */
export function errorHash(cleaned: string): string {
  return createHash('sha256').update(cleaned, 'utf8').digest('hex');
}
