import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOptions, connectionsFor, limiterFor, parseRateLimit } from '../../../src/cli/apply-options.js';
import { SlidingWindowLimiter } from '../../../src/api/index.js';
import { UsageError } from '../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'mac-apply-opts-'));
writeFileSync(join(dir, 'plan.json'), '{}');

describe('apply options', () => {
  it('keeps a socket per change in flight and two spare ones, never fewer than 16', () => {
    expect(connectionsFor(1)).toBe(16);
    expect(connectionsFor(8)).toBe(16);
    expect(connectionsFor(16)).toBe(18);
    expect(connectionsFor(64)).toBe(66);
  });

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
