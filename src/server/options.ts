import { z } from 'zod';
import { DEFAULT_RETENTION_DAYS, DEV_ACCOUNT_ID, DEV_API_KEY } from '../schema/serve-defaults.js';
import type { LogFormat, ServiceLog } from './log.js';
import { resolveSenderSettings } from './alerts/settings.js';
import type { SenderSettings } from './alerts/types.js';
import type { DenyTargets } from './net/policy.js';

/** A role an API key has: `admin` may write, `read-only` may only GET. */
export type KeyRole = 'admin' | 'read-only';

/** One API key of the service and the account it belongs to. */
export interface ApiKeySpec {
  key: string;
  accountId: string;
  role: KeyRole;
}

/** A fault kind `--faults` can inject (see docs/serve.md for what each does to a write). */
export type FaultKind = '503' | '500' | '429' | 'reset';

/** One fault and its probability per request (0..1). */
export interface FaultSpec {
  kind: FaultKind;
  probability: number;
}

/** Fixed-window rate limit per API key; `limit` 0 disables it. */
export interface RateLimitSpec {
  limit: number;
  windowSeconds: number;
}

/** Everything `createServer` needs; `resolveServerOptions` fills the defaults. */
export interface ServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  keys: ApiKeySpec[];
  /** The header requests name their account in (`--account-header`); default `x-service-account`. */
  accountHeader?: string;
  /**
   * SQLite database file (`--state` / `--database sqlite:`), or a `postgres://` URL (`--database
   * postgres://...`); undefined keeps state in memory only.
   */
  stateFile?: string;
  /** Days run data (results, sessions, heartbeat events, alert notifications) is kept; 0 keeps it forever. */
  retentionDays: number;
  /** The retention's pace: rows deleted per step, and the pause once nothing old is left. */
  retention: { batch: number; idleMs: number; firstMs?: number };
  /** Milliseconds added before every response is sent. */
  latencyMs: number;
  faults: FaultSpec[];
  rateLimit: RateLimitSpec;
  /** Posts of a status page's subscribe form per client address (fixed window, per instance); `limit` 0 disables it. */
  subscribeRateLimit: RateLimitSpec;
  /** Requests of the public pages (status pages, dashboards) per client address (fixed window, per instance); `limit` 0 disables it. */
  pageRateLimit: RateLimitSpec;
  /** Seconds a rendered public page is served to every visitor before it is rendered again; 0 renders each request. */
  pageCacheSeconds: number;
  /** `--metrics-port`: the port of the Prometheus metrics (`GET /metrics`), on the same host; undefined serves none. */
  metricsPort?: number;
  /** Divides every scheduling period and wait of the runs (tests see minutes pass in seconds). */
  timeScale: number;
  /** Whether the scheduler runs the stored checks. */
  runs: boolean;
  /** Random source for faults; tests pass a seeded one. */
  random: () => number;
  /** Clock for timestamps and windows (ms since epoch). */
  now: () => number;
  /** The service's public URL (`--public-url`): alerts link to run pages under it. */
  publicUrl?: string;
  /** How the event log is written on stderr (`--log-format`). */
  logFormat: LogFormat;
  /** Where events go instead of stderr (tests). */
  log?: ServiceLog;
  /** How alerts and mails reach their receivers (`--smtp`, `--mail-from`, `--public-url`, provider URLs). */
  alerts: SenderSettings;
  /** What the checks and webhooks the service runs may not connect to (`--deny-targets`). */
  denyTargets: DenyTargets;
  /** `--unsafe-scripts`: run scripts as the service's own user where the bubblewrap sandbox is not available. */
  unsafeScripts: boolean;
  /** How long an agent's claim of a private location's run lasts before another agent may take it (real ms, `--agent-lease`). */
  agentLeaseMs: number;
  /** How long a private location's run may wait for an agent before it is recorded as not run (real ms, `--agent-queue-timeout`). */
  agentQueueMs: number;
}

/** The key `mac serve` accepts when no key is configured. */
export const DEV_KEY: ApiKeySpec = { key: DEV_API_KEY, accountId: DEV_ACCOUNT_ID, role: 'admin' };
/** The decided default rate limit: 600 requests per 60 s per key. */
export const DEFAULT_RATE_LIMIT: RateLimitSpec = { limit: 600, windowSeconds: 60 };
/** The default bound of subscribe-form posts: 10 per minute per client address. */
export const DEFAULT_SUBSCRIBE_RATE_LIMIT: RateLimitSpec = { limit: 10, windowSeconds: 60 };
/** The default bound of public page requests: 300 per minute per client address. */
export const DEFAULT_PAGE_RATE_LIMIT: RateLimitSpec = { limit: 300, windowSeconds: 60 };
/** Seconds a rendered public page is shared without --page-cache-seconds. */
export const DEFAULT_PAGE_CACHE_SECONDS = 5;
/** The largest request body accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Whether `--host` is a loopback address (127.0.0.0/8, ::1, `localhost`): only there is the dev
 * key accepted, since only the machine itself can reach the service.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  return v4 !== null && Number(v4[1]) === 127 && v4.slice(2).every((p) => Number(p) <= 255);
}

/**
 * Why the keys cannot be used on `host`, or null: the well-known dev key (the default when no
 * key is given, or given explicitly) is refused unless the service listens on loopback.
 */
export function devKeyProblem(host: string, keys: readonly ApiKeySpec[]): string | null {
  if (isLoopbackHost(host)) return null;
  if (keys.length === 0) return `--host ${host} is not a loopback address: pass API keys (--api-key KEY --account ID, or --keys FILE); the dev key ${DEV_KEY.key} is accepted only on loopback`;
  if (keys.some((k) => k.key === DEV_KEY.key)) return `--host ${host} is not a loopback address: the dev key ${DEV_KEY.key} is accepted only on loopback; give another key`;
  return null;
}

/** Fills the defaults of every option not given; throws when the dev key would serve beyond loopback. */
export function resolveServerOptions(partial: Partial<ServerOptions> = {}): ServerOptions {
  const host = partial.host ?? '127.0.0.1';
  const keys = partial.keys && partial.keys.length > 0 ? partial.keys : [];
  const problem = devKeyProblem(host, keys);
  if (problem) throw new Error(problem);
  return {
    host,
    port: partial.port ?? 4010,
    keys: keys.length > 0 ? keys : [DEV_KEY],
    ...(partial.accountHeader !== undefined ? { accountHeader: partial.accountHeader.toLowerCase() } : {}),
    stateFile: partial.stateFile,
    retentionDays: partial.retentionDays ?? DEFAULT_RETENTION_DAYS,
    retention: partial.retention ?? { batch: 500, idleMs: 60_000 },
    latencyMs: partial.latencyMs ?? 0,
    faults: partial.faults ?? [],
    rateLimit: partial.rateLimit ?? DEFAULT_RATE_LIMIT,
    subscribeRateLimit: partial.subscribeRateLimit ?? DEFAULT_SUBSCRIBE_RATE_LIMIT,
    pageRateLimit: partial.pageRateLimit ?? DEFAULT_PAGE_RATE_LIMIT,
    pageCacheSeconds: partial.pageCacheSeconds ?? DEFAULT_PAGE_CACHE_SECONDS,
    metricsPort: partial.metricsPort,
    timeScale: partial.timeScale ?? 1,
    runs: partial.runs ?? true,
    random: partial.random ?? Math.random,
    now: partial.now ?? Date.now,
    publicUrl: partial.publicUrl,
    logFormat: partial.logFormat ?? 'text',
    log: partial.log,
    alerts: resolveSenderSettings(partial.alerts),
    denyTargets: partial.denyTargets ?? { defaults: true, entries: [] },
    unsafeScripts: partial.unsafeScripts ?? false,
    agentLeaseMs: partial.agentLeaseMs ?? 300_000,
    agentQueueMs: partial.agentQueueMs ?? 360_000,
  };
}

const FAULT_KINDS: readonly FaultKind[] = ['503', '500', '429', 'reset'];

/**
 * Parses `503:0.1,429:0.05,reset:0.02`. Throws an Error naming the bad item; the probabilities
 * must sum to at most 1 since one draw per request picks at most one fault.
 */
export function parseFaults(spec: string): FaultSpec[] {
  const faults: FaultSpec[] = [];
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9]+):([0-9]*\.?[0-9]+)$/.exec(item);
    if (!m || !(FAULT_KINDS as readonly string[]).includes(m[1])) {
      throw new Error(`invalid fault "${item}": expected KIND:PROBABILITY with KIND one of ${FAULT_KINDS.join(', ')}`);
    }
    const probability = Number(m[2]);
    if (!(probability >= 0 && probability <= 1)) throw new Error(`invalid fault "${item}": probability must be within 0..1`);
    faults.push({ kind: m[1] as FaultKind, probability });
  }
  const total = faults.reduce((sum, f) => sum + f.probability, 0);
  if (total > 1 + 1e-9) throw new Error(`invalid faults "${spec}": probabilities add up to ${total}, more than 1`);
  return faults;
}

/** Parses `N/SECONDS` (e.g. `600/60`); `0/…` disables the limit. */
export function parseRateLimit(spec: string): RateLimitSpec {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  if (!m || Number(m[2]) < 1) throw new Error(`invalid rate limit "${spec}": expected N/SECONDS, e.g. 600/60`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}

/** Parses `KEY` or `KEY:read-only` / `KEY:admin` for `accountId`. */
export function parseApiKey(spec: string, accountId: string): ApiKeySpec {
  const m = /^(.*):(admin|read-only)$/.exec(spec);
  const key = m ? m[1] : spec;
  if (!/^[\x21-\x7e]+$/.test(key)) throw new Error(`invalid API key: it must be printable ASCII without spaces`);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(accountId)) throw new Error(`invalid account id "${accountId}": use 1..64 of [A-Za-z0-9._-]`);
  return { key, accountId, role: m ? (m[2] as KeyRole) : 'admin' };
}

const keysFileSchema = z.strictObject({
  keys: z
    .array(
      z.strictObject({
        key: z.string().regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
        account: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1..64 of [A-Za-z0-9._-]'),
        role: z.enum(['admin', 'read-only']).default('admin'),
      }),
    )
    .min(1, 'must list at least one key'),
});

/**
 * Parses the JSON of a `--keys` file: `{"keys": [{"key", "account", "role"?}]}` (role `admin` by
 * default). Throws an Error naming `source` and the field path; never prints a key's value.
 */
export function parseKeysFile(text: string, source: string): ApiKeySpec[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = keysFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new Error(`${source}: ${at}: ${issue.message}`);
  }
  const seen = new Set<string>();
  return parsed.data.keys.map((k, i) => {
    if (seen.has(k.key)) throw new Error(`${source}: keys.${i}.key: repeats the key of an earlier item`);
    seen.add(k.key);
    return { key: k.key, accountId: k.account, role: k.role };
  });
}

/** Whether `--database`/`--state` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a SQLite file. */
export function isPostgresUrl(path: string): boolean {
  return /^postgres(?:ql)?:\/\//.test(path);
}

/**
 * Parses `--database`: `sqlite:FILE` -> the file, `postgres://...` -> the URL. Throws an Error naming
 * what is wrong.
 */
export function parseDatabaseUrl(url: string): string {
  const m = /^sqlite:(.+)$/.exec(url);
  if (m) return m[1].replace(/^\/\/(?=\/)/, '');
  if (isPostgresUrl(url) && url.length > url.indexOf('//') + 2) return url;
  throw new Error(`--database must be sqlite:FILE or postgres://USER@HOST:PORT/DATABASE, not "${shownDatabaseArg(url)}"`);
}

/** What an error shows of a `--database` it cannot read: the scheme of anything URL-like, never its user info or query. */
function shownDatabaseArg(url: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  return scheme ? `${scheme[1]}:...` : url.length > 80 ? `${url.slice(0, 77)}...` : url;
}

/** The largest `--database-password-file` read. */
export const MAX_PASSWORD_FILE_BYTES = 4096;

/**
 * The PostgreSQL URL with the password of `--database-password-file` (its text without the final
 * newline), so that the password is never in argv. Throws an Error naming the flag when the URL
 * already holds a password (user info or `?password=`) or the file's text is empty.
 */
export function withPassword(url: string, password: string): string {
  const u = new URL(url);
  if (u.password || u.searchParams.has('password')) throw new Error('--database-password-file: the --database URL already holds a password; give it in one place');
  const text = password.replace(/\r?\n$/, '');
  if (text === '' || /[\r\n]/.test(text)) throw new Error('--database-password-file: the file must hold the password on one line');
  u.password = encodeURIComponent(text);
  return u.toString();
}
