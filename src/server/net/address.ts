import net from 'node:net';
import { ipv6Text } from '../../runner/dns/ip.js';

/**
 * IP addresses as numbers, for the network policy's matching. Only canonical literals are read
 * (what a resolver returns, what `net.isIP` accepts): the numeric forms a URL or `getaddrinfo`
 * accepts (`2130706433`, `0x7f.1`, `127.1`) are resolved to a canonical address before the
 * policy sees them. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is the
 * IPv4 address it maps: a connection to it reaches that address.
 */

/** One address: its family and value (32 or 128 bits). */
export interface Ip {
  family: 4 | 6;
  value: bigint;
}

/** A network: an address and its prefix length. */
export interface Cidr extends Ip {
  bits: number;
}

const MAPPED_PREFIX = 0xffffn << 32n;

/**
 * Parses a canonical address, with or without IPv6 brackets and zone (`[fe80::1%eth0]`); null
 * when it is not one. IPv4-mapped IPv6 addresses come back as IPv4.
 */
export function parseIp(text: string): Ip | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '');
  const kind = net.isIP(bare);
  if (kind === 4) return { family: 4, value: v4Value(bare) };
  if (kind !== 6) return null;
  const value = v6Value(bare);
  if (value >> 32n === MAPPED_PREFIX >> 32n) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

function v4Value(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

// `net.isIP` has validated the text: groups are hex, at most one `::`, an optional dotted tail.
function v6Value(text: string): bigint {
  let groups: number[] = [];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let head = text;
  if (tail) {
    const v4 = Number(v4Value(tail[1]));
    head = text.slice(0, -tail[1].length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [left, right] = head.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  if (right === undefined) groups = parse(left);
  else {
    const l = parse(left);
    const r = parse(right);
    groups = [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** Whether `ip` lies in `cidr` (same family, same leading `bits`). */
export function inCidr(ip: Ip, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const width = cidr.family === 4 ? 32n : 128n;
  const shift = width - BigInt(cidr.bits);
  return ip.value >> shift === cidr.value >> shift;
}

/** `ADDR` or `ADDR/BITS` -> a network; null when it is not one. Host bits set are cleared. */
export function parseCidr(text: string): Cidr | null {
  const m = /^(.+?)(?:\/(\d{1,3}))?$/.exec(text);
  if (!m) return null;
  const bare = m[1].replace(/^\[(.*)\]$/, '$1');
  // A mapped address with a prefix counts its bits in the IPv6 form: /104 of ::ffff:a.b.c.d is /8.
  const ip = parseIp(bare);
  if (!ip) return null;
  const written = net.isIP(bare) === 6 ? 128 : 32;
  const bits = m[2] === undefined ? written : Number(m[2]);
  if (bits > written) return null;
  const effective = ip.family === 4 && written === 128 ? bits - 96 : bits;
  if (effective < 0) return null;
  const width = ip.family === 4 ? 32n : 128n;
  const shift = width - BigInt(effective);
  return { family: ip.family, value: (ip.value >> shift) << shift, bits: effective };
}

/** The canonical text of an address (IPv6 compressed, as node writes it), for messages. */
export function formatIp(ip: Ip): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join('.');
  return ipv6Text(Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn)));
}
