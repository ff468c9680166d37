import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI launcher, as a user would run it. */
export const MAC_BIN = fileURLToPath(new URL('../../bin/mac.js', import.meta.url));

/** What a CLI run printed and how it ended. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of a CLI run: a clean environment plus `env`, a working directory, stdin text. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/** A minimal environment: no MAC_* from the developer's shell leaks into tests. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const base: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: '1',
    ...extra,
  };
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Spawns `mac ...args` with the built CLI and collects its output. */
export function runMac(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAC_BIN, ...args], {
      cwd: opts.cwd,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 55_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
