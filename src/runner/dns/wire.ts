/**
 * Byte-level reading and writing of DNS messages (RFC 1035 §4), including domain names with
 * compression pointers. Names are in presentation form with a trailing dot (`example.com.`);
 * the root is `.`.
 */

/** A malformed or unsupported DNS message. */
export class DnsFormatError extends Error {}

const MAX_NAME = 255;
const MAX_LABEL = 63;

/** Splits a presentation name into labels; `\.` and `\\` escape, `\DDD` is a byte. */
export function nameToLabels(name: string): Buffer[] {
  if (name === '.' || name === '') return [];
  const labels: Buffer[] = [];
  let current: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch === '\\') {
      const digits = /^\d{3}/.exec(name.slice(i + 1));
      if (digits) {
        current.push(Number(digits[0]) & 0xff);
        i += 3;
      } else {
        current.push(...Buffer.from(name[i + 1] ?? '', 'utf8'));
        i += 1;
      }
    } else if (ch === '.') {
      if (current.length === 0) throw new DnsFormatError(`empty label in name "${name}"`);
      labels.push(Buffer.from(current));
      current = [];
    } else {
      current.push(...Buffer.from(ch, 'utf8'));
    }
  }
  if (current.length > 0) labels.push(Buffer.from(current));
  for (const label of labels) {
    if (label.length > MAX_LABEL) throw new DnsFormatError(`label longer than ${MAX_LABEL} bytes in name "${name}"`);
  }
  if (labels.reduce((n, l) => n + l.length + 1, 1) > MAX_NAME) throw new DnsFormatError(`name longer than ${MAX_NAME} bytes: "${name}"`);
  return labels;
}

function labelText(label: Buffer): string {
  let out = '';
  for (const byte of label) {
    if (byte === 0x2e || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte > 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${String(byte).padStart(3, '0')}`;
  }
  return out;
}

/** Appends bytes to a growing message and compresses names against those already written. */
export class WireWriter {
  private chunks: Buffer[] = [];
  private length = 0;
  // Lower-cased name suffix -> offset where it was written; names compare case-insensitively.
  private readonly names = new Map<string, number>();

  /** Current length of the message. */
  get offset(): number {
    return this.length;
  }

  /** Appends raw bytes. */
  bytes(buf: Buffer): this {
    this.chunks.push(buf);
    this.length += buf.length;
    return this;
  }

  /** Appends an unsigned 8-bit integer. */
  u8(v: number): this {
    return this.bytes(Buffer.from([v & 0xff]));
  }

  /** Appends an unsigned 16-bit big-endian integer. */
  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v & 0xffff);
    return this.bytes(b);
  }

  /** Appends an unsigned 32-bit big-endian integer. */
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    return this.bytes(b);
  }

  /** Appends a domain name, pointing at an earlier copy of its longest known suffix. */
  name(name: string, compress = true): this {
    const labels = nameToLabels(name);
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels
        .slice(i)
        .map((l) => labelText(l).toLowerCase())
        .join('.');
      const seen = compress ? this.names.get(suffix) : undefined;
      if (seen !== undefined) return this.u16(0xc000 | seen);
      // Pointers hold 14 bits, so only suffixes in the first 16 KiB can be targets.
      if (compress && this.length < 0x4000) this.names.set(suffix, this.length);
      this.u8(labels[i].length).bytes(labels[i]);
    }
    return this.u8(0);
  }

  /** Reserves a 16-bit length, runs `body`, then fills in how many bytes it wrote. */
  lengthPrefixed(body: () => void): this {
    const at = this.chunks.length;
    this.u16(0);
    const start = this.length;
    body();
    const size = this.length - start;
    if (size > 0xffff) throw new DnsFormatError('record data longer than 65535 bytes');
    this.chunks[at].writeUInt16BE(size);
    return this;
  }

  /** The message written so far. */
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** Reads a DNS message front to back; names may point anywhere earlier in `buf`. */
export class WireReader {
  constructor(
    readonly buf: Buffer,
    public offset = 0,
  ) {}

  private need(n: number): void {
    if (this.offset + n > this.buf.length) throw new DnsFormatError(`message truncated at byte ${this.offset}`);
  }

  /** Reads an unsigned 8-bit integer. */
  u8(): number {
    this.need(1);
    return this.buf.readUInt8(this.offset++);
  }

  /** Reads an unsigned 16-bit big-endian integer. */
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  /** Reads an unsigned 32-bit big-endian integer. */
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  /** Reads `n` raw bytes. */
  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** Reads a possibly compressed domain name. */
  name(): string {
    const labels: string[] = [];
    let pos = this.offset;
    let jumped = false;
    let total = 1;
    // Pointers must go strictly backwards, which rules out loops.
    let limit = pos;
    for (;;) {
      if (pos >= this.buf.length) throw new DnsFormatError(`name runs past the end of the message at byte ${pos}`);
      const len = this.buf[pos];
      if ((len & 0xc0) === 0xc0) {
        if (pos + 1 >= this.buf.length) throw new DnsFormatError(`truncated name pointer at byte ${pos}`);
        const target = ((len & 0x3f) << 8) | this.buf[pos + 1];
        if (target >= limit) throw new DnsFormatError(`name pointer at byte ${pos} does not point backwards`);
        if (!jumped) this.offset = pos + 2;
        jumped = true;
        limit = target;
        pos = target;
        continue;
      }
      if ((len & 0xc0) !== 0) throw new DnsFormatError(`unsupported label type at byte ${pos}`);
      if (len === 0) {
        if (!jumped) this.offset = pos + 1;
        break;
      }
      if (pos + 1 + len > this.buf.length) throw new DnsFormatError(`label runs past the end of the message at byte ${pos}`);
      total += len + 1;
      if (total > MAX_NAME) throw new DnsFormatError(`name longer than ${MAX_NAME} bytes at byte ${this.offset}`);
      labels.push(labelText(this.buf.subarray(pos + 1, pos + 1 + len)));
      pos += 1 + len;
    }
    return labels.length === 0 ? '.' : `${labels.join('.')}.`;
  }
}
