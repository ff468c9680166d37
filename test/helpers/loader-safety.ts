import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RunOptions, RunResult } from './cli.js';
import { startTcpServer, type TcpServer } from './tcp-server.js';

// The set-up the loader-safety tests share, in process (test/integration) and as processes
// (test/e2e): scratch projects, a TCP listener standing in for the API that records every
// request, and the check of a `scriptFile` that names something outside the project.

const UNAUTHORIZED = 'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}';

export const snippet = (scriptFile: string) => `kind: Snippet\nid: leak\nname: leak\nscriptFile: ${scriptFile}\n`;
/** `scriptFile: <value>` is on line 4 of `snippet`; the value starts in column 13. */
export const AT_FIELD = 'snippet.yaml:4:13: error: scriptFile: ';
export const outside = (value: string) => `"${value}" is outside the project`;

export interface FileCase {
  name: string;
  /** Prepares the project; returns the scriptFile value to write. */
  setup(dir: string): Promise<string>;
  message: (value: string) => string;
  /** Text that must never appear in any output (what the file holds). */
  secret?: string;
}

export interface LoaderSafety {
  /** The scratch directory (set once the file's beforeAll ran). */
  work: string;
  /** Records every connection: a run that must make no HTTP request leaves `received` empty. */
  listener: TcpServer;
  apiUrl: string;
  /** A new project directory `work/<name>-N/project` (its parent `work/<name>-N` is outside it). */
  project(name: string, files?: Record<string, string>): Promise<string>;
  /** `mac ...args` against the listener, with `extraEnv`. */
  mac(args: string[], extraEnv?: Record<string, string>): Promise<RunResult>;
  /** validate and plan of a snippet whose scriptFile is the case's: exit 1 at the field, no file content sent or printed. */
  checkFileCase(c: FileCase): Promise<void>;
}

/** Registers the file's beforeAll/afterAll and returns the shared set-up, running mac with `run`. */
export function useLoaderSafety(run: (args: string[], opts?: RunOptions) => Promise<RunResult>): LoaderSafety {
  let counter = 0;
  const s = {
    work: '',
    apiUrl: '',
    async project(name: string, files: Record<string, string> = {}) {
      const dir = join(s.work, `${name}-${++counter}`, 'project');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'mac.config.yaml'), 'project: safety\n');
      for (const [file, content] of Object.entries(files)) {
        await mkdir(join(dir, file, '..'), { recursive: true });
        await writeFile(join(dir, file), content);
      }
      return dir;
    },
    mac: (args: string[], extraEnv: Record<string, string> = {}) =>
      run(args, { env: { MAC_API_URL: s.apiUrl, MAC_API_KEY: 'k', MAC_ACCOUNT_ID: 'a', ...extraEnv }, timeoutMs: 30_000 }),
    async checkFileCase(c: FileCase) {
      const dir = await s.project('file');
      const value = await c.setup(dir);
      await writeFile(join(dir, 'snippet.yaml'), snippet(value));
      const before = s.listener.received.length;

      const v = await s.mac(['validate', dir], { SAFETY: 'SAFETY_CANARY_VALUE' });
      expect(v.code).toBe(1);
      expect(v.stderr).toContain(`${AT_FIELD}${c.message(value)}`);

      const p = await s.mac(['plan', dir], { SAFETY: 'SAFETY_CANARY_VALUE' });
      expect(p.code).toBe(1);
      expect(p.stderr).toContain(`${AT_FIELD}${c.message(value)}`);
      expect(p.stderr).toContain('nothing was planned');
      // The plan reads the live state while the files load: list GETs, which carry nothing a file
      // holds (or connections stopped before their request was sent, once the diagnostics came).
      const sent = s.listener.received.slice(before);
      for (const request of sent) expect(request).toMatch(/^(GET \/v1\/[\w-/]+\?|$)/);
      if (c.secret) for (const r of [v, p]) expect(r.stdout + r.stderr).not.toContain(c.secret);
      if (c.secret) for (const request of sent) expect(request).not.toContain(c.secret);
    },
  } as LoaderSafety;
  beforeAll(async () => {
    s.work = await mkdtemp(join(tmpdir(), 'mac-loader-safety-'));
    s.listener = await startTcpServer({ reply: () => UNAUTHORIZED });
    s.apiUrl = `http://127.0.0.1:${s.listener.port}`;
  });
  afterAll(async () => {
    await s.listener?.close();
    if (s.work) await rm(s.work, { recursive: true, force: true });
  });
  return s;
}
