/** Documents as read from definition files, before validation, with lazy source positions. */
import type { Diagnostic, Position } from './types.js';

/** A step of a field path: an object key or an array index. */
export type PathSegment = string | number;

/** One document of a definition file (a YAML document or one export of a *.mac.ts file). */
export interface SourceDocument {
  /** File relative to the project dir, `/` separators. */
  file: string;
  /** Absolute directory of the file (scriptFile is relative to it). */
  dir: string;
  /** The document's plain data (mutable until validated: interpolation rewrites strings). */
  data: unknown;
  /** Position of the document: its `kind:` key, else its start. */
  position(): Position;
  /**
   * Position of the field at `path` (of its key when `key`), or of the nearest ancestor that
   * exists in the source. Computed on demand: most fields never need a position.
   */
  locate(path: readonly PathSegment[], key?: boolean): Position;
}

/** Dot-joined field path with numeric indices, as diagnostics print it. */
export function dotPath(path: readonly PathSegment[]): string {
  return path.join('.');
}

/** JSON pointer (RFC 6901) of a field path. */
export function pointer(path: readonly PathSegment[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** An error diagnostic at a position. */
export function errorAt(at: Position, path: readonly PathSegment[] | string, message: string, hint?: string): Diagnostic {
  const d: Diagnostic = { file: at.file, line: at.line, col: at.col, severity: 'error', path: typeof path === 'string' ? path : dotPath(path), message };
  if (hint !== undefined) d.hint = hint;
  return d;
}


/** The value at a field path of plain data, or undefined. */
export function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

// Names every JavaScript object has (`__proto__`, `constructor`, `toString`, ...) and `prototype`:
// as keys of definition data they could reach an object's prototype or shadow its methods.
const RESERVED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Whether a key may not appear in definition data (it names a property of every JavaScript object). */
export function isReservedKey(key: string): boolean {
  return RESERVED_KEYS.has(key);
}

/**
 * The first problem of plain data that did not come from YAML (a *.mac.ts export): a reserved
 * key, a cycle, or nesting deeper than `maxDepth`. Returns the field path and the message.
 */
export function plainDataProblem(data: unknown, maxDepth = 64): { path: PathSegment[]; message: string } | undefined {
  const active = new Set<object>();
  const path: PathSegment[] = [];
  const visit = (value: unknown): string | undefined => {
    if (value === null || typeof value !== 'object') return undefined;
    if (active.has(value)) return 'refers to itself (a cycle)';
    if (path.length > maxDepth) return `is nested deeper than ${maxDepth} levels`;
    active.add(value);
    const entries: Array<[PathSegment, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, v] of entries) {
      path.push(key);
      if (typeof key === 'string' && isReservedKey(key)) return `key "${key}" is not allowed`;
      const problem = visit(v);
      if (problem) return problem;
      path.pop();
    }
    active.delete(value);
    return undefined;
  };
  const message = visit(data);
  return message === undefined ? undefined : { path: [...path], message };
}
