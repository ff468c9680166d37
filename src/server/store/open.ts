import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IndexedKinds } from './backend.js';
import { StateError } from './errors.js';
import { readJournal } from './journal.js';
import { SqliteBackend } from './sqlite.js';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** A journal imported at open: how many entries, and where the original now lies. */
export interface JournalImport {
  entries: number;
  backup: string;
}

/**
 * Opens the database file of `--state`/`--database sqlite:`: a SQLite database (created when the
 * file is missing or empty), or the JSON-lines journal of earlier versions, imported once into a
 * new database at the same path (the journal kept as `FILE.journal-backup`). Anything else is
 * refused with the file left untouched.
 */
export function openSqliteState(path: string, indexed: IndexedKinds): { backend: SqliteBackend; imported?: JournalImport } {
  const kind = fileKind(path);
  if (kind === 'sqlite') return { backend: SqliteBackend.open(path, indexed) };
  if (kind === 'other') {
    throw new StateError(
      `${path}: neither a mac serve database nor a mac serve journal; it was left unchanged`,
      'point --state/--database at a mac serve database, a journal of an earlier mac serve, or a new file',
    );
  }
  const imported = importJournal(path, indexed);
  return { backend: SqliteBackend.open(path, indexed), imported };
}

function fileKind(path: string): 'sqlite' | 'journal' | 'other' {
  if (!existsSync(path) || statSync(path).size === 0) return 'sqlite';
  if (!statSync(path).isFile()) return 'other';
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(16);
  let n: number;
  try {
    n = readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (n === 16 && head.toString('latin1') === SQLITE_MAGIC) return 'sqlite';
  // Every journal line is a JSON object.
  return head[0] === 0x7b ? 'journal' : 'other';
}

/**
 * Imports the journal at `path` into a new database built beside it, then keeps the journal as a
 * backup and moves the database into place (a rename, so a crash leaves either the journal, to be
 * imported again, or the database). A journal with a bad line is refused before anything is written.
 */
function importJournal(path: string, indexed: IndexedKinds): JournalImport {
  const entries = readJournal(path, readFileSync(path, 'utf8'));
  const tmp = `${path}.import-${process.pid}`;
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  const db = SqliteBackend.open(tmp, indexed);
  try {
    db.importCommits(entries);
  } finally {
    db.close();
  }
  for (const f of [`${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  const backup = freeName(`${path}.journal-backup`);
  copyFileSync(path, backup);
  fsyncFile(backup);
  // A journal has no WAL of its own: these could only be leftovers that SQLite would replay.
  for (const f of [`${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  renameSync(tmp, path);
  fsyncFile(dirname(path));
  return { entries: entries.length, backup };
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}

function fsyncFile(path: string): void {
  try {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}
