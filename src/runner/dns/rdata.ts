import { DnsFormatError, WireReader, WireWriter } from './wire.js';
import { ipv4FromBytes, ipv4ToBytes, ipv6FromBytes, ipv6ToBytes } from './ip.js';

/**
 * Record data per type, one table: how a record's `data` text (dig-like presentation, names
 * with a trailing dot) is written to and read from the wire. Types outside the table use
 * RFC 3597's generic `\# <length> <hex>` form both ways.
 */
interface RdataCodec {
  code: number;
  /** Writes `data` as record data; `w` may compress names where RFC 3597 §4 allows it. */
  encode(w: WireWriter, data: string): void;
  /** Reads `length` bytes of record data starting at `r.offset`. */
  decode(r: WireReader, length: number): string;
}

const fields = (data: string, n: number, type: string): string[] => {
  const parts = data.trim().split(/\s+/);
  if (parts.length !== n) throw new DnsFormatError(`${type} data needs ${n} fields, got "${data}"`);
  return parts;
};

const uint = (text: string, max: number, what: string): number => {
  const v = Number(text);
  if (!Number.isInteger(v) || v < 0 || v > max) throw new DnsFormatError(`${what} must be an integer 0..${max}, got "${text}"`);
  return v;
};

const nameRecord = (code: number): RdataCodec => ({
  code,
  encode: (w, data) => void w.name(data.trim()),
  decode: (r) => r.name(),
});

// SVCB/HTTPS parameter keys (RFC 9460 §14.3.2) and their value codecs.
const SVC_KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'] as const;

const svcKeyCode = (name: string): number => {
  const known = (SVC_KEYS as readonly string[]).indexOf(name);
  if (known >= 0) return known;
  const m = /^key(\d+)$/.exec(name);
  if (!m) throw new DnsFormatError(`unknown HTTPS parameter "${name}"`);
  return uint(m[1], 65535, 'HTTPS parameter key');
};
const svcKeyName = (code: number): string => SVC_KEYS[code] ?? `key${code}`;

function encodeSvcValue(key: number, value: string): Buffer {
  const list = value === '' ? [] : value.split(',');
  switch (key) {
    case 0:
      return Buffer.concat(list.map((k) => u16(svcKeyCode(k))));
    case 1:
      return Buffer.concat(list.map((id) => Buffer.concat([Buffer.from([Buffer.byteLength(id)]), Buffer.from(id)])));
    case 2:
      return Buffer.alloc(0);
    case 3:
      return u16(uint(value, 65535, 'port'));
    case 4:
      return Buffer.concat(list.map(ipv4ToBytes));
    case 5:
      return Buffer.from(value, 'base64');
    case 6:
      return Buffer.concat(list.map(ipv6ToBytes));
    default:
      return Buffer.from(value, 'hex');
  }
}

function decodeSvcValue(key: number, buf: Buffer): string {
  const chunks = (size: number) => Array.from({ length: Math.floor(buf.length / size) }, (_, i) => buf.subarray(i * size, (i + 1) * size));
  switch (key) {
    case 0:
      return chunks(2).map((b) => svcKeyName(b.readUInt16BE())).join(',');
    case 1: {
      const ids: string[] = [];
      for (let i = 0; i < buf.length; i += 1 + buf[i]) ids.push(buf.subarray(i + 1, i + 1 + buf[i]).toString('utf8'));
      return ids.join(',');
    }
    case 2:
      return '';
    case 3:
      return String(buf.readUInt16BE());
    case 4:
      return chunks(4).map(ipv4FromBytes).join(',');
    case 5:
      return buf.toString('base64');
    case 6:
      return chunks(16).map(ipv6FromBytes).join(',');
    default:
      return buf.toString('hex');
  }
}

function u16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}

const https: RdataCodec = {
  code: 65,
  encode(w, data) {
    const [priority, target, ...params] = data.trim().split(/\s+/);
    w.u16(uint(priority, 65535, 'HTTPS priority'));
    // RFC 9460 §2.2: the target name is never compressed.
    w.name(target ?? '.', false);
    const parsed = params.map((p) => {
      const eq = p.indexOf('=');
      const key = svcKeyCode(eq < 0 ? p : p.slice(0, eq));
      return { key, value: encodeSvcValue(key, eq < 0 ? '' : p.slice(eq + 1)) };
    });
    // Parameters go on the wire in increasing key order (RFC 9460 §2.2).
    for (const { key, value } of parsed.sort((a, b) => a.key - b.key)) w.u16(key).u16(value.length).bytes(value);
  },
  decode(r, length) {
    const end = r.offset + length;
    const parts = [String(r.u16()), r.name()];
    while (r.offset < end) {
      const key = r.u16();
      const value = r.bytes(r.u16());
      const text = decodeSvcValue(key, value);
      parts.push(key === 2 ? svcKeyName(key) : `${svcKeyName(key)}=${text}`);
    }
    return parts.join(' ');
  },
};

/** Codec of every record type the runner reads and the test responder writes, by type name. */
export const RDATA: Record<string, RdataCodec> = {
  A: {
    code: 1,
    encode: (w, data) => void w.bytes(ipv4ToBytes(data.trim())),
    decode: (r, length) => ipv4FromBytes(r.bytes(length)),
  },
  NS: nameRecord(2),
  CNAME: nameRecord(5),
  SOA: {
    code: 6,
    encode(w, data) {
      const [mname, rname, ...nums] = fields(data, 7, 'SOA');
      w.name(mname).name(rname);
      nums.forEach((n, i) => w.u32(uint(n, 0xffffffff, `SOA field ${i + 3}`)));
    },
    decode(r) {
      const mname = r.name();
      const rname = r.name();
      return [mname, rname, r.u32(), r.u32(), r.u32(), r.u32(), r.u32()].join(' ');
    },
  },
  MX: {
    code: 15,
    encode(w, data) {
      const [pref, exchange] = fields(data, 2, 'MX');
      w.u16(uint(pref, 65535, 'MX preference')).name(exchange);
    },
    decode: (r) => `${r.u16()} ${r.name()}`,
  },
  TXT: {
    code: 16,
    // The text of one record is its character-strings joined, as resolvers present it to users.
    encode(w, data) {
      const bytes = Buffer.from(data, 'utf8');
      if (bytes.length === 0) w.u8(0);
      for (let i = 0; i < bytes.length; i += 255) {
        const chunk = bytes.subarray(i, i + 255);
        w.u8(chunk.length).bytes(chunk);
      }
    },
    decode(r, length) {
      const end = r.offset + length;
      const chunks: Buffer[] = [];
      while (r.offset < end) chunks.push(r.bytes(r.u8()));
      return Buffer.concat(chunks).toString('utf8');
    },
  },
  AAAA: {
    code: 28,
    encode: (w, data) => void w.bytes(ipv6ToBytes(data.trim())),
    decode: (r, length) => ipv6FromBytes(r.bytes(length)),
  },
  OPT: {
    code: 41,
    encode: (w, data) => void w.bytes(Buffer.from(data.trim(), 'hex')),
    decode: (r, length) => r.bytes(length).toString('hex'),
  },
  HTTPS: https,
};

const BY_CODE = new Map(Object.entries(RDATA).map(([name, codec]) => [codec.code, name]));

/** The name of a record type code (`TYPE<n>` for types outside the table). */
export function typeName(code: number): string {
  return BY_CODE.get(code) ?? `TYPE${code}`;
}

/** The code of a record type name (`A`, `TYPE99`). */
export function typeCode(name: string): number {
  const known = RDATA[name.toUpperCase()];
  if (known) return known.code;
  const m = /^TYPE(\d+)$/i.exec(name);
  if (!m) throw new DnsFormatError(`unknown record type "${name}"`);
  return uint(m[1], 65535, 'record type');
}

/** Writes record data of type `type` (a name) from its presentation text. */
export function encodeRdata(w: WireWriter, type: string, data: string): void {
  const codec = RDATA[type.toUpperCase()];
  if (codec) return codec.encode(w, data);
  const m = /^\\#\s+(\d+)\s*([0-9a-fA-F\s]*)$/.exec(data.trim());
  if (!m) throw new DnsFormatError(`data of type ${type} must be "\\# <length> <hex>", got "${data}"`);
  const bytes = Buffer.from(m[2].replace(/\s+/g, ''), 'hex');
  if (bytes.length !== Number(m[1])) throw new DnsFormatError(`data of type ${type} says ${m[1]} bytes but holds ${bytes.length}`);
  w.bytes(bytes);
}

/** Reads `length` bytes of record data of type `type` (a name) as presentation text. */
export function decodeRdata(r: WireReader, type: string, length: number): string {
  const end = r.offset + length;
  const codec = RDATA[type];
  const text = codec ? codec.decode(r, length) : `\\# ${length} ${r.bytes(length).toString('hex')}`.trimEnd();
  if (r.offset !== end) throw new DnsFormatError(`${type} record data is ${length} bytes but ${r.offset - (end - length)} were read`);
  return text;
}
