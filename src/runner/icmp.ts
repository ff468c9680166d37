import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { IcmpRequest } from './types.js';
import { hostForUrl, type Probe, type ProbeLimits } from './probe.js';

/**
 * ICMP monitors: echo requests sent by Debian's `ping` (iputils), whose summary is parsed into
 * packets sent and received, loss and round-trip statistics. Node has no raw or ICMP datagram
 * sockets without native modules, so the probe spawns `ping` with an argument vector (no shell),
 * on the address this module resolved itself, reads a bounded amount of its output and kills it
 * at the attempt's time limit.
 */

/** What every ICMP run needs from its surroundings; tests point `command` elsewhere. */
export interface IcmpOptions {
  /** The ping executable: a name looked up in PATH, or a path. */
  command: string;
}

/** `ping` from PATH. */
export const DEFAULT_ICMP_OPTIONS: IcmpOptions = { command: 'ping' };

/** Milliseconds between echo requests (`ping -i 0.2`: the shortest interval iputils grants a user). */
export const PING_INTERVAL_MS = 200;
/** How long the last echo request may wait for its reply (`ping -W`). */
export const PING_REPLY_WAIT_S = 2;
/** Output of ping kept: 50 reply lines and the summary fit many times over. */
export const PING_OUTPUT_BYTES = 64 * 1024;
/** The message of a run on a machine without ping. */
export const PING_MISSING = 'ping is not installed; ICMP monitors need iputils-ping (apt-get install -y iputils-ping)';

/** The round-trip statistics of the replies, in ms; null without any reply. */
export interface Latency {
  min: number | null;
  avg: number | null;
  max: number | null;
  stdDev: number | null;
}

/** One echo reply as ping printed it. */
export interface PingReply {
  sequence: number;
  ttl: number | null;
  time: number;
}

/** What ping's output says: the counts, the statistics and the replies it listed. */
export interface PingSummary {
  packetsSent: number;
  packetsReceived: number;
  /** Payload bytes of each echo request (`56(84) bytes of data`). */
  packetSize: number | null;
  latency: Latency;
  replies: PingReply[];
}

/** The JSON document of an ICMP run: the response body, what JSON_RESPONSE assertions read. */
export interface IcmpDocument {
  hostname: string;
  resolvedIp: string | null;
  ipFamily: 'IPv4' | 'IPv6';
  pingCount: number;
  packetsSent: number;
  packetsReceived: number;
  packetSize: number | null;
  /** Percent of echo requests without a reply, 2 decimals. */
  packetLoss: number;
  latency: Latency;
  dnsResolutionTime: number;
  pingResults: PingReply[];
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Parses the output of iputils ping (`-n`). Reads the summary lines wherever they are:
 * `N packets transmitted, M received[, +E errors][, +D duplicates], X% packet loss, time Tms`
 * and `rtt min/avg/max/mdev = a/b/c/d ms` (older versions say `round-trip`). Returns undefined
 * when there is no transmitted/received line (ping failed before sending).
 */
export function parsePingOutput(text: string): PingSummary | undefined {
  const counts = /(\d+) packets transmitted, (\d+)(?: packets)? received/.exec(text);
  if (!counts) return undefined;
  const packetsSent = Number(counts[1]);
  const packetsReceived = Math.min(Number(counts[2]), packetsSent);
  const rtt = /(?:rtt|round-trip) min\/avg\/max\/(?:mdev|stddev) = ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/.exec(text);
  const size = /\) (\d+)\(\d+\) bytes of data/.exec(text);
  const replies: PingReply[] = [];
  for (const m of text.matchAll(/^\d+ bytes from [^:]+: icmp_seq=(\d+)(?: ttl=(\d+))?(?: time=([\d.]+) ms)?/gm)) {
    if (m[3] === undefined) continue;
    replies.push({ sequence: Number(m[1]), ttl: m[2] === undefined ? null : Number(m[2]), time: Number(m[3]) });
    if (replies.length >= 1000) break;
  }
  const latency: Latency =
    rtt && packetsReceived > 0
      ? { min: Number(rtt[1]), avg: Number(rtt[2]), max: Number(rtt[3]), stdDev: Number(rtt[4]) }
      : { min: null, avg: null, max: null, stdDev: null };
  return { packetsSent, packetsReceived, packetSize: size ? Number(size[1]) : null, latency, replies };
}

/** Percent of requests without a reply, 2 decimals; 100 when nothing could be sent. */
export function packetLossOf(sent: number, received: number): number {
  if (sent <= 0) return 100;
  return Math.round((10000 * (sent - Math.min(received, sent))) / sent) / 100;
}

/**
 * The argument vector of one run: numeric output, `count` requests 0.2 s apart, the last reply
 * awaited at most PING_REPLY_WAIT_S, the family forced, and the address after `--` so it can
 * never be read as an option. No `-w`: with it ping keeps sending past `count` until replies
 * arrive; the attempt's time limit is enforced by killing it instead.
 */
export function pingArgs(address: string, family: 4 | 6, count: number): string[] {
  return ['-n', '-c', String(count), '-i', String(PING_INTERVAL_MS / 1000), '-W', String(PING_REPLY_WAIT_S), `-${family}`, '--', address];
}

/** A resolved target: the address ping is given and how long resolving took. */
export interface IcmpTarget {
  address: string;
  family: 4 | 6;
  dnsMs: number;
}

/**
 * Resolves the monitor's hostname to one address of its family: the single place where ICMP
 * decides what it sends to (an IP literal is taken as it is, a name goes through the system
 * resolver). Throws the resolver's error.
 */
export async function resolveIcmpTarget(hostname: string, ipFamily: 'IPv4' | 'IPv6'): Promise<IcmpTarget> {
  const family = ipFamily === 'IPv6' ? 6 : 4;
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const start = performance.now();
  if (net.isIP(literal) !== 0) {
    if (net.isIP(literal) !== family) throw new Error(`${hostname} is not an ${ipFamily} address`);
    return { address: literal, family, dnsMs: 0 };
  }
  const found = await lookup(literal, { family });
  return { address: found.address, family, dnsMs: round3(performance.now() - start) };
}

/** What one spawned ping left: its output (bounded), exit code, and why it ended early. */
interface PingRun {
  stdout: string;
  stderr: string;
  code: number | null;
  timedOut: boolean;
}

/** Spawns ping without a shell; kills it at `timeoutMs`; keeps at most PING_OUTPUT_BYTES of each stream. */
function spawnPing(command: string, args: string[], timeoutMs: number): Promise<PingRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outSize = 0;
    let errSize = 0;
    let timedOut = false;
    const keep = (into: Buffer[], size: number, chunk: Buffer) => {
      const room = PING_OUTPUT_BYTES - size;
      if (room > 0) into.push(chunk.subarray(0, room));
      return size + Math.min(room, chunk.length);
    };
    child.stdout.on('data', (c: Buffer) => (outSize = keep(out, outSize, c)));
    child.stderr.on('data', (c: Buffer) => (errSize = keep(err, errSize, c)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(e.code === 'ENOENT' ? new Error(PING_MISSING) : e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code, timedOut });
    });
  });
}

/** The first meaningful line of ping's error output, with a hint when ICMP sockets are not allowed. */
function pingError(run: PingRun): string {
  const line = run.stderr.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? `ping exited with code ${String(run.code)}`;
  if (/Operation not permitted|Permission denied/i.test(line)) {
    return `${line} (unprivileged ping needs net.ipv4.ping_group_range to include this user's group, or a ping with the cap_net_raw capability)`;
  }
  return line.slice(0, 500);
}

/** A probe of an ICMP run that sent nothing: the error, 100% loss. */
function failedProbe(url: string, message: string, code: string, doc: IcmpDocument, totalMs: number): Probe {
  return {
    url,
    status: 0,
    statusText: code,
    body: JSON.stringify(doc),
    timingPhases: { wait: 0, dns: Math.round(doc.dnsResolutionTime), tcp: 0, firstByte: 0, download: 0, total: Math.round(totalMs) },
    responseTime: 0,
    requestError: message,
    networkError: true,
    packetLoss: 100,
    values: { LATENCY: latencyValues(doc.latency), JSON_RESPONSE: doc },
  };
}

/** LATENCY's value: the statistics by lower-case name (assertions name them case-insensitively). */
function latencyValues(l: Latency): Record<string, number | null> {
  return { avg: l.avg, min: l.min, max: l.max, stddev: l.stdDev };
}

/**
 * Sends `pingCount` echo requests to the monitor's host and reports what came back. Resolution
 * errors and a ping that cannot send are request errors; lost replies are not (the loss
 * thresholds and the assertions judge them). A missing ping throws PING_MISSING.
 */
export async function probeIcmp(req: IcmpRequest, limits: ProbeLimits, opts: IcmpOptions = DEFAULT_ICMP_OPTIONS): Promise<Probe> {
  const start = performance.now();
  const url = `icmp://${hostForUrl(req.hostname)}`;
  const doc: IcmpDocument = {
    hostname: req.hostname,
    resolvedIp: null,
    ipFamily: req.ipFamily,
    pingCount: req.pingCount,
    packetsSent: 0,
    packetsReceived: 0,
    packetSize: null,
    packetLoss: 100,
    latency: { min: null, avg: null, max: null, stdDev: null },
    dnsResolutionTime: 0,
    pingResults: [],
  };
  let target: IcmpTarget;
  try {
    target = await resolveIcmpTarget(req.hostname, req.ipFamily);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    doc.dnsResolutionTime = round3(performance.now() - start);
    return failedProbe(url, e.message, e.code ?? 'ENOTFOUND', doc, performance.now() - start);
  }
  doc.resolvedIp = target.address;
  doc.dnsResolutionTime = target.dnsMs;
  // 50 requests take about 10 s plus the last wait; whatever the attempt has left bounds it.
  const budgetMs = Math.max(1000, limits.timeoutMs - (performance.now() - start));
  const run = await spawnPing(opts.command, pingArgs(target.address, target.family, req.pingCount), budgetMs);
  const summary = parsePingOutput(run.stdout);
  const totalMs = performance.now() - start;
  if (!summary) {
    return failedProbe(url, run.timedOut ? 'timeout' : pingError(run), run.timedOut ? 'ETIMEDOUT' : 'EPING', doc, totalMs);
  }
  doc.packetsSent = summary.packetsSent;
  doc.packetsReceived = summary.packetsReceived;
  doc.packetSize = summary.packetSize;
  doc.packetLoss = packetLossOf(summary.packetsSent, summary.packetsReceived);
  doc.latency = summary.latency;
  doc.pingResults = summary.replies;
  return {
    url,
    status: 0,
    statusText: summary.packetsReceived > 0 ? 'OK' : 'NO_REPLY',
    body: JSON.stringify(doc),
    timingPhases: { wait: 0, dns: Math.round(doc.dnsResolutionTime), tcp: 0, firstByte: 0, download: 0, total: Math.round(totalMs) },
    // The reference's responseTime of an ICMP result: the average latency.
    responseTime: summary.latency.avg ?? 0,
    requestError: null,
    networkError: summary.packetsReceived === 0,
    packetLoss: doc.packetLoss,
    values: { LATENCY: latencyValues(doc.latency), JSON_RESPONSE: doc },
  };
}
