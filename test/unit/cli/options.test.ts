import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOptions, connectionsFor, limiterFor } from '../../../src/cli/options.js';
import { parseChoice, parseCount, parseRateLimit, parseSeconds, rateLimitFrom } from '../../../src/config/options.js';
import { parseInputs } from '../../../src/action/inputs.js';
import { SlidingWindowLimiter } from '../../../src/api/index.js';
import { UsageError } from '../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'mac-apply-opts-'));
writeFileSync(join(dir, 'plan.json'), '{}');

describe('apply options', () => {
  it('defaults to the current directory, 8 in flight and 10 deletes', async () => {
    expect(await applyOptions(undefined, {}, {}, dir)).toEqual({
      target: { type: 'dir', dir },
      yes: false,
      prune: false,
      maxDeletes: 10,
      concurrency: 8,
      format: 'text',
      lockTimeout: 0,
      rateLimit: undefined,
    });
  });

  it('tells a plan file from a directory and reads the rate limit from the flag, then MAC_RATE_LIMIT', async () => {
    const o = await applyOptions('plan.json', { concurrency: '16', maxDeletes: '0', rateLimit: '50/1' }, { MAC_RATE_LIMIT: '5/1' }, dir);
    expect(o).toMatchObject({ target: { type: 'planfile', file: join(dir, 'plan.json') }, concurrency: 16, maxDeletes: 0 });
    expect(o.rateLimit).toEqual({ requests: 50, perSeconds: 1 });
    expect((await applyOptions('.', {}, { MAC_RATE_LIMIT: '5/1' }, dir)).rateLimit).toEqual({ requests: 5, perSeconds: 1 });
  });

  it('turns a rate limit into a sliding window, and 0/S into none', async () => {
    expect(parseRateLimit('50/1', 'x')).toEqual({ requests: 50, perSeconds: 1 });
    expect(limiterFor(undefined)).toBeUndefined();
    expect(limiterFor({ requests: 50, perSeconds: 1 })).toBeInstanceOf(SlidingWindowLimiter);
    await expect(limiterFor({ requests: 0, perSeconds: 60 })!.take()).resolves.toBeUndefined();
  });

  it('refuses bad values with the flag named', async () => {
    await expect(applyOptions('.', { concurrency: '0' }, {}, dir)).rejects.toThrow('--concurrency must be a whole number from 1 to 256, got "0"');
    await expect(applyOptions('.', { format: 'yaml' }, {}, dir)).rejects.toThrow(/--format must be one of text, markdown, json/);
    await expect(applyOptions('missing', {}, {}, dir)).rejects.toBeInstanceOf(UsageError);
    await expect(applyOptions('.', { lockTimeout: 'soon' }, {}, dir)).rejects.toThrow('--lock-timeout must be a whole number from 0 to 86400, got "soon"');
    expect((await applyOptions('.', { lockTimeout: '60' }, {}, dir)).lockTimeout).toBe(60);
    expect(() => parseRateLimit('fast', 'MAC_RATE_LIMIT')).toThrow('MAC_RATE_LIMIT must look like N/SECONDS (e.g. 600/60), got "fast"');
  });
});

describe('shared option parsers (CLI flags and Action inputs)', () => {
  it('take whole numbers in decimal digits only: no exponent, sign, fraction or hex', () => {
    expect(parseCount('--n', ' 42 ', { fallback: 1, min: 0 })).toBe(42);
    expect(parseCount('--n', undefined, { fallback: 7, min: 0 })).toBe(7);
    expect(parseCount('--n', '', { min: 0 })).toBeUndefined();
    for (const bad of ['1e3', '+5', '-1', '1.0', '0x10', 'ten', '10001']) {
      expect(() => parseCount('--n', bad, { fallback: 1, min: 0 })).toThrow(`--n must be a whole number from 0 to 10000, got "${bad}"`);
    }
    expect(() => parseSeconds('--lock-timeout', '86401', { fallback: 0, max: 86_400 })).toThrow('--lock-timeout must be a whole number from 0 to 86400, got "86401"');
  });

  it('parse the same values the same way for a flag and an Action input', async () => {
    const input = (values: Record<string, string>) => parseInputs((n) => values[n] ?? '');
    for (const bad of ['1e3', '2.5', '0']) {
      await expect(applyOptions('.', { concurrency: bad }, {}, dir)).rejects.toThrow(`--concurrency must be a whole number from 1 to 256, got "${bad}"`);
      expect(() => input({ concurrency: bad })).toThrow(`input "concurrency" must be a whole number from 1 to 256, got "${bad}"`);
    }
    expect(() => input({ 'max-deletes': '1e3' })).toThrow('input "max-deletes" must be a whole number from 0 to 10000, got "1e3"');
    expect(input({ 'max-deletes': '12', concurrency: '256' })).toMatchObject({ maxDeletes: 12, concurrency: 256 });
    expect((await applyOptions('.', { maxDeletes: '12', concurrency: '256' }, {}, dir))).toMatchObject({ maxDeletes: 12, concurrency: 256 });
  });

  it('take the rate limit from the flag, else MAC_RATE_LIMIT, naming the source of a bad value', () => {
    expect(rateLimitFrom('5/1', { MAC_RATE_LIMIT: '9/9' })).toEqual({ requests: 5, perSeconds: 1 });
    expect(rateLimitFrom(undefined, { MAC_RATE_LIMIT: '9/9' })).toEqual({ requests: 9, perSeconds: 9 });
    expect(rateLimitFrom(undefined, {})).toBeUndefined();
    expect(() => rateLimitFrom(undefined, { MAC_RATE_LIMIT: 'x' })).toThrow('MAC_RATE_LIMIT must look like N/SECONDS');
    expect(() => rateLimitFrom('x', {})).toThrow('--rate-limit must look like N/SECONDS');
  });

  it('list the choices of a bad choice', () => {
    expect(parseChoice('--format', undefined, ['text', 'json'] as const, 'text')).toBe('text');
    expect(() => parseChoice('--format', 'yaml', ['text', 'json'] as const, 'text')).toThrow('--format must be one of text, json, got "yaml"');
  });
});

describe('layering', () => {
  it('the Action imports nothing of src/cli (connection, options and the lock holder live below both)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const root = new URL('../../../src/action/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) expect(readFileSync(new URL(f, root), 'utf8'), f).not.toMatch(/from '(\.\.\/)+cli\//);
  });
});

describe('connectionsFor', () => {
  it('keeps a socket per change in flight and two spare ones, never fewer than 16', () => {
    expect(connectionsFor(1)).toBe(16);
    expect(connectionsFor(8)).toBe(16);
    expect(connectionsFor(16)).toBe(18);
    expect(connectionsFor(64)).toBe(66);
  });
});
