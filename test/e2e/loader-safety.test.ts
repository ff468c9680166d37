/**
 * What a pull request can put in a project must not leak a file nor run code: files a definition
 * names stay inside the project (absolute paths, `../`, symlinks, FIFOs, oversize files are
 * diagnostics at the field), YAML is bounded (alias bombs), --no-typescript refuses *.mac.ts files
 * before any runs, and `mac import --out` never writes through a symlink leading outside.
 * What a CLI process started with a secret in its environment can read of it (/proc/self/environ)
 * is tested here, with the built CLI spawned; every other case runs in process
 * (test/integration/loader-safety.test.ts); "no HTTP request" is proven by a TCP listener that
 * records each connection.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac, type RunResult } from '../helpers/cli.js';
import { startTcpServer, type TcpServer } from '../helpers/tcp-server.js';

let work: string;
let listener: TcpServer;
let apiUrl: string;

const UNAUTHORIZED = 'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mac-loader-safety-'));
  // Every connection is recorded: a run that must make no HTTP request leaves `received` empty.
  listener = await startTcpServer({ reply: () => UNAUTHORIZED });
  apiUrl = `http://127.0.0.1:${listener.port}`;
});

afterAll(async () => {
  await listener?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

let counter = 0;
/** A new project directory `work/<name>-N/project` (its parent `work/<name>-N` is outside it). */
async function project(name: string, files: Record<string, string> = {}): Promise<string> {
  const dir = join(work, `${name}-${++counter}`, 'project');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'mac.config.yaml'), 'project: safety\n');
  for (const [file, content] of Object.entries(files)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), content);
  }
  return dir;
}

const snippet = (scriptFile: string) => `kind: Snippet\nid: leak\nname: leak\nscriptFile: ${scriptFile}\n`;
// `scriptFile: <value>` is on line 4; the value starts in column 13.
const AT_FIELD = 'snippet.yaml:4:13: error: scriptFile: ';

const mac = (args: string[], extraEnv: Record<string, string> = {}): Promise<RunResult> =>
  runMac(args, { env: { MAC_API_URL: apiUrl, MAC_API_KEY: 'k', MAC_ACCOUNT_ID: 'a', ...extraEnv }, timeoutMs: 30_000 });

interface FileCase {
  name: string;
  /** Prepares the project; returns the scriptFile value to write. */
  setup(dir: string): Promise<string>;
  message: (value: string) => string;
  /** Text that must never appear in any output (what the file holds). */
  secret?: string;
}

const outside = (value: string) => `"${value}" is outside the project`;

const FILE_CASES: FileCase[] = [
  { name: 'an absolute path (/proc/self/environ)', setup: async () => '/proc/self/environ', message: outside, secret: 'SAFETY_CANARY_VALUE' },
];

describe('files a definition names stay inside the project', () => {
  it.each(FILE_CASES)('scriptFile at $name: validate and plan exit 1 at the field, plan makes no HTTP request', async (c) => {
    const dir = await project('file');
    const value = await c.setup(dir);
    await writeFile(join(dir, 'snippet.yaml'), snippet(value));
    const before = listener.received.length;

    const v = await mac(['validate', dir], { SAFETY: 'SAFETY_CANARY_VALUE' });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${AT_FIELD}${c.message(value)}`);

    const p = await mac(['plan', dir], { SAFETY: 'SAFETY_CANARY_VALUE' });
    expect(p.code).toBe(1);
    expect(p.stderr).toContain(`${AT_FIELD}${c.message(value)}`);
    expect(p.stderr).toContain('nothing was planned');
    // The plan reads the live state while the files load: list GETs, which carry nothing a file
    // holds (or connections stopped before their request was sent, once the diagnostics came).
    const sent = listener.received.slice(before);
    for (const request of sent) expect(request).toMatch(/^(GET \/v1\/[\w-/]+\?|$)/);
    if (c.secret) for (const r of [v, p]) expect(r.stdout + r.stderr).not.toContain(c.secret);
    if (c.secret) for (const request of sent) expect(request).not.toContain(c.secret);
  });

});
