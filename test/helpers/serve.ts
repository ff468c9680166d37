import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { MAC_BIN, cleanEnv, runMac } from './cli.js';
import { testStateFile } from './store-mode.js';

/** A running `mac serve` started by a test. */
export interface Served {
  url: string;
  pid: number;
  apiKey: string;
  accountId: string;
  /** Everything the service printed so far (stdout and stderr). */
  log(): string;
  /** Stops the service by its pid (SIGTERM, or SIGKILL for a crash test) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** The exit code once the service has exited (null while it runs, or when a signal ended it). */
  exitCode(): number | null;
}

/**
 * Starts `mac serve --port 0 ...args` and resolves once it prints its URL
 * (the line `mac serve listening on http://127.0.0.1:PORT`).
 */
export function startServe(args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  // In SQLite mode (MAC_TEST_STORE=sqlite) a service without a database of its own gets a fresh one.
  const own = args.includes('--state') || args.includes('--database');
  const state = own ? undefined : testStateFile();
  if (state) args = [...args, state.startsWith('postgres') ? '--database' : '--state', state];
  const child: ChildProcess = spawn(process.execPath, [MAC_BIN, 'serve', '--port', '0', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mac serve did not start within 60 s:\n${out}`));
    }, 60_000); // a start takes 0.5 s on a quiet machine; a loaded one (load 25 and more) took over 20 s
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const keyIdx = args.indexOf('--api-key');
        const accIdx = args.indexOf('--account');
        resolve({
          url: m[1],
          pid: child.pid!,
          apiKey: keyIdx >= 0 ? args[keyIdx + 1] : 'mac-dev-key',
          accountId: accIdx >= 0 ? args[accIdx + 1] : 'dev',
          log: () => out,
          exitCode: () => child.exitCode,
          async stop(signal: NodeJS.Signals = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mac serve exited with ${code} before listening:\n${out}`));
    });
  });
}

/**
 * Starts one `mac serve` per argument list, all at once, and resolves with them in that order;
 * when one fails to start, the others are stopped (SIGKILL) and its error is thrown.
 */
export async function startServes(...argLists: string[][]): Promise<Served[]> {
  const started = await Promise.allSettled(argLists.map((args) => startServe(args)));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.stop('SIGKILL') : undefined)));
    throw failed.reason;
  }
  return started.map((r) => (r as PromiseFulfilledResult<Served>).value);
}

/** One API call of a test to a running service: status, parsed body (undefined when empty), headers. */
export async function callApi(
  s: Pick<Served, 'url' | 'apiKey'>,
  method: string,
  path: string,
  body?: unknown,
  key = s.apiKey,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** `callApi` for set-up steps that must succeed: the parsed body, or a thrown error naming the call. */
export async function apiOk(s: Pick<Served, 'url' | 'apiKey'>, method: string, path: string, body?: unknown): Promise<any> {
  const r = await callApi(s, method, path, body);
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** `mac serve` that must refuse to start: its exit code and what it printed. */
// A generous limit: a loaded machine (load 20 and more) took over 30 s to start and refuse.
export const refusedServe = (args: string[]) => runMac(['serve', '--port', '0', '--no-runs', ...args], { timeoutMs: 90_000 });

/**
 * kill -9 of `mac serve` on `database` while writes are in flight: after a restart every
 * acknowledged write is there, and no acknowledged id is handed out again.
 */
export async function expectAckedWritesSurviveKill(database: string): Promise<void> {
  const args = ['--database', database, '--no-runs', '--rate-limit', '0/60'];
  const a = await startServe(args);
  const acked: Array<{ id: number; name: string }> = [];
  let killed = false;
  try {
    const writes = Array.from({ length: 80 }, (_, i) =>
      callApi(a, 'POST', '/v1/snippets', { name: `s${i}`, script: `// ${i}` }).then(
        (r) => {
          if (r.status === 201 && !killed) acked.push({ id: r.body.id, name: r.body.name });
        },
        () => undefined,
      ),
    );
    // Kill once some writes are acknowledged and others are still on their way.
    while (acked.length < 20) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    await a.stop('SIGKILL');
    await Promise.all(writes);
  } finally {
    await a.stop('SIGKILL');
  }
  const b = await startServe(args);
  try {
    for (const s of acked) expect((await callApi(b, 'GET', `/v1/snippets/${s.id}`)).body).toMatchObject(s);
    // Counters survive too: no acknowledged id is handed out again.
    const next = await apiOk(b, 'POST', '/v1/snippets', { name: 'after', script: 'x' });
    expect(next.id).toBeGreaterThan(Math.max(...acked.map((s) => s.id)));
  } finally {
    await b.stop();
  }
}

/** Polls `probe` every `everyMs` until it returns a value; throws after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 40_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
