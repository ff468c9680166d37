import { WireReader, WireWriter, DnsFormatError } from './wire.js';
import { decodeRdata, encodeRdata, typeCode, typeName } from './rdata.js';

/** Response codes by number (RFC 1035 §4.1.1, RFC 2136 §2.2, RFC 6895 §2.3). */
export const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];

/** The name of a response code (`RCODE<n>` beyond the known ones). */
export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

/** The class IN, the only one the runner asks for. */
export const CLASS_IN = 1;

/** One question of a message. */
export interface DnsQuestion {
  name: string;
  type: string;
  class: number;
}

/** One resource record; `data` is its presentation text (see rdata.ts). */
export interface DnsRecord {
  name: string;
  type: string;
  class: number;
  ttl: number;
  data: string;
}

/** Header flags of a message. */
export interface DnsFlags {
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  ra: boolean;
  rcode: number;
}

/** A whole DNS message. */
export interface DnsMessage {
  id: number;
  flags: DnsFlags;
  questions: DnsQuestion[];
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
}

const DEFAULT_FLAGS: DnsFlags = { qr: false, opcode: 0, aa: false, tc: false, rd: false, ra: false, rcode: 0 };

/** Writes a message in wire format, compressing repeated names. */
export function encodeMessage(msg: Partial<DnsMessage> & { id: number }): Buffer {
  const f = { ...DEFAULT_FLAGS, ...msg.flags };
  const questions = msg.questions ?? [];
  const sections = [msg.answers ?? [], msg.authorities ?? [], msg.additionals ?? []];
  const w = new WireWriter();
  w.u16(msg.id);
  w.u16(
    (Number(f.qr) << 15) | ((f.opcode & 0xf) << 11) | (Number(f.aa) << 10) | (Number(f.tc) << 9) | (Number(f.rd) << 8) | (Number(f.ra) << 7) | (f.rcode & 0xf),
  );
  w.u16(questions.length).u16(sections[0].length).u16(sections[1].length).u16(sections[2].length);
  for (const q of questions) w.name(q.name).u16(typeCode(q.type)).u16(q.class);
  for (const section of sections) {
    for (const rr of section) {
      w.name(rr.name).u16(typeCode(rr.type)).u16(rr.class).u32(rr.ttl);
      w.lengthPrefixed(() => encodeRdata(w, rr.type, rr.data));
    }
  }
  return w.toBuffer();
}

/** Reads a message in wire format; throws DnsFormatError on anything malformed. */
export function decodeMessage(buf: Buffer): DnsMessage {
  const r = new WireReader(buf);
  const id = r.u16();
  const bits = r.u16();
  const counts = [r.u16(), r.u16(), r.u16(), r.u16()];
  const flags: DnsFlags = {
    qr: (bits & 0x8000) !== 0,
    opcode: (bits >> 11) & 0xf,
    aa: (bits & 0x0400) !== 0,
    tc: (bits & 0x0200) !== 0,
    rd: (bits & 0x0100) !== 0,
    ra: (bits & 0x0080) !== 0,
    rcode: bits & 0xf,
  };
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) questions.push({ name: r.name(), type: typeName(r.u16()), class: r.u16() });
  const readRecords = (n: number): DnsRecord[] => {
    const out: DnsRecord[] = [];
    for (let i = 0; i < n; i++) {
      const name = r.name();
      const type = typeName(r.u16());
      const cls = r.u16();
      const ttl = r.u32();
      const length = r.u16();
      if (r.offset + length > buf.length) throw new DnsFormatError(`record data runs past the end of the message at byte ${r.offset}`);
      out.push({ name, type, class: cls, ttl, data: decodeRdata(r, type, length) });
    }
    return out;
  };
  const answers = readRecords(counts[1]);
  const authorities = readRecords(counts[2]);
  const additionals = readRecords(counts[3]);
  return { id, flags, questions, answers, authorities, additionals };
}

/** EDNS(0) OPT record advertising `udpSize` bytes (RFC 6891 §6.1.2): the class holds the size. */
export function ednsOpt(udpSize: number): DnsRecord {
  return { name: '.', type: 'OPT', class: udpSize, ttl: 0, data: '' };
}

/** A recursive query for one name and type, with EDNS(0) so that answers over 512 bytes fit in UDP. */
export function buildQuery(id: number, name: string, type: string, udpSize = 1232): Buffer {
  return encodeMessage({
    id,
    flags: { ...DEFAULT_FLAGS, rd: true },
    questions: [{ name: toFqdn(name), type, class: CLASS_IN }],
    additionals: [ednsOpt(udpSize)],
  });
}

/** `example.com` -> `example.com.`; already absolute names are kept. */
export function toFqdn(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}
