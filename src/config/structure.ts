/** The structure phase: each document against its kind's zod schema, issues turned into diagnostics. */
import type { z } from 'zod';
import { KINDS, type Kind } from '../schema/kinds.js';
import { DEFINITIONS } from '../schema/definitions.js';
import type { Diagnostic } from './types.js';
import { errorAt, valueAt, type PathSegment, type SourceDocument } from './source.js';
import { isRecord } from '../json/values.js';
import { didYouMean } from './suggest.js';

/** A document whose structure is valid, with its kind. */
export interface StructuredDocument {
  source: SourceDocument;
  kind: Kind;
  value: Record<string, unknown>;
}

/** Fields that exist on some kinds only, with the reason a user needs when putting them elsewhere. */
const MISPLACED: Record<string, string> = {
  setupSnippet: 'snippet references exist only on DnsCheck and ApiCheck, the check kinds whose API body has snippet ids',
  tearDownSnippet: 'snippet references exist only on DnsCheck and ApiCheck, the check kinds whose API body has snippet ids',
  setupSnippetId: 'snippet ids exist only on DnsCheck and ApiCheck',
  tearDownSnippetId: 'snippet ids exist only on DnsCheck and ApiCheck',
  request: 'only TcpCheck, DnsCheck, UrlMonitor, ApiCheck and IcmpMonitor have a request',
  degradedResponseTime: 'only TcpCheck, DnsCheck, UrlMonitor, ApiCheck and IcmpMonitor have response-time thresholds',
  maxResponseTime: 'only TcpCheck, DnsCheck, UrlMonitor, ApiCheck and IcmpMonitor have response-time thresholds',
  degradedPacketLossThreshold: 'only IcmpMonitor has packet-loss thresholds',
  maxPacketLossThreshold: 'only IcmpMonitor has packet-loss thresholds',
  frequencyOffset: 'multi-step checks have no frequencyOffset (they cannot run more often than every minute)',
  scriptFile: 'scriptFile stands for script on Snippet, MultiStepCheck, BrowserCheck and DnsCheck only',
  id: 'an EnvironmentVariable is identified by its key',
};

/** Validates one document's structure; pushes diagnostics and returns the document when valid. */
export function checkStructure(source: SourceDocument, diagnostics: Diagnostic[]): StructuredDocument | undefined {
  const data = source.data;
  if (!isRecord(data)) {
    diagnostics.push(errorAt(source.position(), '', 'a definition document must be a mapping with a kind'));
    return undefined;
  }
  const kind = data.kind;
  if (kind === undefined) {
    diagnostics.push(errorAt(source.position(), 'kind', 'is required', `one of ${KINDS.join(', ')}`));
    return undefined;
  }
  if (typeof kind !== 'string') {
    diagnostics.push(errorAt(source.locate(['kind']), 'kind', `must be a string, not ${describeValue(kind)}`, `one of ${KINDS.join(', ')}`));
    return undefined;
  }
  if (!(KINDS as readonly string[]).includes(kind)) {
    diagnostics.push(errorAt(source.locate(['kind']), 'kind', `unknown kind "${kind}"`, didYouMean(kind, KINDS) ?? `one of ${KINDS.join(', ')}`));
    return undefined;
  }
  const spec = DEFINITIONS[kind as Kind];
  const schema = data.state === 'absent' ? spec.absentSchema : spec.schema;
  const result = schema.safeParse(data);
  if (result.success) return { source, kind: kind as Kind, value: result.data as Record<string, unknown> };
  for (const issue of result.error.issues) diagnostics.push(...issueDiagnostics(issue, source, schema, kind, MISPLACED));
  return undefined;
}

/**
 * Diagnostics for one zod issue of `source` against `schema`. Unknown fields get a "did you mean"
 * hint (or the reason from `misplaced` for a top-level field that belongs to other kinds).
 */
export function issueDiagnostics(
  issue: z.core.$ZodIssue,
  source: SourceDocument,
  schema: z.ZodType,
  owner: string,
  misplaced: Record<string, string> = {},
): Diagnostic[] {
  const path = issue.path as PathSegment[];
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(schema, path, source.data);
    return issue.keys.map((key) => {
      // Own entries only: a key such as "constructor" must not find Object.prototype's.
      const reason = path.length === 0 && Object.hasOwn(misplaced, key) ? misplaced[key] : undefined;
      // A field of another kind is no typo: its reason comes first.
      const hint = reason ?? didYouMean(key, known) ?? (known.length > 0 ? `known fields: ${known.join(', ')}` : undefined);
      return errorAt(source.locate([...path, key], true), [...path, key], `unknown field "${key}" of ${owner}`, hint);
    });
  }
  const value = valueAt(source.data, path);
  // A missing enum field (an API check's request.method) is an invalid_value issue in zod 4.
  if (value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value')) {
    // A missing field has no node of its own: point at the mapping that should hold it.
    const parent = path.slice(0, -1);
    const at = parent.length === 0 ? source.position() : source.locate(parent, true);
    return [errorAt(at, path, 'is required')];
  }
  // A block mapping or list starts at its first item; its key is where the reader looks.
  const at = value !== null && typeof value === 'object' ? source.locate(path, true) : source.locate(path);
  return [errorAt(at, path, issueMessage(issue, value))];
}

/** A user-facing message for a zod issue (the field path is printed separately). */
export function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected)}, not ${describeValue(value)}`;
    case 'too_small':
      return boundMessage('at least', 'more than', issue.minimum, issue.inclusive !== false, issue.origin);
    case 'too_big':
      return boundMessage('at most', 'less than', issue.maximum, issue.inclusive !== false, issue.origin);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map(showOption).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_format':
      if (issue.format === 'email') return 'must be an email address';
      if (issue.format === 'url') return 'must be a URL';
      return issue.message;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return `must be one of ${options.map(showOption).join(', ')}`;
      return issue.message;
    }
    default:
      return issue.message;
  }
}

/** An allowed value as a message shows it: never `[object Object]`. */
function showOption(value: unknown): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function boundMessage(inclusiveWord: string, exclusiveWord: string, bound: number | bigint, inclusive: boolean, origin: string): string {
  const n = Number(bound);
  if (origin === 'string') return n === 1 && inclusiveWord === 'at least' ? 'must not be empty' : `must be ${inclusiveWord} ${n} characters long`;
  if (origin === 'array' || origin === 'set') return `must have ${inclusiveWord} ${n} item${n === 1 ? '' : 's'}`;
  return `must be ${inclusive ? inclusiveWord : exclusiveWord} ${n}`;
}

function article(type: string): string {
  if (type === 'array') return 'a list';
  if (type === 'object') return 'a mapping';
  if (type === 'nonoptional') return 'set';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The type of a value in YAML words, never the value itself (it may be a secret). */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return article(typeof value);
}

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; in?: z.ZodType; values?: unknown[] };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Field names the schema accepts at `path` (for "did you mean"), following the data through unions. */
function knownKeys(schema: z.ZodType, path: readonly PathSegment[], data: unknown): string[] {
  let cur: z.ZodType | undefined = schema;
  let value = data;
  for (let i = 0; i <= path.length && cur; i++) {
    cur = unwrap(cur, value);
    if (!cur) break;
    if (i === path.length) break;
    const def = defOf(cur);
    const seg = path[i];
    if (def.type === 'object' && typeof seg === 'string') cur = def.shape && Object.hasOwn(def.shape, seg) ? def.shape[seg] : undefined;
    else if (def.type === 'array') cur = def.element;
    else cur = undefined;
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string | number, unknown>)[seg] : undefined;
  }
  const def = cur ? defOf(cur) : undefined;
  return def?.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

/** Strips optional/nullable/default wrappers and picks the union member matching the data. */
function unwrap(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  let cur = schema;
  for (;;) {
    const def = defOf(cur);
    if (def.innerType) cur = def.innerType;
    else if (def.type === 'pipe' && def.in) cur = def.in;
    else if (def.type === 'union' && def.options) {
      const objects = def.options.map((o) => unwrap(o, value)).filter((o): o is z.ZodType => o !== undefined && defOf(o).type === 'object');
      return objects.find((o) => matchesLiterals(o, value)) ?? objects[0];
    } else return cur;
  }
}

/** Whether every literal field of an object schema (a discriminator) matches the data. */
function matchesLiterals(schema: z.ZodType, value: unknown): boolean {
  if (!isRecord(value)) return false;
  return Object.entries(defOf(schema).shape ?? {}).every(([key, field]) => {
    const def = defOf(field);
    return def.type !== 'literal' || (def.values ?? []).includes(value[key]);
  });
}
