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

/** Whether a value is a plain object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
