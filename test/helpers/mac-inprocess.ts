// The built CLI (dist/, as bin/mac.js runs it), loaded by Node itself: the integration project
// keeps dist/ out of Vite's transform (vitest.config.ts), so a file pays one native import.
import { afterAll, beforeAll } from 'vitest';
import { main } from '../../dist/cli/main.js';
import { cleanEnv, type RunOptions, type RunResult } from './cli.js';
import { testStateFile } from './store-mode.js';
import type { Served } from './serve.js';

// The CLI driven in the test's own process: `main()` with the argv, environment and working
// directory a user's shell would give it, its stdout and stderr collected. Same results as
// runMac (test/helpers/cli.ts) without a Node start-up per command (about 0.4 s of CPU each);
// the integration tier uses it. Tests about the process itself (signals, kill -9, exit codes of
// the launcher, the packed tarball, the Action bundle) keep runMac.

/** A stream main() writes to: text collected, never a TTY (no colour, no live progress, no prompt). */
function collector(): { write(s: string): boolean; isTTY: false; text(): string } {
  const parts: string[] = [];
  return {
    isTTY: false,
    write(s: string) {
      parts.push(s);
      return true;
    },
    text: () => parts.join(''),
  };
}

/**
 * Runs `mac ...args` in process and collects its output, as runMac does with a child process.
 * `opts.input` is not read: a run that is not on a terminal never prompts.
 */
export async function runMacIn(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const stdout = collector();
  const stderr = collector();
  const cwd = opts.cwd ?? process.cwd();
  let code: number;
  try {
    code = await main(['node', 'mac', ...args], { stdout, stderr, env: cleanEnv(opts.env), cwd });
  } catch (err) {
    // What bin/mac.js does with an error main() let through: printed, exit code 1.
    stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    code = 1;
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Starts `mac serve --port 0 ...args` in process, as startServe (test/helpers/serve.ts) does with
 * a child process, and resolves once it listens. `stop()` ends it as SIGTERM would; `pid` is the
 * test's own process (never signal it).
 */
export async function startServeIn(args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const own = args.includes('--state') || args.includes('--database');
  const state = own ? undefined : testStateFile();
  if (state) args = [...args, state.startsWith('postgres') ? '--database' : '--state', state];
  const stdout = collector();
  const stderr = collector();
  const stop = new AbortController();
  let exitCode: number | null = null;
  const log = () => stdout.text() + stderr.text();
  const ended = main(['node', 'mac', 'serve', '--port', '0', ...args], { stdout, stderr, env: cleanEnv(env), cwd: process.cwd(), stop: stop.signal }).then(
    (code) => {
      exitCode = code;
    },
    (err: unknown) => {
      stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      exitCode = 1;
    },
  );
  const deadline = Date.now() + 60_000; // the first start in a worker also loads the service's modules
  for (;;) {
    const m = /listening on (http:\/\/\S+)/.exec(stdout.text());
    if (m) {
      const keyIdx = args.indexOf('--api-key');
      const accIdx = args.indexOf('--account');
      return {
        url: m[1],
        pid: process.pid,
        apiKey: keyIdx >= 0 ? args[keyIdx + 1] : 'mac-dev-key',
        accountId: accIdx >= 0 ? args[accIdx + 1] : 'dev',
        log,
        exitCode: () => exitCode,
        async stop() {
          stop.abort();
          await ended;
        },
      };
    }
    if (exitCode !== null) throw new Error(`mac serve exited with ${exitCode} before listening:\n${log()}`);
    if (Date.now() > deadline) {
      stop.abort();
      throw new Error(`mac serve did not start within 60 s:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs `mac ...args` in process against a served API: `mac` of test/e2e/apply-fixtures.ts without a process. */
export function macIn(served: Pick<Served, 'url' | 'apiKey'>, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return runMacIn(args, { ...opts, env: { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey, ...opts.env } });
}

/** A file's in-process service, started with `args` before its tests and stopped after them; call at the top of the file. */
export function serveInForFile(args: string[]): { served: Served } {
  const file = { served: undefined as unknown as Served };
  beforeAll(async () => {
    file.served = await startServeIn(args);
  });
  afterAll(async () => {
    await file.served?.stop();
  });
  return file;
}
