import type { HttpTimings, TimingPhases } from './types.js';

/** Bounds of one attempt; tests shorten them, the defaults are the decided ones (§5.2, §5.3). */
export interface ProbeLimits {
  /** Whole attempt; past it the attempt fails with requestError `timeout`. */
  timeoutMs: number;
  /** TCP: the reply is complete after this long without data. */
  idleMs: number;
  /** TCP: the reply is cut at this many bytes; HTTP: the body a result keeps. */
  maxBytes: number;
  /** HTTP: the body is read up to this many bytes (what TEXT_BODY and JSON_BODY see). */
  maxBodyBytes: number;
}

/** The decided limits: 30 s per attempt, 1 s idle, 64 KiB kept, 1 MiB of an HTTP body read. */
export const DEFAULT_LIMITS: ProbeLimits = { timeoutMs: 30_000, idleMs: 1_000, maxBytes: 64 * 1024, maxBodyBytes: 1024 * 1024 };

/** What one network exchange observed, before assertions and thresholds are applied. */
export interface Probe {
  /** The request as a URL: `tcp://host:port`, `dns://server:port/query?type=T` or `icmp://host`. */
  url: string;
  status: number;
  statusText: string;
  body: string;
  timingPhases: TimingPhases;
  responseTime: number;
  /** Connection or resolution error; null when the exchange completed. */
  requestError: string | null;
  /** Whether requestError is a network error (what `onlyOn: [NETWORK_ERROR]` retries). */
  networkError: boolean;
  /** ICMP only: percent of echo requests without a reply (judged against the loss thresholds). */
  packetLoss?: number;
  /** Values of the assertion sources this kind offers, except RESPONSE_TIME (taken from responseTime). */
  values: Record<string, unknown>;
  /** HTTP only: the request as sent (credentials masked) and the response's headers and timings. */
  http?: {
    /** The server certificate of the first request over TLS (the monitored URL's host), or null. */
    certificate?: TlsCertificate | null;
    method: string;
    data: string;
    requestHeaders: Record<string, string>;
    params: Record<string, string>;
    responseHeaders: Record<string, string>;
    timings: HttpTimings;
  };
}

/** A host as it appears in a URL: IPv6 literals in brackets. */
export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** What a result records of a server's TLS certificate (SSL expiry alerts read `validTo`). */
export interface TlsCertificate {
  subject: string;
  issuer: string;
  validFrom: string;
  /** When it expires (ISO 8601). */
  validTo: string;
  /** SHA-256 fingerprint: one certificate, whatever the host it was seen on. */
  fingerprint256: string;
}
