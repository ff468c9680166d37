/** Reads multi-document YAML text into source documents with positions; syntax errors become diagnostics. */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node, type Pair } from 'yaml';
import type { Diagnostic, Position } from './types.js';
import { errorAt, type PathSegment, type SourceDocument } from './source.js';

/** The documents of one YAML file and the syntax problems found in it. */
export interface YamlFile {
  documents: SourceDocument[];
  diagnostics: Diagnostic[];
}

/** Parses `text` (the content of `file`, relative to the project) into documents. */
export function parseYaml(text: string, file: string, dir: string): YamlFile {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const diagnostics: Diagnostic[] = [];
  const documents: SourceDocument[] = [];
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line: Math.max(line, 1), col };
  };
  // An empty stream (only comments) parses to an EmptyStream, which has no documents.
  if (!Array.isArray(docs)) return { documents, diagnostics };
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      for (const err of doc.errors) diagnostics.push(errorAt(at(err.pos[0]), '', yamlMessage(err.code, err.message)));
      continue;
    }
    // Documents holding only comments (e.g. after a trailing `---`) declare nothing.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    documents.push(yamlDocument(doc, file, dir, at));
  }
  return { documents, diagnostics };
}

function yamlDocument(doc: Document.Parsed, file: string, dir: string, at: (offset: number) => Position): SourceDocument {
  const root = doc.contents as Node;
  const start = (node: Node | null | undefined): number | undefined => node?.range?.[0];
  return {
    file,
    dir,
    data: doc.toJS({ maxAliasCount: 100 }),
    position() {
      if (isMap(root)) {
        const kindPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind');
        const offset = start(kindPair?.key as Node | undefined);
        if (offset !== undefined) return at(offset);
      }
      return at(start(root) ?? 0);
    },
    locate(path: readonly PathSegment[], key = false) {
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
