import { z } from 'zod';
import { validationError, type FieldProblem, type ProblemSource } from './errors.js';

/** Dot-joined path of a zod issue (numeric indices kept); `""` = the whole value. */
export function joinPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The problems of one zod issue, in the wording of the error bodies (`is required`, `must be ...`). */
function problemsOf(issue: z.core.$ZodIssue, input: unknown): FieldProblem[] {
  const path = joinPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const actual = valueAt(input, issue.path);
      if (actual === undefined) return [{ path, message: 'is required' }];
      const expected = issue.expected === 'int' ? 'integer' : String(issue.expected);
      return [{ path, message: `must be ${article(expected)}, not ${describeType(actual)}` }];
    }
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: joinPath([...issue.path, key]), message: 'is not allowed' }));
    case 'invalid_value':
      return [{ path, message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` }];
    case 'too_small':
      return [{ path, message: sizeMessage('at least', issue.origin, issue.minimum, issue.inclusive) }];
    case 'too_big':
      return [{ path, message: sizeMessage('at most', issue.origin, issue.maximum, issue.inclusive) }];
    case 'not_multiple_of':
      return [{ path, message: `must be a multiple of ${issue.divisor}` }];
    case 'invalid_format':
      return [{ path, message: issue.message && !issue.message.startsWith('Invalid') ? issue.message : `must be a valid ${issue.format}` }];
    case 'invalid_union':
      return [{ path, message: issue.message && !issue.message.startsWith('Invalid') ? issue.message : 'has an invalid value' }];
    default:
      return [{ path, message: issue.message }];
  }
}

function sizeMessage(bound: 'at least' | 'at most', origin: string, limit: number | bigint, inclusive?: boolean): string {
  const n = Number(limit);
  if (origin === 'string') return `must have ${bound} ${n} character${n === 1 ? '' : 's'}`;
  if (origin === 'array' || origin === 'set') return `must have ${bound} ${n} item${n === 1 ? '' : 's'}`;
  if (inclusive === false) return `must be ${bound === 'at least' ? 'greater than' : 'less than'} ${n}`;
  return `must be ${bound} ${n}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Every problem of a failed parse, in issue order, each once: two checks can word the same
 * problem alike (an unsafe integer fails both `int()` and `max()` as "must be at most ...").
 */
export function problemsFromZod(error: z.ZodError, input: unknown): FieldProblem[] {
  const seen = new Set<string>();
  return error.issues
    .flatMap((issue) => problemsOf(issue, input))
    .filter((p) => {
      const key = `${p.path}\u0000${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * Parses `input` with `schema`; on failure throws the 400 of api-decisions §1.3 for `source`.
 * The one way routes validate params, query and body.
 */
export function parseOrThrow<S extends z.ZodType>(source: ProblemSource, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(source, problemsFromZod(result.error, input));
}
