import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';

/** `mac ...args` in process; what it printed on stdout. */
async function help(...args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(['node', 'mac', ...args], { stdout: { write: (s: string) => out.push(s) }, stderr: { write: () => undefined }, env: {} });
  expect(code).toBe(0);
  return out.join('');
}

/** The options of a command's --help: flag -> description, wrapped lines joined. */
function options(text: string): Map<string, string> {
  const found = new Map<string, string>();
  let last: string | undefined;
  const section = text.slice(text.indexOf('Options:'));
  for (const line of section.split('\n').slice(1)) {
    const start = /^  (-[^\s,]+(?:, -[^\s]+)?)(?: <[^>]+>)?\s{2,}(.*)$/.exec(line);
    if (start) {
      last = start[1].split(', ').pop()!;
      found.set(last, start[2].trim());
    } else if (last && /^\s{6,}\S/.test(line)) {
      found.set(last, `${found.get(last)} ${line.trim()}`);
    } else {
      last = undefined;
    }
  }
  return found;
}

// The commands of a project and the API; `serve` is the API itself (its --api-key and
// --rate-limit are the service's own), `schemas` writes files only.
const COMMANDS = ['init', 'validate', 'plan', 'apply', 'destroy', 'unlock', 'import', 'test'];

describe('--help', () => {
  it('words the same option the same way on every command', async () => {
    const seen = new Map<string, Map<string, string>>();
    for (const command of COMMANDS) {
      for (const [flag, text] of options(await help(command, '--help'))) {
        if (flag === '--help' || flag === '--format' || flag === '--concurrency' || flag === '--prune' || flag === '--yes' || flag === '--project' || flag === '--out') continue;
        if (!seen.has(flag)) seen.set(flag, new Map());
        seen.get(flag)!.set(command, text);
      }
    }
    for (const flag of ['--api-url', '--api-key', '--account-id', '--rate-limit', '--max-deletes', '--lock-timeout', '--no-typescript']) {
      const texts = new Set(seen.get(flag)!.values());
      expect([...texts], `${flag} on ${[...seen.get(flag)!.keys()].join(', ')}`).toHaveLength(1);
    }
    expect([...seen.get('--api-url')!.keys()].sort()).toEqual(['apply', 'destroy', 'import', 'plan', 'unlock']);
  });

  it('lists the choices and the default of --format and the range and default of --concurrency', async () => {
    for (const command of ['plan', 'apply', 'destroy', 'test', 'import']) {
      const o = options(await help(command, '--help'));
      if (o.has('--format')) expect(o.get('--format'), command).toMatch(/: (text|json)(, \w+)+ \(default: text\)$/);
      if (o.has('--concurrency')) expect(o.get('--concurrency'), command).toMatch(/ at once, 1 to 256 \(default: \d+\)$/);
      if (o.has('--rate-limit')) expect(o.get('--rate-limit')).toContain('(env MAC_RATE_LIMIT; default: 600/60)');
    }
    expect(options(await help('plan', '--help')).get('--format')).toBe('output format: text, markdown, json (default: text)');
    expect(options(await help('test', '--help')).get('--format')).toBe('output format: text, json (default: text)');
  });

  it('names the environment variables and the docs at the top level', async () => {
    const text = await help('--help');
    for (const name of ['MAC_API_URL', 'MAC_API_KEY', 'MAC_ACCOUNT_ID', 'MAC_RATE_LIMIT', 'NO_COLOR']) expect(text).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(text).toMatch(/^Docs: https:\/\/github\.com\/\S+#readme$/m);
    expect(text).toMatch(/^  init \[options\] \[dir\]/m);
  });
});

describe('--help shows numeric defaults as numbers', () => {
  it('on every command: (default: 4010), never (default: "4010")', async () => {
    for (const command of [...COMMANDS, 'serve', 'schemas']) {
      const text = await help(command, '--help');
      expect(text, command).not.toMatch(/\(default: "\d+(?:\.\d+)?(?:\/\d+)?"\)/);
    }
    const serve = options(await help('serve', '--help'));
    expect(serve.get('--port')).toContain('(default: 4010)');
    expect(serve.get('--rate-limit')).toContain('(default: 600/60)');
    expect(serve.get('--retention-days')).toContain('(default: 30)');
  });

  it('names the account header on every command that talks to the API, and on serve', async () => {
    for (const command of ['plan', 'apply', 'destroy', 'unlock', 'import']) {
      expect(options(await help(command, '--help')).get('--account-header'), command).toContain('(env MAC_ACCOUNT_HEADER; default: x-service-account)');
    }
    expect(options(await help('serve', '--help')).get('--account-header')).toContain('x-checkly-account');
    expect(await help('--help')).toMatch(/^ {2}MAC_ACCOUNT_HEADER {2}header the account id is sent in/m);
  });
});
