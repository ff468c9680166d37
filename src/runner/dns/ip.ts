import { isIPv4, isIPv6 } from 'node:net';
import { DnsFormatError } from './wire.js';

/** The 4 bytes of a dotted IPv4 address. */
export function ipv4ToBytes(text: string): Buffer {
  if (!isIPv4(text)) throw new DnsFormatError(`not an IPv4 address: "${text}"`);
  return Buffer.from(text.split('.').map(Number));
}

/** Dotted text of 4 address bytes. */
export function ipv4FromBytes(buf: Buffer): string {
  if (buf.length !== 4) throw new DnsFormatError(`an IPv4 address has 4 bytes, not ${buf.length}`);
  return [...buf].join('.');
}

/** The 16 bytes of an IPv6 address (`::` and a trailing dotted IPv4 part allowed). */
export function ipv6ToBytes(text: string): Buffer {
  if (!isIPv6(text)) throw new DnsFormatError(`not an IPv6 address: "${text}"`);
  let groups: string[];
  let tail: number[] = [];
  let body = text;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (v4) {
    tail = [...ipv4ToBytes(v4[1])];
    body = body.slice(0, -v4[1].length);
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1);
  }
  const wanted = 8 - tail.length / 2;
  if (body.includes('::')) {
    const [head, rest] = body.split('::');
    const h = head ? head.split(':') : [];
    const r = rest ? rest.split(':') : [];
    groups = [...h, ...Array<string>(wanted - h.length - r.length).fill('0'), ...r];
  } else {
    groups = body ? body.split(':') : [];
  }
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  Buffer.from(tail).copy(out, 16 - tail.length);
  return out;
}

/** RFC 5952 text of 16 address bytes: lower case, the longest run of zero groups as `::`. */
export function ipv6FromBytes(buf: Buffer): string {
  if (buf.length !== 16) throw new DnsFormatError(`an IPv6 address has 16 bytes, not ${buf.length}`);
  return ipv6Text(Array.from({ length: 8 }, (_, i) => buf.readUInt16BE(i * 2)));
}

/** RFC 5952 text of the eight 16-bit groups of an IPv6 address: lower case, the longest run of two or more zero groups as `::`. */
export function ipv6Text(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  // A single zero group is not shortened (RFC 5952 §4.2.2).
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
