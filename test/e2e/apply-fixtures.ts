import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runMac, type RunOptions, type RunResult } from '../helpers/cli.js';
import type { Served } from '../helpers/serve.js';

/** Writes a project (path -> text) into a fresh temporary directory and returns it. */
export function writeProject(files: Record<string, string>, dir = mkdtempSync(join(tmpdir(), 'mac-apply-'))): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The environment a CLI run needs to reach a served API. */
export function connectionEnv(served: Served, extra: Record<string, string> = {}): Record<string, string> {
  return { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey, ...extra };
}

/** Runs `mac ...args` against a served API. */
export function mac(served: Served, args: string[], opts: RunOptions & { env?: Record<string, string> } = {}): Promise<RunResult> {
  return runMac(args, { ...opts, env: connectionEnv(served, opts.env) });
}

/**
 * One raw API call, retried on what `--faults` injects (5xx, 429, resets), so tests can read the
 * account through a faulty service.
 */
export async function api<T = unknown>(served: Served, method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(served.url + path, {
        method,
        headers: { authorization: `Bearer ${served.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if ((res.status >= 500 || res.status === 429) && attempt < 20) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch (err) {
      if (attempt < 20 && err instanceof TypeError) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      throw err;
    }
  }
}

/** Every item of a page-based list. */
export async function listAllOf<T = Record<string, unknown>>(served: Served, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const batch = await api<T[]>(served, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`);
    items.push(...batch);
    if (batch.length < 100) return items;
  }
}

/** How many live checks carry each ownership tag of `project` (a duplicate shows as 2). */
export async function checksByTag(served: Served, project: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const c of await listAllOf<{ tags: string[] }>(served, '/v1/checks')) {
    for (const t of c.tags) if (t.startsWith(`mac:${project}/`)) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return counts;
}

/** A YAML document stream of `n` TCP checks named c0..c(n-1). */
export function tcpChecks(n: number, extra = ''): string {
  return Array.from(
    { length: n },
    (_, i) => `kind: TcpCheck\nid: c${i}\nname: Check ${i}\nrequest: { hostname: host${i}.example, port: 443 }\n${extra}`,
  ).join('---\n');
}

/** mac.config.yaml of a project. */
export function config(project: string, env: string[] = []): string {
  return `project: ${project}\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n${env.length > 0 ? `env: [${env.join(', ')}]\n` : ''}`;
}

/** The secret of the `shop` project: never printed. */
export const SHOP_SECRET = 'sk_test_e2e_value_never_printed';

/** A project of every resource kind the apply tests need: a secret variable, a snippet, a channel, two checks. */
export const shop = {
  'mac.config.yaml': config('shop', ['SHOP_STRIPE_KEY']),
  'resources.yaml': `kind: EnvironmentVariable
key: STRIPE_KEY
value: \${{ env.SHOP_STRIPE_KEY }}
secret: true
---
kind: Snippet
id: auth-setup
name: auth setup
script: "console.log('setup')"
---
kind: AlertChannel
id: oncall
type: EMAIL
config: { address: oncall@example.com }
`,
  'checks.yaml': `kind: TcpCheck
id: db
name: Primary database
frequency: 1
request: { hostname: db.internal.example, port: 5432 }
alertChannels: [oncall]
---
kind: DnsCheck
id: dns
name: DNS main
request: { query: example.com, recordType: A }
setupSnippet: auth-setup
`,
};
/** The environment the `shop` project reads its secret from. */
export const shopEnv = { SHOP_STRIPE_KEY: SHOP_SECRET };

/** The variable of a project's apply lock. */
export const LOCK = (project: string): string => `MAC_LOCK_${project.toUpperCase().replace(/-/g, '_')}`;

/** A lock record as mac writes it. */
export function lockValue(fields: { user?: string; host: string; pid: number; expires?: string; started?: string; command?: string }): string {
  return JSON.stringify({
    v: 1,
    user: fields.user ?? 'ci',
    host: fields.host,
    pid: fields.pid,
    command: fields.command ?? 'mac apply',
    token: 'hand-made',
    started: fields.started ?? '2026-01-02T03:04:05.000Z',
    expires: fields.expires ?? new Date(Date.now() + 3_600_000).toISOString(),
  });
}

/** The pid of a process that has ended (and so is provably gone on this host). */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}
