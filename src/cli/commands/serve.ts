import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { CliContext } from '../context.js';
import { MacError, UsageError } from '../../errors.js';
import { parseCount } from '../../config/options.js';
import { parseAccountHeader } from '../../config/connection.js';
import { usageHint } from '../help.js';
import { isPostgresUrl } from '../../server/options.js';
import { redactUrl } from '../../server/store/postgres.js';
import { parseDenyTargets } from '../../server/net/policy.js';
import { DEV_KEY, MAX_PASSWORD_FILE_BYTES, devKeyProblem, parseApiKey, withPassword, parseDatabaseUrl, parseFaults, parseKeysFile, parseRateLimit, type ApiKeySpec, type ServerOptions } from '../../server/options.js';
import { parseLogFormat } from '../../server/log.js';
import { DEFAULT_ALERT_TIMEOUT_MS, DEFAULT_PAGERDUTY_URL, DEFAULT_TWILIO_URL } from '../../schema/serve-defaults.js';
import {
  parseBaseUrl,
  parseCaFile,
  parseMailFrom,
  parsePhoneNumber,
  parseSmtpUrl,
  parseTwilioSid,
  redactSmtpUrl,
  resolveSenderSettings,
  secretOfFile,
} from '../../server/alerts/settings.js';
import type { PhoneSettings, SenderSettings } from '../../server/alerts/types.js';
import { probeSandbox, type SandboxAvailability } from '../../runner/sandbox.js';

export interface ServeFlags {
  host: string;
  port: string;
  state?: string;
  database?: string;
  retentionDays: string;
  apiKey: string[];
  account: string[];
  keys?: string;
  latency: string;
  faults?: string;
  rateLimit: string;
  pageRateLimit: string;
  pageCacheSeconds: string;
  metricsPort?: string;
  timeScale: string;
  runs: boolean;
  logFormat: string;
  smtp?: string;
  smtpPasswordFile?: string;
  smtpCa?: string;
  mailFrom?: string;
  publicUrl?: string;
  pagerdutyUrl?: string;
  opsgenieUrl?: string;
  phoneProvider?: string;
  twilioUrl?: string;
  twilioAccountSid?: string;
  twilioTokenFile?: string;
  phoneFrom?: string;
  alertTimeout: string;
  denyTargets: string[];
  databasePasswordFile?: string;
  unsafeScripts?: boolean;
  accountHeader?: string;
  agentLease: string;
  agentQueueTimeout: string;
}

/**
 * How long a stopping service waits for the runs under way. A run against a target that does not
 * answer lasts its whole timeout (30 s), and a stop that waited for all of them outlasted the 10 s
 * a container runtime gives before it kills: the pending writes were then lost with the process.
 * After the grace the runs left are abandoned (their sessions read as TIMED_OUT, as after a
 * kill), the pending writes are flushed and the database closed.
 */
export const STOP_GRACE_MS = 5_000;

/**
 * `mac serve`: runs the local monitoring API until SIGINT/SIGTERM. `sandbox`: the probe of the
 * script sandbox when the caller started it already (the CLI does, as this module loads).
 */
export async function run(ctx: CliContext, flags: ServeFlags, sandbox: Promise<SandboxAvailability> = probeSandbox()): Promise<void> {
  const options = toOptions(flags);
  // The heap's growth is the process's to set: not when the service runs inside another program.
  if (!ctx.stop) boundHeapGrowth();
  // The service itself (its routes, store, runner and alert senders) is loaded once the flags are
  // known to be good: a refused flag is answered after loading their parsers alone.
  const [{ createServer }, { runsOf, startRuns }] = await Promise.all([import('../../server/server.js'), import('../../server/runs/runs.js')]);
  // A state file it cannot use throws a StateError (a MacError naming the file), left unchanged.
  const server = createServer(options);
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    server.ctx.store.close();
    const code = (err as NodeJS.ErrnoException).code;
    // An item of --deny-targets that does not resolve: the error names it.
    if (code === undefined && err instanceof Error) throw new UsageError(err.message);
    throw new MacError(`cannot listen on ${options.host}:${options.port}: ${code ?? String(err)}`, {
      cause: err,
      hint: code === 'EADDRINUSE' ? 'another process uses this port; pick one with --port' : undefined,
    });
  }
  // What the start line says of scripts, and what their runs use: probed meanwhile, in a process
  // of its own (the store opened, the port bound). A probe cannot fail: its failure is its answer.
  const scripts = scriptsLine(options.unsafeScripts === true, await sandbox);
  const stopRuns = startRuns(server.ctx);
  // server.close() stops taking requests, then waits for the runs under way (up to the grace,
  // or until a second signal aborts `cut`), then closes the store, which writes what is pending.
  const cut = new AbortController();
  let abandoned = 0;
  let waited = false;
  server.onClose(async () => {
    abandoned = await stopRuns(STOP_GRACE_MS, cut.signal);
    waited = true;
  });
  // One write, so that a reader waiting for the first line also gets the accounts.
  const lines = [`mac serve listening on ${url}`];
  for (const k of options.keys) {
    const shown = k.key === DEV_KEY.key ? k.key : `...${k.key.slice(-4)}`;
    lines.push(`  account ${k.accountId}: API key ${shown} (${k.role})`);
  }
  if (options.accountHeader !== undefined) lines.push(`  account header: ${options.accountHeader}`);
  if (server.metricsUrl) lines.push(`  metrics: ${server.metricsUrl}`);
  if (options.stateFile) lines.push(isPostgresUrl(options.stateFile) ? `  state: ${redactUrl(options.stateFile)} (PostgreSQL)` : `  state: ${options.stateFile} (SQLite)`);
  lines.push(...alertLines(options.alerts));
  // Named at start: a service whose checks may reach itself and its database is a choice.
  if (options.denyTargets && !options.denyTargets.defaults) {
    lines.push('  network policy: --deny-targets none: checks may reach this service, its database and link-local addresses');
  }
  lines.push(`  scripts: ${scripts}`);
  const imported = server.ctx.store.imported;
  if (imported) lines.push(`  imported ${imported.entries} journal entries; the journal is kept as ${imported.backup}`);
  ctx.output.result(lines.join('\n'));
  await new Promise<void>((resolve) => {
    let stopping = false;
    const done = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      ctx.stop?.removeEventListener('abort', stop);
      resolve();
    };
    const stop = () => {
      if (stopping) {
        // A second signal stops waiting for the runs; one while the store closes exits at once.
        if (!waited) return void cut.abort();
        ctx.output.info('mac serve: stopped at once: run data not yet written is lost');
        process.exit(130);
      }
      stopping = true;
      const under = runsOf(server.ctx).engine.activeSessions;
      if (under > 0) ctx.output.info(`mac serve: stopping: waiting up to ${STOP_GRACE_MS / 1000} s for ${under} run${under === 1 ? '' : 's'} under way (a second Ctrl-C stops at once)`);
      server.close().then(
        () => {
          if (abandoned > 0) ctx.output.info(`mac serve: stopped with ${abandoned} run${abandoned === 1 ? '' : 's'} unfinished: ${abandoned === 1 ? 'its session reads' : 'their sessions read'} as TIMED_OUT once 5 minutes have passed since ${abandoned === 1 ? 'it' : 'they'} started`);
          done();
        },
        (err: unknown) => {
          ctx.output.info(`mac serve: stopping failed: ${err instanceof Error ? err.message : String(err)}`);
          ctx.exit(1);
          done();
        },
      );
    };
    if (ctx.stop) {
      // In process (tests, embedding): the caller's signal stops it; the process's signals are the caller's.
      if (ctx.stop.aborted) stop();
      else ctx.stop.addEventListener('abort', stop, { once: true });
    } else {
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }
  });
  // Abandoned runs still hold their sockets and timers (up to their timeout): the process ends
  // now, once main() has set the exit code.
  if (abandoned > 0) setTimeout(() => process.exit(), 0);
  ctx.exit(0);
}

/** What the start line says of the alert settings: where mail and phone alerts go, no credential. */
function alertLines(a: SenderSettings | undefined): string[] {
  if (!a) return [];
  const lines: string[] = [];
  if (a.smtpUrl) lines.push(`  mail: ${redactSmtpUrl(a.smtpUrl)}${a.smtpPassword ? ' (password from file)' : ''}, from ${a.mailFrom}`);
  if (a.phone) lines.push(`  phone: ${a.phone.provider} at ${a.phone.url}, from ${a.phone.from}`);
  if (a.publicUrl) lines.push(`  public URL: ${a.publicUrl}`);
  return lines;
}

/**
 * A service that runs for months keeps its heap near what is live. Left to itself V8 lets the heap
 * grow up to 4 times the live objects between two full collections when the service allocates
 * fast (many runs per second): with about 23 MB live, 1,000 checks each minute in 2 locations at
 * --time-scale 40 reached 104 MB before a collection, and RSS swung by 50 MB from one minute to the
 * next. A growing factor of 1.5 holds it under 50 MB, for about 60% more full collections of a
 * small heap (bench/soak.mjs --trace-gc). The factor is read at each collection, so setting it
 * now applies from the first one; `node --heap-growing-percent=N` chooses another.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  setFlagsFromString('--heap-growing-percent=50');
}

function toOptions(flags: ServeFlags): Partial<ServerOptions> & { keys: ApiKeySpec[]; host: string; port: number } {
  const port = intFlag('--port', flags.port, 65535);
  const latencyMs = intFlag('--latency', flags.latency, 600_000);
  const timeScale = Number(flags.timeScale);
  if (!(timeScale > 0)) throw new UsageError(`--time-scale must be a positive number, not "${flags.timeScale}"`);
  const keys = allKeys(flags);
  const problem = devKeyProblem(flags.host, keys);
  if (problem) throw new UsageError(problem);
  return {
    host: flags.host,
    port,
    stateFile: stateFileOf(flags),
    retentionDays: intFlag('--retention-days', flags.retentionDays, 36_500),
    keys: keys.length > 0 ? keys : [DEV_KEY],
    ...(flags.accountHeader !== undefined ? { accountHeader: parseAccountHeader('--account-header', flags.accountHeader) } : {}),
    denyTargets: usage(() => parseDenyTargets(flags.denyTargets)),
    latencyMs,
    faults: flags.faults === undefined ? [] : usage(() => parseFaults(flags.faults!)),
    rateLimit: usage(() => parseRateLimit(flags.rateLimit)),
    pageRateLimit: usage(() => parseRateLimit(flags.pageRateLimit)),
    pageCacheSeconds: intFlag('--page-cache-seconds', flags.pageCacheSeconds, 3600),
    ...(flags.metricsPort !== undefined ? { metricsPort: intFlag('--metrics-port', flags.metricsPort, 65_535) } : {}),
    timeScale,
    runs: flags.runs,
    unsafeScripts: flags.unsafeScripts === true,
    agentLeaseMs: parseCount('--agent-lease', flags.agentLease, { fallback: 300, min: 1, max: 86_400, hint: usageHint('serve') }) * 1000,
    agentQueueMs: parseCount('--agent-queue-timeout', flags.agentQueueTimeout, { fallback: 360, min: 1, max: 86_400, hint: usageHint('serve') }) * 1000,
    logFormat: usage(() => parseLogFormat(flags.logFormat)),
    alerts: alertsOf(flags),
    ...(flags.publicUrl !== undefined ? { publicUrl: usage(() => parsePublicUrl(flags.publicUrl!)) } : {}),
  };
}

// The alert flags: each URL and address checked here, secrets read from their files, never shown.
function alertsOf(flags: ServeFlags): SenderSettings {
  if (flags.smtpPasswordFile !== undefined && flags.smtp === undefined) throw new UsageError('--smtp-password-file needs --smtp');
  if (flags.smtpCa !== undefined && flags.smtp === undefined) throw new UsageError('--smtp-ca needs --smtp');
  const smtpUrl = flags.smtp === undefined ? undefined : usage(() => parseSmtpUrl(flags.smtp!));
  if (smtpUrl && flags.smtpPasswordFile !== undefined && new URL(smtpUrl).password) throw new UsageError('--smtp holds a password and --smtp-password-file gives another; pass one');
  if (flags.smtpPasswordFile !== undefined && !new URL(smtpUrl!).username) throw new UsageError('--smtp-password-file needs a user in --smtp (smtp://USER@HOST)');
  const timeoutMs = parseCount('--alert-timeout', flags.alertTimeout, { fallback: DEFAULT_ALERT_TIMEOUT_MS, min: 100, max: 600_000, hint: usageHint('serve') });
  const opsgenie = flags.opsgenieUrl === undefined ? undefined : usage(() => parseBaseUrl('--opsgenie-url', flags.opsgenieUrl!));
  return resolveSenderSettings({
    smtpUrl,
    smtpPassword: flags.smtpPasswordFile === undefined ? undefined : secretFile('--smtp-password-file', flags.smtpPasswordFile),
    smtpCa: flags.smtpCa === undefined ? undefined : caFile(flags.smtpCa),
    mailFrom: flags.mailFrom === undefined ? undefined : usage(() => parseMailFrom(flags.mailFrom!)),
    publicUrl: flags.publicUrl === undefined ? undefined : usage(() => parsePublicUrl(flags.publicUrl!)),
    pagerdutyUrl: usage(() => parseBaseUrl('--pagerduty-url', flags.pagerdutyUrl ?? DEFAULT_PAGERDUTY_URL)),
    opsgenieUrl: opsgenie === undefined ? undefined : { US: opsgenie, EU: opsgenie },
    phone: phoneOf(flags),
    timeoutMs,
  });
}

/** How the service will run scripts, for its start line: the one place --unsafe-scripts shows. */
export function scriptsLine(unsafe: boolean, sandbox: SandboxAvailability): string {
  if (sandbox.ok) return `sandboxed (bubblewrap: ${sandbox.bwrap})`;
  if (unsafe) return `NOT sandboxed (--unsafe-scripts; ${sandbox.reason}): every account's scripts run as this service's user and can read its files and environment`;
  return `refused (${sandbox.reason}): apt-get install -y bubblewrap, or start with --unsafe-scripts`;
}

// --phone-provider twilio and its flags; a Twilio flag without the provider is a mistake worth naming.
function phoneOf(flags: ServeFlags): PhoneSettings | undefined {
  const needed = [
    ['--twilio-account-sid', flags.twilioAccountSid],
    ['--twilio-token-file', flags.twilioTokenFile],
    ['--phone-from', flags.phoneFrom],
  ] as const;
  if (flags.phoneProvider === undefined) {
    const given = needed.find(([, v]) => v !== undefined);
    if (given) throw new UsageError(`${given[0]} needs --phone-provider twilio`);
    return undefined;
  }
  if (flags.phoneProvider !== 'twilio') throw new UsageError(`--phone-provider must be twilio, not "${flags.phoneProvider.slice(0, 40)}"`);
  const missing = needed.find(([, v]) => v === undefined);
  if (missing) throw new UsageError(`--phone-provider twilio needs ${missing[0]}`);
  return {
    provider: 'twilio',
    url: usage(() => parseBaseUrl('--twilio-url', flags.twilioUrl ?? DEFAULT_TWILIO_URL)),
    accountSid: usage(() => parseTwilioSid(flags.twilioAccountSid!)),
    authToken: secretFile('--twilio-token-file', flags.twilioTokenFile!),
    from: usage(() => parsePhoneNumber('--phone-from', flags.phoneFrom!)),
  };
}

// --smtp-ca's certificates.
function caFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--smtp-ca: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return usage(() => parseCaFile(`--smtp-ca ${file}`, text));
}

// A secret's file: read, checked, never echoed.
function secretFile(flag: string, file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return usage(() => secretOfFile(`${flag} ${file}`, text));
}

/** `--public-url`: an absolute http(s) URL without credentials, query or fragment; returned without a trailing slash. */
export function parsePublicUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`--public-url must be an absolute http:// or https:// URL, not "${value}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`--public-url must be an http:// or https:// URL, not "${u.protocol}..."`);
  if (u.username || u.password || u.search || u.hash) throw new Error('--public-url must not hold credentials, a query or a fragment');
  return u.toString().replace(/\/+$/, '');
}

// --state FILE and --database sqlite:FILE name the same thing; one of them at most. A PostgreSQL
// URL gets the password of --database-password-file.
function stateFileOf(flags: ServeFlags): string | undefined {
  const file = flags.databasePasswordFile;
  if (flags.database !== undefined && flags.state !== undefined) throw new UsageError('--state and --database both name the database; pass one');
  const parsed = flags.database === undefined ? flags.state : usage(() => parseDatabaseUrl(flags.database!));
  if (file === undefined) return parsed;
  if (parsed === undefined || !isPostgresUrl(parsed)) throw new UsageError('--database-password-file needs a PostgreSQL --database (postgres://USER@HOST:PORT/DATABASE)');
  return usage(() => withPassword(parsed, readPasswordFile(file)));
}

// Bounded: a password file is a few bytes; a FIFO or a huge file is not read past the bound.
function readPasswordFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new UsageError(`--database-password-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const buf = Buffer.alloc(MAX_PASSWORD_FILE_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n > MAX_PASSWORD_FILE_BYTES) throw new UsageError(`--database-password-file: ${file} is longer than ${MAX_PASSWORD_FILE_BYTES} bytes`);
    return buf.subarray(0, n).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--database-password-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  } finally {
    closeSync(fd);
  }
}

// Keys of --keys FILE and of --api-key together; none without either (the dev key, on loopback only).
function allKeys(flags: ServeFlags): ApiKeySpec[] {
  if (flags.keys === undefined) return keysOf(flags.apiKey, flags.account);
  const file = flags.keys;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--keys: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const fromFile = usage(() => parseKeysFile(text, file));
  const fromFlags = flags.apiKey.length > 0 || flags.account.length > 0 ? keysOf(flags.apiKey, flags.account) : [];
  const inFile = new Set(fromFile.map((k) => k.key));
  if (fromFlags.some((k) => inFile.has(k.key))) throw new UsageError(`an --api-key is also in ${file}`);
  return [...fromFile, ...fromFlags];
}

// Keys pair with accounts by position; a single --account (or none: `dev`) covers every key.
function keysOf(keys: string[], accounts: string[]): ApiKeySpec[] {
  if (keys.length === 0) {
    if (accounts.length > 0) throw new UsageError('--account needs an --api-key', { hint: 'pass --api-key KEY --account ID pairs' });
    return [];
  }
  if (accounts.length > 1 && accounts.length !== keys.length) {
    throw new UsageError(`${keys.length} --api-key but ${accounts.length} --account`, { hint: 'pass one --account per --api-key, or a single --account for all keys' });
  }
  const specs = keys.map((k, i) => usage(() => parseApiKey(k, accounts[accounts.length === 1 ? 0 : i] ?? DEV_KEY.accountId)));
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.key)) throw new UsageError('the same --api-key is given twice');
    seen.add(s.key);
  }
  return specs;
}

// The flags have commander defaults, so a value is always given; parsed as every other count.
function intFlag(name: string, value: string, max: number): number {
  return parseCount(name, value, { fallback: 0, min: 0, max, hint: usageHint('serve') });
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
