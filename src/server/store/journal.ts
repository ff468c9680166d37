import type { StoreCommit, StoreOp } from './backend.js';
import { StateError } from './errors.js';

/**
 * The JSON-lines journal of earlier versions of `mac serve --state`: one committed write per line,
 * `{"a": account, "c": {kind: counter}, "o": [["p", kind, id, value] | ["d", kind, id]]}`. It is
 * only read now, to import it once into a database (open.ts).
 */
export type JournalEntry = StoreCommit;

/** An error in a journal file: the import refuses it and leaves the file as it is. */
export class JournalCorrupt extends StateError {}

/**
 * Reads every entry of a journal, strictly. A last line without its newline that does not parse is
 * a write torn by a crash (never acknowledged) and is dropped; any other line that is empty, not
 * JSON, or not a journal entry refuses the whole journal, naming the line.
 */
export function readJournal(path: string, text: string): JournalEntry[] {
  const hint = 'the file was changed by something other than mac serve; repair or remove that line (or restore a backup), then start again';
  const lines = text.split('\n');
  // A journal ends with "\n": the element after it is empty and is not a line.
  if (lines[lines.length - 1] === '') lines.pop();
  const entries: JournalEntry[] = [];
  lines.forEach((line, i) => {
    const at = `${path}:${i + 1}`;
    const last = i === lines.length - 1 && !text.endsWith('\n');
    if (line.trim() === '') throw new JournalCorrupt(`${at}: empty journal line`, hint);
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      // Only the unterminated last line may be torn: every acknowledged write ends with "\n".
      if (last && line.startsWith('{')) return;
      throw new JournalCorrupt(`${at}: unreadable journal line`, hint, { cause });
    }
    const problem = entryProblem(parsed);
    if (problem) throw new JournalCorrupt(`${at}: not a journal entry (${problem})`, hint);
    entries.push(parsed as JournalEntry);
  });
  return entries;
}

function entryProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const e = v as Record<string, unknown>;
  const extra = Object.keys(e).filter((k) => k !== 'a' && k !== 'c' && k !== 'o');
  if (extra.length > 0) return `unknown field "${extra[0]}"`;
  if (e.a === undefined && e.c === undefined) return 'no account and no counters';
  if (e.a !== undefined && typeof e.a !== 'string') return '"a" is not a string';
  if (e.c !== undefined) {
    if (typeof e.c !== 'object' || e.c === null || Array.isArray(e.c)) return '"c" is not an object';
    if (Object.values(e.c).some((n) => !Number.isSafeInteger(n))) return 'a counter is not an integer';
  }
  if (e.o !== undefined) {
    if (!Array.isArray(e.o)) return '"o" is not a list';
    if (e.a === undefined) return 'operations without an account';
    for (const op of e.o as unknown[]) if (!isOp(op)) return `bad operation ${JSON.stringify(op)?.slice(0, 60)}`;
  }
  return undefined;
}

function isOp(op: unknown): op is StoreOp {
  if (!Array.isArray(op) || typeof op[1] !== 'string' || typeof op[2] !== 'string') return false;
  if (op[0] === 'p') return op.length === 4 && typeof op[3] === 'object' && op[3] !== null && !Array.isArray(op[3]);
  return op[0] === 'd' && op.length === 3;
}
