import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIp, inCidr, parseCidr, parseIp } from '../../../src/server/net/address.js';
import {
  DEFAULT_DENIED,
  TargetPolicy,
  databaseTarget,
  parseDenyTargets,
  policyDispatcher,
  policyLookup,
  policyRules,
  staticRules,
} from '../../../src/server/net/policy.js';
import { runCheck } from '../../../src/runner/index.js';

const policyOf = async (values: string[], listenPort = 4010, database: { host: string; port: number } | null = null) =>
  new TargetPolicy(await policyRules(parseDenyTargets(values), { listen: { host: '127.0.0.1', port: listenPort }, database }));

describe('addresses', () => {
  it('reads IPv4, IPv6 and IPv4-mapped IPv6 as one number each', () => {
    expect(parseIp('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('::ffff:127.0.0.1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('::ffff:7f00:1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('[::ffff:7f00:1]')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('0:0:0:0:0:ffff:7f00:0001')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIp('fe80::1%eth0')).toEqual({ family: 6, value: (0xfe80n << 112n) | 1n });
    expect(parseIp('fd00:ec2::254')?.value).toBe((0xfd00n << 112n) | (0xec2n << 96n) | 0x254n);
    // Not canonical: the resolver turns these into addresses first (see the lookups below).
    for (const odd of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', 'localhost', '', '1.2.3.256', '::ffff:1.2.3']) expect(parseIp(odd)).toBeNull();
  });

  it('writes addresses back canonically', () => {
    for (const a of ['127.0.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', '2001:db8:0:1::', '1:2:3:4:5:6:7:8', '2001:0:0:1::1']) expect(formatIp(parseIp(a)!)).toBe(a);
    expect(formatIp(parseIp('::ffff:10.0.0.1')!)).toBe('10.0.0.1');
  });

  it('matches networks at their edges', () => {
    const ll = parseCidr('169.254.0.0/16')!;
    expect(inCidr(parseIp('169.254.0.0')!, ll)).toBe(true);
    expect(inCidr(parseIp('169.254.255.255')!, ll)).toBe(true);
    expect(inCidr(parseIp('169.253.255.255')!, ll)).toBe(false);
    expect(inCidr(parseIp('169.255.0.0')!, ll)).toBe(false);
    expect(inCidr(parseIp('::ffff:169.254.1.1')!, ll)).toBe(true);
    const fe80 = parseCidr('fe80::/10')!;
    expect(inCidr(parseIp('fe80::')!, fe80)).toBe(true);
    expect(inCidr(parseIp('febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff')!, fe80)).toBe(true);
    expect(inCidr(parseIp('fec0::')!, fe80)).toBe(false);
    expect(inCidr(parseIp('fe7f:ffff::')!, fe80)).toBe(false);
    // No match across families, except through the IPv4-mapped form.
    expect(inCidr(parseIp('::a9fe:1')!, ll)).toBe(false);
    const all = parseCidr('0.0.0.0/0')!;
    expect(inCidr(parseIp('255.255.255.255')!, all)).toBe(true);
    expect(inCidr(parseIp('::1')!, all)).toBe(false);
    // Host bits are cleared; a mapped network counts its bits in the IPv6 form.
    expect(parseCidr('10.1.2.3/8')).toEqual({ family: 4, value: 0x0a000000n, bits: 8 });
    expect(parseCidr('::ffff:10.0.0.0/104')).toEqual({ family: 4, value: 0x0a000000n, bits: 8 });
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('::/129')).toBeNull();
    expect(parseCidr('::ffff:10.0.0.0/64')).toBeNull();
  });
});

describe('--deny-targets items', () => {
  it('reads networks, addresses, ports and names, additive across values', () => {
    const t = parseDenyTargets(['10.0.0.0/8, 192.168.1.5:8080', '[::1]:5432,[fd00::/8]:80', 'db.internal:5432,metadata.example']);
    expect(t.defaults).toBe(true);
    expect(t.entries.map((e) => [e.host, e.port, e.net?.bits ?? null])).toEqual([
      ['10.0.0.0/8', null, 8],
      ['192.168.1.5', 8080, 32],
      ['::1', 5432, 128],
      ['fd00::/8', 80, 8],
      ['db.internal', 5432, null],
      ['metadata.example', null, null],
    ]);
    expect(parseDenyTargets(['none']).defaults).toBe(false);
    expect(parseDenyTargets(['none,10.0.0.0/8'])).toMatchObject({ defaults: false, entries: [{ text: '10.0.0.0/8' }] });
  });

  it('names the item that is wrong', () => {
    expect(() => parseDenyTargets(['10.0.0.0/8,10.0.0.1:0'])).toThrow(/--deny-targets: invalid item "10.0.0.1:0": the port must be 1..65535/);
    expect(() => parseDenyTargets(['10.0.0.0/40'])).toThrow(/invalid item "10.0.0.0\/40": not a network/);
    expect(() => parseDenyTargets(['a b'])).toThrow(/invalid item "a b"/);
    expect(() => parseDenyTargets(['::1:80'])).not.toThrow(); // an IPv6 address (no brackets: no port)
    expect(() => parseDenyTargets(['[::1]:x'])).toThrow(/invalid item/);
  });
});

describe('the default policy', () => {
  it("refuses the service's port on every address of this host, not other ports", async () => {
    const p = await policyOf([], 4010);
    for (const ip of ['127.0.0.1', '127.0.0.2', '::1', '0.0.0.0', '::', '::ffff:127.0.0.1']) {
      expect(p.refuses(ip, 4010)).toMatch(/is refused by the service's network policy \(--deny-targets: the service itself\)/);
    }
    expect(p.refuses('127.0.0.1', 4010)).toBe("target 127.0.0.1:4010 is refused by the service's network policy (--deny-targets: the service itself)");
    expect(p.refuses('::1', 4010)).toMatch(/^target \[::1\]:4010 /);
    expect(p.refuses('127.0.0.1', 4011)).toBeNull();
    expect(p.refuses('93.184.216.34', 4010)).toBeNull();
  });

  it('refuses link-local and cloud metadata addresses on every port', async () => {
    const p = await policyOf([]);
    expect(p.refuses('169.254.169.254', 80)).toMatch(/cloud metadata/);
    expect(p.refuses('::ffff:169.254.169.254', 80)).toMatch(/cloud metadata/);
    expect(p.refuses('fd00:ec2::254', 80)).toMatch(/cloud metadata/);
    expect(p.refuses('169.254.1.1', 22)).toMatch(/link-local/);
    expect(p.refuses('fe80::1', 22)).toMatch(/link-local/);
    expect(p.refuses('169.255.0.1', 22)).toBeNull();
    expect(p.refuses('fec0::1', 22)).toBeNull();
    // What is not an address is refused rather than let through.
    expect(p.refuses('localhost', 80)).toMatch(/not an IP address/);
  });

  it("refuses the database's port: on this host's addresses when local, on its addresses when remote", async () => {
    const local = await policyOf([], 4010, { host: 'localhost', port: 5433 });
    expect(local.refuses('127.0.0.1', 5433)).toMatch(/the service's database/);
    expect(local.refuses('::1', 5433)).toMatch(/the service's database/);
    expect(local.refuses('0.0.0.0', 5433)).toMatch(/the service's database/);
    expect(local.refuses('127.0.0.1', 5432)).toBeNull();
    const remote = new TargetPolicy(
      await policyRules(parseDenyTargets([]), {
        listen: { host: '127.0.0.1', port: 4010 },
        database: { host: 'db.example', port: 5432 },
        resolve: async (name) => (name === 'db.example' ? ['10.9.8.7', 'fd12::7'] : ['127.0.0.1']),
      }),
    );
    expect(remote.refuses('10.9.8.7', 5432)).toMatch(/the service's database/);
    expect(remote.refuses('fd12::7', 5432)).toMatch(/the service's database/);
    expect(remote.refuses('10.9.8.7', 5433)).toBeNull();
    expect(remote.refuses('127.0.0.1', 5432)).toBeNull();
  });

  it('reads the database target of a PostgreSQL URL as libpq does', () => {
    expect(databaseTarget('postgres://u:pw@db.example:6543/x')).toEqual({ host: 'db.example', port: 6543 });
    expect(databaseTarget('postgres://u@[::1]/x')).toEqual({ host: '::1', port: 5432 });
    expect(databaseTarget('postgresql:///x')).toEqual({ host: 'localhost', port: 5432 });
    expect(databaseTarget('postgres:///x?host=10.0.0.5&port=7000')).toEqual({ host: '10.0.0.5', port: 7000 });
    expect(databaseTarget('postgres:///x?host=/var/run/postgresql')).toBeNull();
  });

  it('adds the items given; `none` drops the defaults', async () => {
    const p = await policyOf(['10.0.0.0/8', '192.168.1.1:22', '[::1]:9999']);
    expect(p.refuses('10.255.0.1', 1)).toMatch(/--deny-targets: 10.0.0.0\/8\)/);
    expect(p.refuses('192.168.1.1', 22)).toMatch(/192.168.1.1:22/);
    expect(p.refuses('192.168.1.1', 23)).toBeNull();
    expect(p.refuses('::1', 9999)).toMatch(/\[::1\]:9999/);
    expect(p.refuses('127.0.0.1', 9999)).toBeNull();
    expect(p.refuses('169.254.169.254', 80)).not.toBeNull();
    const open = await policyOf(['none']);
    expect(open.list()).toEqual([]);
    expect(open.refuses('127.0.0.1', 4010)).toBeNull();
    expect(open.refuses('169.254.169.254', 80)).toBeNull();
    // Before the service listens, the rules that do not depend on its port already hold.
    expect(staticRules(parseDenyTargets([]))).toHaveLength(DEFAULT_DENIED.length);
  });

  it('resolves named items at start, and names the one that does not resolve', async () => {
    const p = new TargetPolicy(
      await policyRules(parseDenyTargets(['internal.example:8443']), { listen: { host: '127.0.0.1', port: 1 }, resolve: async () => ['10.1.1.1'] }),
    );
    expect(p.refuses('10.1.1.1', 8443)).toMatch(/internal.example:8443/);
    await expect(policyRules(parseDenyTargets(['nowhere.invalid']), { listen: { host: '127.0.0.1', port: 1 } })).rejects.toThrow(
      /--deny-targets: cannot resolve "nowhere.invalid"/,
    );
  });
});

describe('the policy after resolution', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('inside'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('catches every numeric form and name of a refused address (the system resolver reads them)', async () => {
    const p = await policyOf([], port);
    const lookup = policyLookup(p, port);
    for (const host of ['localhost', '127.0.0.1', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '0.0.0.0', '0']) {
      const err = await new Promise<NodeJS.ErrnoException | null>((r) => lookup(host, { family: 4 }, (e) => r(e)));
      expect(err?.message, host).toMatch(new RegExp(`is refused by the service's network policy`));
    }
    const other = policyLookup(p, port + 1);
    const ok = await new Promise<NodeJS.ErrnoException | null>((r) => other('127.0.0.1', { family: 4 }, (e) => r(e)));
    expect(ok).toBeNull();
  });

  it('refuses URL and TCP checks by every form and lets another port of loopback through', async () => {
    const p = await policyOf([], port);
    for (const url of [`http://127.0.0.1:${port}/`, `http://2130706433:${port}/`, `http://0x7f.1:${port}/`, `http://localhost:${port}/`, `http://0.0.0.0:${port}/`]) {
      const [r] = await runCheck({ checkType: 'URL', name: 'u', request: { url } }, { guard: p, limits: { timeoutMs: 3000 } });
      expect(r.hasFailures, url).toBe(true);
      expect(r.errorMessage, url).toMatch(/is refused by the service's network policy/);
      expect(r.apiCheckResult?.requestError, url).toMatch(/^target (127\.0\.0\.1|0\.0\.0\.0):\d+ is refused/);
      expect(r.networkError).toBe(false);
    }
    for (const hostname of ['127.0.0.1', '::ffff:127.0.0.1', '2130706433', 'localhost', '0.0.0.0']) {
      const [r] = await runCheck({ checkType: 'TCP', name: 't', request: { hostname, port } }, { guard: p, limits: { timeoutMs: 3000, idleMs: 100 } });
      expect(r.apiCheckResult?.requestError, hostname).toMatch(/is refused by the service's network policy/);
    }
    const open = await policyOf([], port + 1);
    const [ok] = await runCheck({ checkType: 'URL', name: 'u', request: { url: `http://127.0.0.1:${port}/` } }, { guard: open });
    expect(ok.hasFailures).toBe(false);
  });

  it('refuses IPv6 forms of this host (mapped, loopback, unspecified) where a dual-stack listener would answer', async () => {
    const dual = http.createServer((_req, res) => res.end('inside'));
    await new Promise<void>((r) => dual.listen(0, '::', () => r()));
    const dualPort = (dual.address() as AddressInfo).port;
    try {
      const p = await policyOf([], dualPort);
      for (const url of [`http://[::ffff:127.0.0.1]:${dualPort}/`, `http://[::1]:${dualPort}/`, `http://[::]:${dualPort}/`]) {
        const [open] = await runCheck({ checkType: 'URL', name: 'u', request: { url, ipFamily: 'IPv6' } }, { limits: { timeoutMs: 3000 } });
        expect(open.apiCheckResult?.response.body, `${url} without a policy`).toBe('inside');
        const [r] = await runCheck({ checkType: 'URL', name: 'u', request: { url, ipFamily: 'IPv6' } }, { guard: p, limits: { timeoutMs: 3000 } });
        expect(r.apiCheckResult?.requestError, url).toMatch(/^target (127\.0\.0\.1|\[::1\]|\[::\]):\d+ is refused by the service's network policy/);
      }
    } finally {
      await new Promise<void>((r) => dual.close(() => r()));
    }
  });

  it('refuses a DNS check whose name server is refused', async () => {
    const p = await policyOf(['127.0.0.1:5399']);
    const [r] = await runCheck(
      { checkType: 'DNS', name: 'd', request: { query: 'example.com', recordType: 'A', nameServer: '127.0.0.1', port: 5399 } },
      { guard: p, limits: { timeoutMs: 2000 } },
    );
    expect(r.apiCheckResult?.requestError).toMatch(/target 127.0.0.1:5399 is refused/);
  });

  it('the dispatcher refuses a request to a refused address and lets others through', async () => {
    const { request } = await import('undici');
    const refusing = await policyDispatcher(await policyOf([], port));
    await expect(request(`http://localhost:${port}/`, { dispatcher: refusing })).rejects.toThrow(/target 127\.0\.0\.1:\d+ is refused/);
    await expect(request(`http://2130706433:${port}/`, { dispatcher: refusing })).rejects.toThrow(/is refused/);
    const allowing = await policyDispatcher(await policyOf([], port + 1));
    const res = await request(`http://localhost:${port}/`, { dispatcher: allowing });
    expect(await res.body.text()).toBe('inside');
    await Promise.all([refusing.close(), allowing.close()]);
  });
});
