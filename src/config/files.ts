/**
 * Reading the files of a project safely: a file is read only when, with symlinks followed, it
 * lies inside the project root and is a regular file; it is read with a bounded read (never more
 * than its limit + 1 bytes) and must be UTF-8. A definition may name any path, and a pull request
 * may add any file: nothing outside the project (/etc/passwd, /proc/self/environ, a symlink to
 * outside), no FIFO (which would block), no device and no oversize file is ever read.
 */
import { constants, type Stats } from 'node:fs';
import { open, realpath, statfs } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { sep } from 'node:path';

/** A script file may hold at most this many bytes (the API's own body limit). */
export const SCRIPT_FILE_LIMIT = 1024 * 1024;
/** A definition file (YAML, *.mac.ts, mac.config.yaml) may hold at most this many bytes. */
export const DEFINITION_FILE_LIMIT = 8 * 1024 * 1024;

/** Why a file was not read. */
export type FileProblem =
  | { kind: 'missing' }
  | { kind: 'outside' }
  | { kind: 'not-regular'; what: string }
  | { kind: 'too-large'; limit: number }
  | { kind: 'not-utf8'; line: number; col: number; byte: number }
  | { kind: 'unreadable'; code: string };

/** The text of a file, or why it was not read. */
export type FileRead = { ok: true; text: string } | { ok: false; problem: FileProblem };

/** The project root with symlinks followed: every file read must lie inside it. */
export async function projectRoot(dir: string): Promise<string> {
  return realpath(dir);
}

/** Whether the real path `real` is the real directory `root` or lies below it. */
export function isInside(root: string, real: string): boolean {
  const prefix = root.endsWith(sep) ? root : root + sep;
  return real === root || real.startsWith(prefix);
}

// Pseudo filesystems whose "regular files" are views of the running system (/proc/self/environ).
const PSEUDO_FILESYSTEMS = new Set([
  0x9fa0, // proc
  0x62656572, // sysfs
  0x64626720, // debugfs
  0x74726163, // tracefs
  0x1cd1, // devpts
  0x27e0eb, // cgroup
  0x63677270, // cgroup2
  0x73636673, // securityfs
]);

/**
 * Reads `path` (absolute) as UTF-8 text if it lies inside `root` (already a real path) with
 * symlinks followed, is a regular file, and holds at most `limit` bytes.
 */
export async function readProjectFile(root: string, path: string, limit: number): Promise<FileRead> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    return { ok: false, problem: code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'unreadable', code } };
  }
  if (!isInside(root, real)) return { ok: false, problem: { kind: 'outside' } };

  let handle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the real path has no
    // symlink left, so one appearing now is a swap between the check and the open.
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ENOENT') return { ok: false, problem: { kind: 'missing' } };
    if (code === 'ELOOP') return { ok: false, problem: { kind: 'not-regular', what: 'a symlink' } };
    return { ok: false, problem: { kind: 'unreadable', code } };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, problem: { kind: 'not-regular', what: describe(stats) } };
    const fs = await statfs(real).catch(() => undefined);
    if (fs && PSEUDO_FILESYSTEMS.has(Number(fs.type))) return { ok: false, problem: { kind: 'not-regular', what: 'a file of a system pseudo filesystem' } };
    const bytes = await boundedRead(handle, limit, stats.size);
    if (!bytes) return { ok: false, problem: { kind: 'too-large', limit } };
    if (!isUtf8(bytes)) return { ok: false, problem: { kind: 'not-utf8', ...firstInvalidUtf8(bytes) } };
    return { ok: true, text: bytes.toString('utf8') };
  } catch (err) {
    return { ok: false, problem: { kind: 'unreadable', code: (err as NodeJS.ErrnoException).code ?? 'EIO' } };
  } finally {
    await handle.close().catch(() => {});
  }
}

type Handle = Awaited<ReturnType<typeof open>>;

/** Reads at most `limit` + 1 bytes; undefined when the file holds more than `limit`. */
async function boundedRead(handle: Handle, limit: number, sizeHint: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  // The size is a hint only (a file may grow meanwhile): the bound is on what is read.
  let chunkSize = Math.min(limit + 1, Math.max(sizeHint + 1, 4096));
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(chunkSize, limit + 1 - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limit) return undefined;
    chunkSize = 64 * 1024;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

function describe(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Line, column (in characters, 1-based) and value of the first byte that is not part of valid
 * UTF-8, for a buffer that `isUtf8` refused.
 */
export function firstInvalidUtf8(bytes: Uint8Array): { line: number; col: number; byte: number } {
  let line = 1;
  let col = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const n = sequenceLength(bytes, i);
    if (n === 0) return { line, col, byte: b };
    if (b === 0x0a) {
      line++;
      col = 1;
    } else {
      col++;
    }
    i += n;
  }
  // isUtf8 refused the buffer, so the loop returns; this is only a fallback.
  return { line, col, byte: bytes[bytes.length - 1] ?? 0 };
}

/** Length of the valid UTF-8 sequence at `i`, or 0 when it is invalid (overlong, surrogate, > U+10FFFF, cut). */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k] >= lo && bytes[i + k] <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** The words a diagnostic uses for a problem with the file `name` (as the definition wrote it). */
export function describeProblem(name: string, problem: FileProblem): string {
  switch (problem.kind) {
    case 'missing':
      return `cannot read "${name}": no such file`;
    case 'outside':
      return `"${name}" is outside the project`;
    case 'not-regular':
      return `"${name}" is not a regular file (${problem.what})`;
    case 'too-large':
      return `"${name}" is larger than ${formatLimit(problem.limit)}`;
    case 'not-utf8':
      return `"${name}" is not UTF-8 text (byte 0x${problem.byte.toString(16).padStart(2, '0')} at line ${problem.line}, column ${problem.col})`;
    case 'unreadable':
      return `cannot read "${name}": ${problem.code}`;
  }
}

function formatLimit(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
