import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { createOutput } from '../../../src/cli/output.js';

const ESC = '\x1b[';
const sink = (isTTY: boolean) => {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (s: string) => chunks.push(s) };
};

describe('createOutput', () => {
  it('colours each stream by whether that stream is a terminal', () => {
    const out = createOutput({ stdout: sink(true), stderr: sink(false), env: {} });
    expect(out.c.red('x')).toContain(ESC);
    expect(out.cErr.red('x')).toBe('x');
    const err = createOutput({ stdout: sink(false), stderr: sink(true), env: {} });
    expect(err.c.red('x')).toBe('x');
    expect(err.cErr.red('x')).toContain(ESC);
  });

  it('never colours with NO_COLOR, even on terminals', () => {
    const out = createOutput({ stdout: sink(true), stderr: sink(true), env: { NO_COLOR: '1' } });
    expect(out.c.red('x')).toBe('x');
    expect(out.cErr.red('x')).toBe('x');
  });
});

describe('main', () => {
  it('writes no colour codes into a redirected stderr while stdout is a terminal', async () => {
    const stdout = sink(true);
    const stderr = sink(false);
    const dir = fileURLToPath(new URL('../../fixtures/multi-defect', import.meta.url));
    const code = await main(['node', 'mac', 'validate', dir], { stdout, stderr, env: {} });
    expect(code).toBe(1);
    expect(stderr.chunks.join('')).toContain('error');
    expect(stderr.chunks.join('')).not.toContain(ESC);
  });
});
