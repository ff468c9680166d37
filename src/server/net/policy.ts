import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';
import type * as Undici from 'undici';
import { TargetRefused, guardedLookup, type LookupFunction, type TargetGuard } from '../../runner/guard.js';
import { formatIp, inCidr, parseCidr, parseIp, type Cidr } from './address.js';

/**
 * The service's network policy (`mac serve --deny-targets`): which addresses and ports the
 * checks it runs (URL, API, TCP, DNS name servers) and its webhooks may not connect to. Every
 * account of the service can make it connect somewhere; without a policy one account reaches the
 * service itself, its database and the cloud metadata endpoint from inside. Matching happens on
 * the address a name resolved to, on every connection, so names and numeric forms cannot go
 * around it. `mac test` has no policy: it runs on the user's own machine.
 */

/** One rule: a network, a port (null: every port) and why it is there (shown in refusals). */
export interface DenyRule {
  net: Cidr;
  port: number | null;
  why: string;
}

/** One `--deny-targets` item as written: an address or network, or a name resolved at start. */
export interface DenyEntry {
  text: string;
  /** A network, or null when `host` is a name. */
  net: Cidr | null;
  host: string;
  port: number | null;
}

/** What `--deny-targets` says: its items, and whether the default list applies (`none` drops it). */
export interface DenyTargets {
  defaults: boolean;
  entries: DenyEntry[];
}

/** The flag named in refusals and errors. */
export const DENY_FLAG = '--deny-targets';

/** Denied on every port by default: link-local networks and the cloud metadata addresses. */
export const DEFAULT_DENIED: ReadonlyArray<{ cidr: string; why: string }> = [
  { cidr: '169.254.169.254/32', why: 'cloud metadata' },
  { cidr: 'fd00:ec2::254/128', why: 'cloud metadata' },
  { cidr: '169.254.0.0/16', why: 'link-local' },
  { cidr: 'fe80::/10', why: 'link-local' },
];

/** "This host" as a connection sees it, whatever address the service binds: loopback and unspecified. */
const THIS_HOST = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

/**
 * Parses the values of `--deny-targets` (repeatable, each a comma-separated list, all added
 * together): `CIDR`, `ADDR`, `ADDR:PORT`, `[V6]:PORT`, `CIDR:PORT`, `[V6/BITS]:PORT`, `NAME` or
 * `NAME:PORT` (names are resolved when the service starts); `none` drops the default list.
 * Throws an Error naming the item.
 */
export function parseDenyTargets(values: readonly string[]): DenyTargets {
  const out: DenyTargets = { defaults: true, entries: [] };
  for (const item of values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean)) {
    if (item.toLowerCase() === 'none') {
      out.defaults = false;
      continue;
    }
    out.entries.push(parseDenyEntry(item));
  }
  return out;
}

function parseDenyEntry(item: string): DenyEntry {
  const bad = (why: string) => new Error(`${DENY_FLAG}: invalid item "${item}": ${why} (expected CIDR, ADDRESS, HOST:PORT or [IPV6]:PORT)`);
  let host = item;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
  if (bracket) [host, portText] = [bracket[1], bracket[2]];
  else if ((item.match(/:/g) ?? []).length === 1) [host, portText] = item.split(':');
  let port: number | null = null;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) throw bad('the port must be 1..65535');
    port = Number(portText);
  }
  const cidr = parseCidr(host);
  if (cidr) return { text: item, net: cidr, host, port };
  if (host.includes('/')) throw bad('not a network');
  if (!/^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$/.test(host)) throw bad('not an address or host name');
  return { text: item, net: null, host, port };
}

/**
 * The rules known before the service listens: the items that are addresses or networks, and the
 * default networks unless `none` dropped them. A service made in process (tests) that never
 * listens keeps these; `policyRules` completes them.
 */
export function staticRules(targets: DenyTargets): DenyRule[] {
  const rules: DenyRule[] = targets.entries.flatMap((e) => (e.net ? [{ net: e.net, port: e.port, why: e.text }] : []));
  if (targets.defaults) for (const d of DEFAULT_DENIED) rules.push(rule(d.cidr, null, d.why));
  return rules;
}

/** A rule for `cidr` text known to be valid. */
function rule(cidr: string, port: number | null, why: string): DenyRule {
  return { net: parseCidr(cidr)!, port, why };
}

/**
 * The rules of a policy. Refuses with the message runs record:
 * `target 127.0.0.1:4010 is refused by the service's network policy (--deny-targets: the service itself)`.
 */
export class TargetPolicy implements TargetGuard {
  private rules: DenyRule[];

  constructor(rules: readonly DenyRule[] = []) {
    this.rules = [...rules];
  }

  /** Replaces the rules (the service completes them once it listens and knows its port). */
  replace(rules: readonly DenyRule[]): void {
    this.rules = [...rules];
  }

  /** The rules, in the order they are matched. */
  list(): readonly DenyRule[] {
    return this.rules;
  }

  /** Why `ip`:`port` may not be reached, or null. A text that is not an address is refused. */
  refuses(ip: string, port: number): string | null {
    const addr = parseIp(ip);
    if (!addr) return `target ${ip} is not an IP address; refused by the service's network policy (${DENY_FLAG})`;
    const hit = this.rules.find((r) => (r.port === null || r.port === port) && inCidr(addr, r.net));
    if (!hit) return null;
    const shown = addr.family === 6 ? `[${formatIp(addr)}]` : formatIp(addr);
    return `target ${shown}:${port} is refused by the service's network policy (${DENY_FLAG}: ${hit.why})`;
  }
}

/** Where the service is reached and where its database is: their ports are denied by default. */
export interface PolicyContext {
  /** The address the service binds (`--host`) and the port it got. */
  listen: { host: string; port: number };
  /** The PostgreSQL database's host and port (from `--database`), when it has one. */
  database?: { host: string; port: number } | null;
  /** Resolves a name to every address (tests pass their own). */
  resolve?: (name: string) => Promise<string[]>;
}

/** Every address of a name (`dns.lookup` with `all`), or an address literal itself. */
export async function resolveAll(name: string): Promise<string[]> {
  if (net.isIP(name.replace(/^\[(.*)\]$/, '$1'))) return [name.replace(/^\[(.*)\]$/, '$1')];
  const found = await dns.promises.lookup(name, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** The addresses of this machine's interfaces (connections to them on a port reach local listeners). */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address);
}

/** Whether a connection to `ip` reaches this machine itself (loopback, unspecified, an interface). */
function isThisHost(ip: string, interfaces: readonly string[]): boolean {
  const addr = parseIp(ip);
  if (!addr) return false;
  if (THIS_HOST.some((c) => inCidr(addr, parseCidr(c)!))) return true;
  return interfaces.some((i) => {
    const other = parseIp(i);
    return other !== null && other.family === addr.family && other.value === addr.value;
  });
}

/**
 * Rules denying `port` on `host`: on every address of this machine when `host` is one of them
 * (a listener on 127.0.0.1 or 0.0.0.0 is reached through `localhost`, `0.0.0.0`, `[::1]` or an
 * interface's address alike), else on each address the name resolves to.
 */
async function portRules(host: string, port: number, why: string, resolve: (name: string) => Promise<string[]>, interfaces: readonly string[]): Promise<DenyRule[]> {
  const addresses = host === '' ? ['127.0.0.1'] : await resolve(host);
  const local = addresses.filter((a) => isThisHost(a, interfaces));
  const rules: DenyRule[] = [];
  if (local.length > 0) {
    for (const c of THIS_HOST) rules.push(rule(c, port, why));
    for (const i of interfaces) {
      const cidr = parseCidr(i);
      if (cidr) rules.push({ net: cidr, port, why });
    }
  }
  for (const a of addresses.filter((x) => !local.includes(x))) {
    const cidr = parseCidr(a);
    if (cidr) rules.push({ net: cidr, port, why });
  }
  return rules;
}

/**
 * The rules of `--deny-targets` for a service that listens at `ctx.listen`: the items given
 * (names resolved now: an item that does not resolve is an Error naming it), then, unless `none`
 * dropped them, the defaults: the service's own port and its database's port on the addresses
 * they are reached at, link-local networks and cloud metadata addresses.
 */
export async function policyRules(targets: DenyTargets, ctx: PolicyContext): Promise<DenyRule[]> {
  const resolve = ctx.resolve ?? resolveAll;
  const interfaces = interfaceAddresses();
  const rules: DenyRule[] = [];
  for (const e of targets.entries) {
    if (e.net) {
      rules.push({ net: e.net, port: e.port, why: e.text });
      continue;
    }
    let addresses: string[];
    try {
      addresses = await resolve(e.host);
    } catch (err) {
      throw new Error(`${DENY_FLAG}: cannot resolve "${e.host}" (item "${e.text}"): ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    for (const a of addresses) {
      const cidr = parseCidr(a);
      if (cidr) rules.push({ net: cidr, port: e.port, why: e.text });
    }
  }
  if (!targets.defaults) return rules;
  rules.push(...(await portRules(ctx.listen.host, ctx.listen.port, 'the service itself', resolve, interfaces)));
  if (ctx.database) {
    // A database name that does not resolve now cannot be connected to either: the store says so.
    const db = await portRules(ctx.database.host, ctx.database.port, "the service's database", resolve, interfaces).catch(() => []);
    rules.push(...db);
  }
  for (const d of DEFAULT_DENIED) rules.push(rule(d.cidr, null, d.why));
  return rules;
}

/**
 * The host and port a PostgreSQL URL connects to (libpq's defaults: localhost, 5432; a `host`
 * query parameter naming a socket directory is no TCP target); null when it has none.
 */
export function databaseTarget(url: string): { host: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const param = u.searchParams.get('host');
  const host = param && !param.startsWith('/') ? param : u.hostname.replace(/^\[(.*)\]$/, '$1') || (param ? '' : 'localhost');
  if (host === '') return null;
  const port = Number(u.searchParams.get('port') ?? u.port) || 5432;
  return { host, port };
}

/** `dns.lookup` for `net.connect({ lookup })` that refuses what `policy` refuses on `port`. */
export function policyLookup(policy: TargetGuard, port: number, base?: LookupFunction): LookupFunction {
  return guardedLookup(policy, port, base);
}

let undici: typeof Undici | undefined;

/**
 * An undici Agent whose every connection (every request, every redirect it follows) resolves
 * the host itself and is refused when `policy` refuses the address and port: for the service's
 * outgoing requests (webhooks, alert senders) as `fetch(url, { dispatcher })` of undici. The
 * TLS server name stays the host name, so certificates are checked against it.
 */
export async function policyDispatcher(policy: TargetGuard, options: Undici.Agent.Options = {}): Promise<Undici.Dispatcher> {
  undici ??= await import('undici');
  const base = undici.buildConnector({});
  return new undici.Agent({
    ...options,
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      const connectTo = (address: string) => {
        const reason = policy.refuses(address, port);
        if (reason) return callback(new TargetRefused(reason), null);
        base({ ...opts, hostname: address, servername: opts.servername ?? (net.isIP(host) ? undefined : host) }, callback);
      };
      if (net.isIP(host)) return connectTo(host);
      dns.lookup(host, { all: true }, (err, addresses) => {
        if (err) return callback(err, null);
        const refused = addresses.map((a) => policy.refuses(a.address, port)).find((r) => r !== null);
        if (refused) return callback(new TargetRefused(refused), null);
        connectTo(addresses[0].address);
      });
    },
  });
}
