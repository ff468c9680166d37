/** Reads multi-document YAML text into source documents with positions; syntax errors become diagnostics. */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node, type Pair } from 'yaml';
import type { Diagnostic, Position } from './types.js';
import { errorAt, isReservedKey, type PathSegment, type SourceDocument } from './source.js';
import { fastYamlData } from './yaml-fast.js';

/** Alias nodes one document may hold: resolving each one costs a scan of the document's anchors and aliases. */
export const MAX_ALIASES = 1000;
/** Anchors one document may hold (each alias resolution scans them). */
export const MAX_ANCHORS = 1000;
/** Nodes that aliases may add to one document in total (what an alias bomb multiplies). */
export const MAX_ALIAS_EXPANSION = 100_000;
/** Nesting depth of mappings and lists in one document. */
export const MAX_DEPTH = 64;

/** The documents of one YAML file and the syntax problems found in it. */
export interface YamlFile {
  documents: SourceDocument[];
  diagnostics: Diagnostic[];
}

/**
 * One document of a YAML file as plain data: what parsing yields before positions are needed.
 * Plain and structured-clonable, so a worker thread can parse (yaml-parallel.ts).
 */
export interface ParsedYamlDocument {
  /** Index of the document in the file (counting the skipped ones), for a position parse. */
  index: number;
  data: unknown;
  /** Position of its `kind:` key, else of its start. */
  position: Position;
}

/** The documents of one file as data, with the syntax and bounds problems found in it. */
export interface ParsedYamlFile {
  documents: ParsedYamlDocument[];
  diagnostics: Diagnostic[];
}

/** Parses `text` (the content of `file`, relative to the project) into documents. */
export function parseYaml(text: string, file: string, dir: string): YamlFile {
  return yamlSources(parseYamlData(text, file), text, file, dir);
}

/**
 * The data of each document of `text` and the problems found, without the syntax trees (they are
 * most of a loaded file's memory, and most documents never need a position past their `kind:`).
 */
export function parseYamlData(text: string, file: string): ParsedYamlFile {
  // Plain files (most) are read by the fast reader, which declines anything else (yaml-fast.ts).
  return fastYamlData(text, file) ?? fullYamlData(text, file);
}

/** parseYamlData with the `yaml` package, for any text (exported for the fast reader's tests). */
export function fullYamlData(text: string, file: string): ParsedYamlFile {
  const lineCounter = new LineCounter();
  const docs = parseDocuments(text, lineCounter);
  const diagnostics: Diagnostic[] = [];
  const documents: ParsedYamlDocument[] = [];
  const at = (offset: number): Position => positionAt(lineCounter, file, offset);
  // An empty stream (only comments) parses to an EmptyStream, which has no documents.
  if (!Array.isArray(docs)) return { documents, diagnostics };
  const parsed = docs as Document.Parsed[];
  for (const [index, doc] of parsed.entries()) {
    if (doc.errors.length > 0) {
      for (const err of doc.errors) diagnostics.push(errorAt(at(err.pos[0]), '', yamlMessage(err.code, err.message)));
      continue;
    }
    // Documents holding only comments (e.g. after a trailing `---`) declare nothing.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    const problem = boundsProblem(doc);
    if (problem) {
      diagnostics.push(errorAt(at(problem.offset), '', problem.message, problem.hint));
      continue;
    }
    let data: unknown;
    try {
      // boundsProblem has bounded aliases (count, anchors, expansion, cycles) with positions; the
      // package's own count would rescan the document per anchor, so it is off (-1).
      data = doc.toJS({ maxAliasCount: -1 });
    } catch (err) {
      // The bounds above come first; this catches what the yaml package refuses besides.
      const message = err instanceof Error ? err.message.split('\n')[0] : 'cannot be read';
      diagnostics.push(errorAt(at(firstAliasOffset(doc) ?? doc.contents.range?.[0] ?? 0), '', `YAML: ${message}`));
      continue;
    }
    documents.push({ index, data, position: at(kindOffset(doc)) });
  }
  return { documents, diagnostics };
}

/**
 * The source documents of a parsed file. A field's position parses the file's text again, once
 * per file, when one is asked for (a diagnostic).
 */
export function yamlSources(parsed: ParsedYamlFile, text: string, file: string, dir: string): YamlFile {
  let again: { docs: Document.Parsed[]; lineCounter: LineCounter } | undefined;
  const reparsed = () => {
    if (!again) {
      const lineCounter = new LineCounter();
      again = { docs: parseDocuments(text, lineCounter) as Document.Parsed[], lineCounter };
    }
    return again;
  };
  const documents = parsed.documents.map((d) => yamlDocument(d.position, d.index, reparsed, d.data, file, dir));
  return { documents, diagnostics: parsed.diagnostics };
}

function positionAt(lineCounter: LineCounter, file: string, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { file, line: Math.max(line, 1), col };
}

/** The documents of `text`, with the options every parse of a definition file uses. */
function parseDocuments(text: string, lineCounter: LineCounter): Document.Parsed[] | ReturnType<typeof parseAllDocuments> {
  // merge: false keeps `<<` an ordinary key; logLevel: 'error' keeps the yaml package off stderr.
  // uniqueKeys: false because the package compares each key with every earlier one of its map
  // (quadratic: 16000 keys take seconds); boundsProblem finds duplicate keys with a set instead.
  return parseAllDocuments(text, { lineCounter, uniqueKeys: false, prettyErrors: false, merge: false, logLevel: 'error' }) as Document.Parsed[] | ReturnType<typeof parseAllDocuments>;
}

/** Offset of a document's `kind:` key, else of its start. */
function kindOffset(doc: Document.Parsed): number {
  const root = doc.contents as Node;
  if (isMap(root)) {
    const kindPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind');
    const offset = (kindPair?.key as Node | undefined)?.range?.[0];
    if (offset !== undefined) return offset;
  }
  return root?.range?.[0] ?? 0;
}

function yamlDocument(
  position: Position,
  index: number,
  reparsed: () => { docs: Document.Parsed[]; lineCounter: LineCounter },
  data: unknown,
  file: string,
  dir: string,
): SourceDocument {
  const start = (node: Node | null | undefined): number | undefined => node?.range?.[0];
  return {
    file,
    dir,
    data,
    position: () => ({ ...position }),
    locate(path: readonly PathSegment[], key = false) {
      const { docs, lineCounter } = reparsed();
      const at = (offset: number): Position => positionAt(lineCounter, file, offset);
      const doc = docs[index];
      const root = doc.contents as Node;
      let node: Node | null = root;
      let offset = start(root) ?? 0;
      for (let i = 0; i < path.length && node; i++) {
        if (isAlias(node)) node = (node.resolve(doc) as Node | undefined) ?? null;
        const seg = path[i];
        const last = i === path.length - 1;
        let next: Node | null = null;
        if (isMap(node)) {
          const pair: Pair | undefined = node.items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === seg);
          if (!pair) break;
          if (last && key) return at(start(pair.key as Node) ?? offset);
          next = (pair.value as Node | null) ?? null;
          // A key without a value (`field:`) has no value node: point at the key.
          if (!next) return at(start(pair.key as Node) ?? offset);
        } else if (isSeq(node) && typeof seg === 'number') {
          next = (node.items[seg] as Node | undefined) ?? null;
        }
        if (!next) break;
        node = next;
        offset = start(node) ?? offset;
      }
      return at(offset);
    },
  };
}

function yamlMessage(code: string, message: string): string {
  // The yaml package's messages end with a source excerpt; the first line is the message.
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return code === 'DUPLICATE_KEY' ? `${first} (duplicate key)` : `YAML: ${first}`;
}

/** A problem of a document's shape, at a source offset. */
interface BoundsProblem {
  offset: number;
  message: string;
  hint?: string;
}

/**
 * Checks a parsed document before it becomes data, in one pass in document order: every alias
 * names an anchor set before it in the same document (anchors do not cross `---`) and not one of
 * its own ancestors; aliases are few and expand to a bounded number of nodes (an alias bomb is
 * refused before anything is expanded); nesting is bounded; keys are plain scalars and none is
 * `__proto__`, `constructor` or another name every JavaScript object has.
 */
export function boundsProblem(doc: Document.Parsed): BoundsProblem | undefined {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const active = new Set<Node>();
  let aliases = 0;
  let anchorCount = 0;
  let expanded = 0;
  let problem: BoundsProblem | undefined;
  const fail = (node: Node | null | undefined, message: string, hint?: string): number => {
    problem ??= { offset: node?.range?.[0] ?? 0, message, ...(hint ? { hint } : {}) };
    return 0;
  };
  const size = (node: Node | null | undefined, depth: number): number => {
    if (problem || node === null || node === undefined) return 1;
    if (isAlias(node)) {
      if (++aliases > MAX_ALIASES) return fail(node, `YAML: more than ${MAX_ALIASES} aliases in one document`);
      const target = anchors.get(node.source);
      if (!target) {
        return fail(node, `YAML: alias *${node.source} has no anchor &${node.source} before it in this document`, 'anchors do not carry across --- documents');
      }
      if (active.has(target)) return fail(node, `YAML: alias *${node.source} is inside the node it refers to`);
      const n = sizes.get(target) ?? 1;
      expanded += n;
      if (expanded > MAX_ALIAS_EXPANSION) {
        return fail(node, `YAML: aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes`, 'an alias bomb (billion laughs) is refused; write the values out');
      }
      return n;
    }
    if (depth > MAX_DEPTH) return fail(node, `YAML: nested deeper than ${MAX_DEPTH} levels`);
    if (node.anchor) {
      if (++anchorCount > MAX_ANCHORS) return fail(node, `YAML: more than ${MAX_ANCHORS} anchors in one document`);
      anchors.set(node.anchor, node);
    }
    active.add(node);
    let n = 1;
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        if (key !== null && !isScalar(key)) return fail(key, 'YAML: a key must be a plain string, not a mapping, list or alias');
        // The key as JavaScript sees it: `1` and "1" are the same property.
        const name = key === null || key.value === null ? '' : String(key.value);
        if (isReservedKey(name)) {
          return fail(key, `key "${name}" is not allowed`, 'it names a property every JavaScript object has; no definition field is called so');
        }
        if (seen.has(name)) return fail(key ?? node, `duplicate key "${name}" (map keys must be unique)`);
        seen.add(name);
        n += size(key, depth + 1) + size(pair.value as Node | null, depth + 1);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) n += size(item as Node | null, depth + 1);
    }
    active.delete(node);
    sizes.set(node, n);
    return n;
  };
  size(doc.contents as Node | null, 0);
  return problem;
}

function firstAliasOffset(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  const walk = (node: unknown): void => {
    if (offset !== undefined || !node) return;
    if (isAlias(node)) offset = node.range?.[0];
    else if (isMap(node)) for (const p of node.items) (walk(p.key), walk(p.value));
    else if (isSeq(node)) for (const i of node.items) walk(i);
  };
  walk(doc.contents);
  return offset;
}
