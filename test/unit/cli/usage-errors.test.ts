import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';

const dir = mkdtempSync(`${tmpdir()}/mac-usage-`);

/** Runs the CLI in process; the lines it wrote to stderr and its exit code. */
async function run(...args: string[]): Promise<{ code: number; lines: string[]; stdout: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(['node', 'mac', ...args], { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: {} });
  return { code, lines: err.join('').trimEnd().split('\n'), stdout: out.join('') };
}

describe('usage errors', () => {
  it.each([
    [['apply', '--bogus'], "error: unknown option '--bogus'", '  hint: run "mac apply --help" for usage'],
    [['validate', 'a', 'b'], "error: too many arguments for 'validate'. Expected 1 argument but got 2.", '  hint: run "mac validate --help" for usage'],
    [['bogus'], "error: unknown command 'bogus'", '  hint: run "mac --help" for usage'],
    [['apply', dir, '--concurrency', '0'], 'error: --concurrency must be a whole number from 1 to 256, got "0"', '  hint: run "mac apply --help" for usage'],
    [['apply', dir, '--max-deletes', '-1'], 'error: --max-deletes must be a whole number from 0 to 10000, got "-1"', '  hint: run "mac apply --help" for usage'],
    [['apply', dir, '--format', 'yaml'], 'error: --format must be one of text, markdown, json, got "yaml"', '  hint: run "mac apply --help" for usage'],
    // One integer parser for every command: an exponent is never a whole number.
    [['import', '--out', dir, '--concurrency', '1e3'], 'error: --concurrency must be a whole number from 1 to 256, got "1e3"', '  hint: run "mac import --help" for usage'],
    [['test', dir, '--concurrency', '1e3'], 'error: --concurrency must be a whole number from 1 to 256, got "1e3"', '  hint: run "mac test --help" for usage'],
    [['destroy', dir, '--lock-timeout', '1e3'], 'error: --lock-timeout must be a whole number from 0 to 86400, got "1e3"', '  hint: run "mac destroy --help" for usage'],
    [['serve', '--port', '1e3'], 'error: --port must be a whole number from 0 to 65535, got "1e3"', '  hint: run "mac serve --help" for usage'],
    [['plan', dir, '--format', 'yaml'], 'error: --format must be one of text, markdown, json, got "yaml"', '  hint: run "mac plan --help" for usage'],
  ])('mac %j: one line and a hint, exit 1', async (args, message, hint) => {
    const r = await run(...args);
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([message, hint]);
    expect(r.stdout).toBe('');
  });
});

describe('file system errors', () => {
  it('a path that cannot be written is one line and a hint, not an internal error with a stack', async () => {
    const file = `${dir}/a-file`;
    (await import('node:fs')).writeFileSync(file, '');
    const r = await run('schemas', '--out', `${file}/schemas`);
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([
      `error: ENOTDIR: not a directory, mkdir '${file}/schemas'`,
      '  hint: check the path, that its folder exists, and that it may be written',
    ]);
  });
});
