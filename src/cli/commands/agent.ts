import { readFileSync } from 'node:fs';
import type { CliContext } from '../context.js';
import { MacError, UsageError } from '../../errors.js';
import { parseCount } from '../../config/options.js';
import { usageHint } from '../help.js';
import { KeyRefused, maskKey, runAgent } from '../../agent/agent.js';
import { bwrapAvailable } from '../../runner/sandbox.js';

export interface AgentFlags {
  apiUrl?: string;
  key?: string;
  keyFile?: string;
  concurrency: string;
  stopGrace: string;
  unsafeScripts?: boolean;
}

/** The form of a private-location key (`pl_` and 32 hex digits). */
const KEY_FORMAT = /^pl_[0-9a-f]{32}$/;

/** `mac agent`: runs a private location's checks from this machine until SIGINT/SIGTERM. */
export async function run(ctx: CliContext, flags: AgentFlags): Promise<void> {
  const hint = usageHint('agent');
  const apiUrl = flags.apiUrl ?? ctx.env.MAC_API_URL;
  if (!apiUrl) throw new UsageError('mac agent needs --api-url (or MAC_API_URL)', { hint });
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new UsageError(`--api-url must be an http:// or https:// URL, not "${apiUrl.slice(0, 100)}"`, { hint });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--api-url must be an http:// or https:// URL, not "${url.protocol}..."`, { hint });
  if (url.username || url.password) throw new UsageError('--api-url must not hold credentials', { hint });
  const key = keyOf(flags, ctx.env);
  const concurrency = parseCount('--concurrency', flags.concurrency, { fallback: 4, min: 1, max: 256, hint });
  const stopGrace = parseCount('--stop-grace', flags.stopGrace, { fallback: 20, min: 0, max: 3600, hint });
  const version = await packageVersion();
  const sandbox = bwrapAvailable();
  ctx.output.info(`mac agent ${version}: service ${url.origin}${url.pathname.replace(/\/+$/, '')}, key ${maskKey(key)}`);
  ctx.output.info(`  scripts: ${sandbox.ok ? `sandboxed (bubblewrap: ${sandbox.bwrap})` : flags.unsafeScripts ? `NOT sandboxed (--unsafe-scripts; ${sandbox.reason})` : `refused (${sandbox.reason}): apt-get install -y bubblewrap, or start with --unsafe-scripts`}`);
  const stop = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      ctx.output.info('mac agent: stopping (a second signal stops at once)');
      stop.abort();
    } else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { ran } = await runAgent(
      { apiUrl: url.toString(), key, concurrency, version, unsafeScripts: flags.unsafeScripts === true, stopGraceMs: stopGrace * 1000, log: (line) => ctx.output.info(line) },
      stop.signal,
    );
    ctx.output.info(`mac agent: stopped after ${ran} run${ran === 1 ? '' : 's'}`);
    ctx.exit(0);
  } catch (err) {
    if (err instanceof KeyRefused) throw new MacError(err.message, { hint: 'create a new key for the private location (POST /v1/private-locations/{id}/keys) and restart the agent with it' });
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// --key, --key-file or MAC_AGENT_KEY: exactly one; checked for form, never echoed whole.
function keyOf(flags: AgentFlags, env: Record<string, string | undefined>): string {
  const hint = usageHint('agent');
  if (flags.key !== undefined && flags.keyFile !== undefined) throw new UsageError('--key and --key-file both give the key; pass one', { hint });
  let key = flags.key ?? env.MAC_AGENT_KEY;
  if (flags.keyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.keyFile, 'utf8').slice(0, 200);
    } catch (err) {
      throw new UsageError(`--key-file: cannot read ${flags.keyFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { hint });
    }
    key = text.trim();
  }
  if (key === undefined || key === '') throw new UsageError('mac agent needs the private-location key: --key-file FILE, MAC_AGENT_KEY or --key', { hint });
  if (!KEY_FORMAT.test(key)) throw new UsageError(`the key ${key.length > 8 ? maskKey(key) : ''} is not a private-location key (pl_ and 32 hex digits)`.replace('  ', ' '), { hint });
  return key;
}

async function packageVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return (JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
