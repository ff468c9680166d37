import { describe, expect, it } from 'vitest';
import { buildQuery, decodeMessage, encodeMessage, rcodeName, type DnsMessage, type DnsRecord } from '../../../src/runner/dns/codec.js';
import { DnsFormatError } from '../../../src/runner/dns/wire.js';
import { ipv6FromBytes, ipv6ToBytes } from '../../../src/runner/dns/ip.js';

const rr = (type: string, data: string, name = 'example.com.'): DnsRecord => ({ name, type, class: 1, ttl: 300, data });

const response = (answers: DnsRecord[]): DnsMessage => ({
  id: 0x1234,
  flags: { qr: true, opcode: 0, aa: true, tc: false, rd: true, ra: true, rcode: 0 },
  questions: [{ name: 'example.com.', type: answers[0]?.type ?? 'A', class: 1 }],
  answers,
  authorities: [],
  additionals: [],
});

describe('DNS wire codec', () => {
  it.each([
    ['A', '192.0.2.1'],
    ['AAAA', '2001:db8::1'],
    ['CNAME', 'target.example.net.'],
    ['NS', 'ns1.example.com.'],
    ['MX', '10 mail.example.com.'],
    ['TXT', 'v=spf1 include:_spf.example.com ~all'],
    ['SOA', 'ns1.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300'],
    ['HTTPS', '1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1'],
    ['HTTPS', '0 svc.example.net.'],
    ['TYPE99', '\\# 3 abcdef'],
  ])('round-trips a %s record (%s)', (type, data) => {
    const msg = response([rr(type, data)]);
    expect(decodeMessage(encodeMessage(msg))).toEqual(msg);
  });

  it('round-trips TXT data longer than one 255-byte character-string', () => {
    const long = 'x'.repeat(600);
    const msg = response([rr('TXT', long)]);
    expect(decodeMessage(encodeMessage(msg)).answers[0].data).toBe(long);
  });

  it('compresses repeated names with pointers and reads them back', () => {
    const answers = [rr('MX', '10 mail.example.com.'), rr('MX', '20 backup.mail.example.com.')];
    const msg = response(answers);
    const wire = encodeMessage(msg);
    const uncompressedNames = ['example.com.', 'example.com.', 'mail.example.com.', 'example.com.', 'backup.mail.example.com.'];
    const plainSize = 12 + uncompressedNames.reduce((n, name) => n + name.length + 1, 0) + 4 + 2 * (10 + 2);
    expect(wire.length).toBeLessThan(plainSize);
    // Every name after the question's starts with or ends in a pointer (0b11xxxxxx).
    expect([...wire].filter((b) => (b & 0xc0) === 0xc0).length).toBeGreaterThanOrEqual(4);
    expect(decodeMessage(wire)).toEqual(msg);
  });

  it('reads a hand-made response whose answer name is a pointer to the question', () => {
    const wire = Buffer.from([
      0xab, 0xcd, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0,
      3, 0x77, 0x77, 0x77, 7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0, 0, 1, 0, 1,
      0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 93, 184, 216, 34,
    ]);
    const msg = decodeMessage(wire);
    expect(msg.id).toBe(0xabcd);
    expect(msg.flags).toMatchObject({ qr: true, rd: true, ra: true, rcode: 0 });
    expect(msg.answers).toEqual([{ name: 'www.example.org.', type: 'A', class: 1, ttl: 3600, data: '93.184.216.34' }]);
  });

  it('rejects a pointer that does not point backwards (a loop)', () => {
    const wire = Buffer.from([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1]);
    expect(() => decodeMessage(wire)).toThrow(DnsFormatError);
  });

  it('rejects a truncated message', () => {
    const wire = encodeMessage(response([rr('A', '192.0.2.1')]));
    expect(() => decodeMessage(wire.subarray(0, wire.length - 2))).toThrow(DnsFormatError);
  });

  it('builds a recursive query with an EDNS(0) OPT record', () => {
    const q = decodeMessage(buildQuery(7, 'example.com', 'AAAA'));
    expect(q.id).toBe(7);
    expect(q.flags.rd).toBe(true);
    expect(q.questions).toEqual([{ name: 'example.com.', type: 'AAAA', class: 1 }]);
    expect(q.additionals).toEqual([{ name: '.', type: 'OPT', class: 1232, ttl: 0, data: '' }]);
  });

  it('keeps the rcode and names it', () => {
    const msg = { ...response([]), flags: { ...response([]).flags, rcode: 3 } };
    expect(decodeMessage(encodeMessage(msg)).flags.rcode).toBe(3);
    expect(rcodeName(3)).toBe('NXDOMAIN');
    expect(rcodeName(2)).toBe('SERVFAIL');
    expect(rcodeName(14)).toBe('RCODE14');
  });

  it('rejects labels over 63 bytes', () => {
    expect(() => buildQuery(1, `${'a'.repeat(64)}.com`, 'A')).toThrow(/label longer than 63/);
  });

  it.each([
    ['::', '::'],
    ['::1', '::1'],
    ['2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::ffff:192.0.2.1', '::ffff:c000:201'],
  ])('formats IPv6 %s as %s', (input, text) => {
    expect(ipv6FromBytes(ipv6ToBytes(input))).toBe(text);
  });
});
