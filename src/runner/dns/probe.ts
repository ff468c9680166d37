import { performance } from 'node:perf_hooks';
import type { DnsRequest } from '../types.js';
import { hostForUrl, type Probe, type ProbeLimits } from '../probe.js';
import { rcodeName, type DnsRecord } from './codec.js';
import { DnsQueryError, queryDns, systemNameServer } from './client.js';
import type { TargetGuard } from '../guard.js';

/** One answer as JSON_ANSWER exposes it (api-decisions §5.3). */
export interface JsonAnswer {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

/** Where a DNS check's query goes: its own name server, or the system's when it names none. */
export type NameServerSource = () => Promise<{ server: string; port: number }>;

/**
 * Queries `query` for `recordType` and reports rcode, answers and the resolution time. `guard`
 * (the service's network policy) is asked about the check's own name server; the system's name
 * server is the operator's configuration (on a cloud VM often a link-local address) and is not.
 */
export async function probeDns(req: DnsRequest, limits: ProbeLimits, systemServer: NameServerSource = systemNameServer, guard?: TargetGuard): Promise<Probe> {
  const start = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - start));
  let target = { server: req.nameServer ?? 'system', port: req.port };
  try {
    if (!req.nameServer) target = await systemServer();
    const { response } = await queryDns({
      name: req.query,
      type: req.recordType,
      server: target.server,
      port: target.port,
      protocol: req.protocol,
      timeoutMs: limits.timeoutMs,
      guard: req.nameServer ? guard : undefined,
    });
    const ms = elapsed();
    const answers = response.answers.map(toJsonAnswer);
    const status = rcodeName(response.flags.rcode);
    return {
      url: dnsRequestUrl(req, target),
      status: response.flags.rcode,
      statusText: status,
      body: JSON.stringify(answers),
      timingPhases: { wait: 0, dns: ms, tcp: 0, firstByte: 0, download: 0, total: ms },
      responseTime: ms,
      requestError: null,
      networkError: false,
      values: { RESPONSE_CODE: status, TEXT_ANSWER: answers.map(textLine).join('\n'), JSON_ANSWER: answers },
    };
  } catch (err) {
    if (!(err instanceof DnsQueryError)) throw err;
    const ms = elapsed();
    return {
      url: dnsRequestUrl(req, target),
      status: 0,
      statusText: err.code,
      body: '',
      timingPhases: { wait: 0, dns: ms, tcp: 0, firstByte: 0, download: 0, total: ms },
      responseTime: ms,
      requestError: err.message,
      networkError: err.code !== 'EPOLICY',
      values: { RESPONSE_CODE: '', TEXT_ANSWER: '', JSON_ANSWER: [] },
    };
  }
}

function toJsonAnswer(rr: DnsRecord): JsonAnswer {
  return { name: rr.name, type: rr.type, ttl: rr.ttl, data: rr.data };
}

/** Zone-file presentation of one answer: `example.com. 300 IN A 192.0.2.1`. */
export function textLine(a: JsonAnswer): string {
  return `${a.name} ${a.ttl} IN ${a.type} ${a.data}`;
}

/** The URL a DNS result's request shows: `dns://server:port/query?type=T`. */
export function dnsRequestUrl(req: DnsRequest, target: { server: string; port: number }): string {
  return `dns://${hostForUrl(target.server)}:${target.port}/${encodeURIComponent(req.query)}?type=${req.recordType}`;
}
