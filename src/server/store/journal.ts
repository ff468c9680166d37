import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync, fstatSync } from 'node:fs';
import { dirname } from 'node:path';

/** One committed write: the account it touched, counter values after it, and its operations. */
export interface JournalEntry {
  /** Account of the operations (absent on a counters-only line). */
  a?: string;
  /** Id counters per kind after this write. */
  c?: Record<string, number>;
  /** Operations: `["p", kind, id, value]` puts, `["d", kind, id]` deletes. */
  o?: JournalOp[];
}

/** A put or a delete of one record. */
export type JournalOp = ['p', string, string, unknown] | ['d', string, string];

/** An error in the journal file that is not a torn last line: the service refuses to start. */
export class JournalCorrupt extends Error {}

/**
 * Reads every entry of a journal. A last line without its newline that does not parse is a write
 * torn by a crash (never acknowledged) and is dropped; any other bad line is corruption.
 */
export function readJournal(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const entries: JournalEntry[] = [];
  lines.forEach((line, i) => {
    if (line === '') return;
    const last = i === lines.length - 1;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch (cause) {
      // Only the unterminated last line may be torn: every acknowledged write ends with "\n".
      if (last) return;
      throw new JournalCorrupt(`${path}:${i + 1}: unreadable journal line`, { cause });
    }
  });
  return entries;
}

/** An append-only journal: each append is one line, on disk (fsync) before append returns. */
export class Journal {
  private fd: number;
  private size: number;

  private constructor(private readonly path: string) {
    this.fd = openSync(path, 'a');
    this.size = fstatSync(this.fd).size;
  }

  /** Writes `entries` as a fresh journal (temp file, fsync, rename) and opens it for appends. */
  static rewrite(path: string, entries: Iterable<JournalEntry>): Journal {
    const tmp = `${path}.tmp-${process.pid}`;
    const fd = openSync(tmp, 'w');
    try {
      let chunk = '';
      for (const entry of entries) {
        chunk += `${JSON.stringify(entry)}\n`;
        if (chunk.length > 1 << 20) {
          writeAll(fd, chunk);
          chunk = '';
        }
      }
      writeAll(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    syncDir(dirname(path));
    return new Journal(path);
  }

  /**
   * Appends one entry durably. On any failure the file is cut back to its previous size and the
   * error is thrown, so a failed append leaves no partial line behind.
   */
  append(entry: JournalEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    try {
      const written = writeAll(this.fd, line);
      fsyncSync(this.fd);
      this.size += written;
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // The original error is the one worth reporting.
      }
      throw err;
    }
  }

  /** Closes the file; every append is already on disk. */
  close(): void {
    closeSync(this.fd);
  }
}

function writeAll(fd: number, text: string): number {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  return buf.length;
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}
