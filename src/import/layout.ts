import { posix } from 'node:path';
import { Document } from 'yaml';
import { KINDS, type Kind } from '../schema/kinds.js';
import type { ImportedDoc } from './convert.js';
import { IMPORT_KINDS } from './table.js';

/** A file import writes, relative to the project directory with `/` separators. */
export interface OutFile {
  path: string;
  content: string;
  /** What the file holds, for the summary. */
  kind?: Kind;
  documents?: number;
}

/** Where files may go: paths already on disk are never written. */
export interface LayoutOptions {
  /** Whether a path (relative to the project directory) is taken already. */
  exists(path: string): boolean;
  /** The `$schema` reference of a kind's JSON Schema as seen from `fromFile`; none = no comment line. */
  schemaRef?(kind: Kind, fromFile: string): string | undefined;
}

/**
 * Places imported definitions in files: one YAML file per kind (multi-document, `---`), scripts in
 * `.js` files beside them referenced by `scriptFile`. A name already taken on disk, or earlier in
 * this run, gets a numbered sibling (`checks/tcp-2.yaml`), so nothing is ever overwritten.
 */
export function layout(docs: ImportedDoc[], opts: LayoutOptions): OutFile[] {
  const taken = new Set<string>();
  const claim = (wanted: string): string => {
    const ext = posix.extname(wanted);
    const stem = wanted.slice(0, wanted.length - ext.length);
    let path = wanted;
    for (let n = 2; taken.has(path) || opts.exists(path); n++) path = `${stem}-${n}${ext}`;
    taken.add(path);
    return path;
  };

  const files: OutFile[] = [];
  for (const kind of KINDS) {
    const ofKind = docs.filter((d) => d.kind === kind);
    if (ofKind.length === 0) continue;
    const spec = IMPORT_KINDS[kind];
    const yamlPath = claim(spec.file);
    const rendered: string[] = [];
    for (const d of ofKind) {
      let doc = d.doc;
      if (d.script && spec.scriptDir) {
        const scriptPath = claim(`${spec.scriptDir}/${d.id}.js`);
        // Written byte for byte: scriptFile is read back verbatim, so a newline added here would be a diff.
        files.push({ path: scriptPath, content: d.script.content });
        doc = replaceKey(doc, d.script.field, 'scriptFile', relativeRef(yamlPath, scriptPath));
      }
      rendered.push(renderDocument(doc));
    }
    const schema = opts.schemaRef?.(kind, yamlPath);
    const header = schema ? `# yaml-language-server: $schema=${schema}\n` : '';
    files.push({ path: yamlPath, content: header + rendered.join('---\n'), kind, documents: ofKind.length });
  }
  return files;
}

/** One YAML document, block style, without line folding (long strings stay greppable). */
export function renderDocument(doc: Record<string, unknown>): string {
  return new Document(doc).toString({ lineWidth: 0 });
}

/** `./x.js` or `../y/x.js`: how a file names another, relative to its own folder. */
export function relativeRef(fromFile: string, target: string): string {
  const rel = posix.relative(posix.dirname(fromFile), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

function replaceKey(doc: Record<string, unknown>, key: string, newKey: string, value: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => (k === key ? [newKey, value] : [k, v])));
}
