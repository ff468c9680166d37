/**
 * A fast reader for the plain YAML most definition files are written in: block mappings and
 * sequences indented with spaces, plain, quoted and literal (`|`, `|-`) scalars, one-line flow
 * collections, comments and `---` between documents. It reads that subset straight into plain
 * data, about ten times faster than the full parser and with far fewer intermediate objects.
 *
 * It never guesses: a file holding anything outside the subset (an anchor, a tag, an escape, a
 * multi-line plain or flow value, a tab, a carriage return, a key that is not a plain word, a
 * duplicate or reserved key, a syntax error, ...) is declined as a whole (undefined), and the
 * caller parses it with the `yaml` package as before. For what it accepts, the data, document
 * indexes and `kind:` positions are exactly those of the full parse (YAML 1.2 core schema, as
 * `parseYamlData` configures it); test/unit/yaml-fast.test.ts compares both on every example,
 * fixture and generated project, and on mutated texts.
 */
import type { Position } from './types.js';
import { isReservedKey } from './source.js';
import type { ParsedYamlDocument, ParsedYamlFile } from './yaml-source.js';

/** Thrown inside the reader when the text leaves the subset; never escapes fastYamlData. */
class Decline {}
const DECLINE = new Decline();

/**
 * Characters the reader accepts anywhere: printable ASCII, line feeds, and printable non-ASCII
 * that YAML treats as ordinary text (no NBSP, BOM, NEL, line or paragraph separators, surrogates
 * or other special characters). Tabs and carriage returns are declined too.
 */
const OUTSIDE_CHARS = /[^\n\x20-\x7e\u00a1-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;

/** A plain key the reader accepts (a word); the core schema reads these as strings except the words below. */
const KEY = /^([A-Za-z_][A-Za-z0-9_-]{0,99}):(?: +|$)/;
const FLOW_KEY = /[A-Za-z_][A-Za-z0-9_-]{0,99}/y;
const NON_STRING_WORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** Nesting the reader follows (the full parse refuses past 64 levels, with a diagnostic). */
const MAX_NESTING = 48;

/** The core schema's scalar tags, in the order the `yaml` package tries them. */
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** The value of a plain scalar under the YAML 1.2 core schema. */
export function coreScalar(s: string): unknown {
  const c = s.charCodeAt(0);
  // Most values start with a letter and are strings: only the null and bool words are not.
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
    if (s.length <= 5 && (NULL.test(s) || BOOL.test(s))) return NULL.test(s) ? null : s[0] === 't' || s[0] === 'T';
    return s;
  }
  if (NULL.test(s)) return null;
  if (INT_OCT.test(s)) return parseInt(s.substring(2), 8);
  if (INT.test(s)) return parseInt(s, 10);
  if (INT_HEX.test(s)) return parseInt(s.substring(2), 16);
  if (FLOAT_NAN.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (FLOAT_EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}

/** Characters that may not start a plain scalar (YAML indicators); `-`, `?`, `:` only before a space. */
function plainStartProblem(s: string): boolean {
  const c = s[0];
  if (c === undefined) return true;
  if ('!&*|>\'"%@`#,[]{}'.includes(c)) return true;
  if ((c === '-' || c === '?' || c === ':') && (s.length === 1 || s[1] === ' ')) return true;
  return false;
}

/**
 * The documents of `text` as `parseYamlData` would return them, when the text is in the subset
 * this reader knows; otherwise undefined (the caller parses it in full).
 */
export function fastYamlData(text: string, file: string): ParsedYamlFile | undefined {
  // A final line without its line feed changes how a last literal scalar ends: declined.
  if (text.length > 0 && !text.endsWith('\n')) return undefined;
  if (OUTSIDE_CHARS.test(text) || text.includes(' \n')) return undefined;
  try {
    return read(text, file);
  } catch (err) {
    if (err === DECLINE) return undefined;
    throw err;
  }
}

function read(text: string, file: string): ParsedYamlFile {
  const lines = text.split('\n');
  // The empty string after the last line feed is no line.
  lines.pop();
  // Documents: runs of lines between `---` lines. A `---` before any content starts the first
  // document rather than ending an empty one; a stream of comments alone holds no document.
  const starts: number[] = [];
  const ends: number[] = [];
  let start = 0;
  let content = false;
  let started = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.charCodeAt(0);
    // `-`, `.`, `%` in the first column: a document marker, a directive, or text starting so.
    if (c === 45 || c === 46 || c === 37) {
      if (line === '---') {
        if (content || started) {
          starts.push(start);
          ends.push(i);
        }
        start = i + 1;
        started = true;
        content = false;
        continue;
      }
      if (c !== 45 || line.startsWith('--') || line.startsWith('..')) throw DECLINE;
    }
    if (!content && line !== '' && !isComment(line)) content = true;
  }
  if (content || started) {
    starts.push(start);
    ends.push(lines.length);
  }
  const documents: ParsedYamlDocument[] = [];
  for (let index = 0; index < starts.length; index++) {
    const doc = new DocumentReader(lines, starts[index]!, ends[index]!);
    const first = doc.nextContent();
    // A document of comments only declares nothing (the full parse skips it too).
    if (first === undefined) continue;
    if (indentOf(lines[first]!) !== 0) throw DECLINE;
    doc.at = first;
    const data = doc.block(0, 0);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw DECLINE;
    if (doc.nextContent() !== undefined) throw DECLINE;
    const line = (doc.kindLine ?? first) + 1;
    const position: Position = { file, line, col: 1 };
    documents.push({ index, data, position });
  }
  return { documents, diagnostics: [] };
}

function isComment(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 35) return true;
    if (c !== 32) return false;
  }
  return false;
}

function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 32) n++;
  return n;
}

/** The rest of a line after a value: nothing, or a comment after a space. */
function endsLine(s: string, from: number): boolean {
  if (from === s.length) return true;
  if (s[from] !== ' ') return false;
  let i = from;
  while (s[i] === ' ') i++;
  return i === s.length || s[i] === '#';
}

class DocumentReader {
  /** The line being read. */
  at: number;
  /** The line of the top-level `kind:` key. */
  kindLine: number | undefined;

  constructor(
    private readonly lines: string[],
    start: number,
    private readonly end: number,
  ) {
    this.at = start;
  }

  /** The next line holding content (not blank, not a comment) from `at`, without moving. */
  nextContent(from = this.at): number | undefined {
    for (let i = from; i < this.end; i++) {
      const line = this.lines[i]!;
      if (line !== '' && !isComment(line)) return i;
    }
    return undefined;
  }

  /**
   * The line of the next entry of a block collection at column `indent`: undefined when the
   * collection ends (no content left, or a line less indented); a line more indented is outside the subset.
   */
  private nextEntry(indent: number): number | undefined {
    const i = this.nextContent();
    if (i === undefined) return undefined;
    const n = indentOf(this.lines[i]!);
    if (n < indent) return undefined;
    if (n > indent) throw DECLINE;
    return i;
  }

  /** The block collection whose entries start at column `indent` on line `at`. */
  block(indent: number, depth: number): unknown {
    if (depth > MAX_NESTING) throw DECLINE;
    const line = this.lines[this.at]!;
    if (line[indent] === '-' && (line.length === indent + 1 || line[indent + 1] === ' ')) return this.sequence(indent, depth);
    return this.mapping(indent, depth);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      const i = this.nextEntry(indent);
      if (i === undefined) break;
      const line = this.lines[i]!;
      const m = KEY.exec(line.slice(indent));
      if (m === null) {
        // A sequence item at a mapping's indentation ends the sequence value of a key above; anything else is outside the subset.
        if (line[indent] === '-') break;
        throw DECLINE;
      }
      const key = m[1]!;
      if (NON_STRING_WORDS.has(key) || isReservedKey(key) || Object.prototype.hasOwnProperty.call(out, key)) throw DECLINE;
      if (depth === 0 && key === 'kind') this.kindLine = i;
      const rest = line.slice(indent + m[0].length);
      this.at = i;
      out[key] = this.entryValue(rest, indent, depth, true);
    }
    return out;
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const i = this.nextEntry(indent);
      if (i === undefined) break;
      const line = this.lines[i]!;
      if (line[indent] !== '-') break;
      if (line.length > indent + 1 && line[indent + 1] !== ' ') throw DECLINE;
      let c = indent + 1;
      while (line[c] === ' ') c++;
      const rest = line.slice(c);
      this.at = i;
      if (rest !== '' && rest[0] !== '#' && KEY.test(rest)) {
        // `- key: value`: a mapping whose entries start at the key's column; read as if the
        // dash were a space.
        this.lines[i] = `${line.slice(0, indent)} ${line.slice(indent + 1)}`;
        out.push(this.mapping(c, depth + 1));
        this.lines[i] = line;
        continue;
      }
      if (rest.startsWith('- ') || rest === '-') throw DECLINE;
      out.push(this.entryValue(rest, indent, depth, false));
    }
    return out;
  }

  /**
   * The value of an entry whose text after `key:` or `- ` is `rest`, on line `at`, the entry
   * at column `indent`. Leaves `at` on the line after the value.
   */
  private entryValue(rest: string, indent: number, depth: number, inMapping: boolean): unknown {
    const line = this.at;
    if (rest === '' || rest[0] === '#') {
      const next = this.nextContent(line + 1);
      this.at = line + 1;
      if (next === undefined) return null;
      const n = indentOf(this.lines[next]!);
      if (n > indent) {
        this.at = next;
        return this.block(n, depth + 1);
      }
      // `key:` followed by `- item` lines at the key's own indentation.
      const text = this.lines[next]!;
      if (inMapping && n === indent && text[n] === '-' && (text.length === n + 1 || text[n + 1] === ' ')) {
        this.at = next;
        return this.sequence(n, depth + 1);
      }
      return null;
    }
    this.at = line + 1;
    const c = rest[0];
    if (c === '|') return this.literal(rest, indent);
    if (c === '"' || c === "'") {
      const { value, end } = quoted(rest, 0);
      if (!endsLine(rest, end)) throw DECLINE;
      return value;
    }
    if (c === '[' || c === '{') {
      const flow = new FlowReader(rest, depth);
      const value = flow.value();
      if (!endsLine(rest, flow.pos)) throw DECLINE;
      return value;
    }
    if (plainStartProblem(rest)) throw DECLINE;
    const hash = rest.indexOf(' #');
    const s = hash === -1 ? rest : rest.slice(0, hash).trimEnd();
    if (s.includes(': ') || s.endsWith(':')) throw DECLINE;
    return coreScalar(s);
  }

  /** A literal block scalar (`|` or `|-`) whose entry sits at column `indent`; `at` is its first line. */
  private literal(header: string, indent: number): string {
    let strip = false;
    let h = 1;
    if (header[1] === '-') {
      strip = true;
      h = 2;
    }
    if (!endsLine(header, h)) throw DECLINE;
    let k = this.at;
    while (k < this.end && this.lines[k] === '') k++;
    if (k >= this.end || indentOf(this.lines[k]!) <= indent) return '';
    const blockIndent = indentOf(this.lines[k]!);
    const parts: string[] = [];
    let last = this.at;
    for (let j = this.at; j < this.end; j++) {
      const text = this.lines[j]!;
      if (text === '') {
        parts.push('');
        continue;
      }
      const n = indentOf(text);
      if (n < blockIndent) {
        // A comment between the entry's column and the block's: declined rather than judged.
        if (n > indent && isComment(text)) throw DECLINE;
        break;
      }
      parts.push(text.slice(blockIndent));
      last = j;
    }
    // Trailing empty lines are chomped (clip keeps one line feed, strip none).
    parts.length = last - this.at + 1;
    this.at = last + 1;
    const body = parts.join('\n');
    return strip ? body : `${body}\n`;
  }
}

/** A single-line quoted scalar starting at `from` (no escapes: a backslash or doubled quote is declined). */
function quoted(s: string, from: number): { value: string; end: number } {
  const q = s[from]!;
  const close = s.indexOf(q, from + 1);
  if (close === -1) throw DECLINE;
  const value = s.slice(from + 1, close);
  if (q === '"' ? value.includes('\\') : s[close + 1] === "'") throw DECLINE;
  return { value, end: close + 1 };
}

/** A one-line flow collection (`[a, b]`, `{ k: v }`), nested ones included. */
class FlowReader {
  pos = 0;

  constructor(
    private readonly s: string,
    private readonly depth: number,
  ) {}

  private spaces(): void {
    while (this.s[this.pos] === ' ') this.pos++;
  }

  value(depth = this.depth): unknown {
    if (depth > MAX_NESTING) throw DECLINE;
    this.spaces();
    const c = this.s[this.pos];
    if (c === '[') return this.seq(depth);
    if (c === '{') return this.map(depth);
    if (c === '"' || c === "'") {
      const { value, end } = quoted(this.s, this.pos);
      this.pos = end;
      return value;
    }
    return this.plain();
  }

  private seq(depth: number): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.spaces();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.spaces();
      const c = this.s[this.pos];
      this.pos++;
      if (c === ']') return out;
      if (c !== ',') throw DECLINE;
      this.spaces();
      if (this.s[this.pos] === ']') throw DECLINE;
    }
  }

  private map(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.spaces();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      FLOW_KEY.lastIndex = this.pos;
      const m = FLOW_KEY.exec(this.s);
      if (m === null) throw DECLINE;
      const key = m[0];
      this.pos += key.length;
      if (this.s[this.pos] !== ':' || this.s[this.pos + 1] !== ' ') throw DECLINE;
      this.pos += 2;
      if (NON_STRING_WORDS.has(key) || isReservedKey(key) || Object.prototype.hasOwnProperty.call(out, key)) throw DECLINE;
      this.spaces();
      const c0 = this.s[this.pos];
      if (c0 === ',' || c0 === '}' || c0 === undefined) throw DECLINE;
      out[key] = this.value(depth + 1);
      this.spaces();
      const c = this.s[this.pos];
      this.pos++;
      if (c === '}') return out;
      if (c !== ',') throw DECLINE;
      this.spaces();
      if (this.s[this.pos] === '}') throw DECLINE;
    }
  }

  /** A plain scalar inside a flow collection: up to `,`, `]` or `}`; `:` and `#` are declined. */
  private plain(): unknown {
    const from = this.pos;
    let i = from;
    for (; i < this.s.length; i++) {
      const c = this.s[i];
      if (c === ',' || c === ']' || c === '}') break;
      if (c === ':' || c === '#' || c === '[' || c === '{' || c === '"' || c === "'") throw DECLINE;
    }
    const text = this.s.slice(from, i).trimEnd();
    if (text === '' || plainStartProblem(text)) throw DECLINE;
    this.pos = i;
    return coreScalar(text);
  }
}
