import { describe, expect, it } from 'vitest';
import { EnvNameAllocator, IdAllocator, slugify } from '../../src/import/ids.js';

describe('slugify', () => {
  it('lower-cases and joins words with single dashes', () => {
    expect(slugify('  Primary DB -- reachable!! ')).toBe('primary-db-reachable');
  });
  it('drops diacritics and keeps digits', () => {
    expect(slugify('Café Ünïcode 24/7')).toBe('cafe-unicode-24-7');
  });
  it('gives an empty string for names without letters or digits', () => {
    expect(slugify('🚀 ---')).toBe('');
  });
  it('cuts long names without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(59)} b`);
    expect(slug).toBe('a'.repeat(59));
    expect(slug).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
  });
});

describe('IdAllocator', () => {
  it('suffixes collisions in the order asked', () => {
    const ids = new IdAllocator();
    expect(['API', 'api', 'Api!', 'api 2'].map((n) => ids.allocate(n, 'x'))).toEqual(['api', 'api-2', 'api-3', 'api-2-2']);
  });
  it('never reuses an id reserved by the project', () => {
    const ids = new IdAllocator(['db', 'db-2']);
    expect(ids.allocate('DB', 'x')).toBe('db-3');
    expect(ids.has('db-3')).toBe(true);
  });
  it('falls back to the kind name when the name has no usable character', () => {
    const ids = new IdAllocator();
    expect([ids.allocate('???', 'tcp-check'), ids.allocate('', 'tcp-check')]).toEqual(['tcp-check', 'tcp-check-2']);
  });
  it('is stable: the same names in the same order give the same ids', () => {
    const names = ['Shop', 'shop', 'Checkout', 'SHOP'];
    const run = () => {
      const ids = new IdAllocator();
      return names.map((n) => ids.allocate(n, 'x'));
    };
    expect(run()).toEqual(run());
  });
});

describe('EnvNameAllocator', () => {
  it('builds upper snake case names and suffixes collisions', () => {
    const env = new EnvNameAllocator();
    expect(env.allocate('login-check', 'api.token')).toBe('LOGIN_CHECK_API_TOKEN');
    expect(env.allocate('login check', 'API_TOKEN')).toBe('LOGIN_CHECK_API_TOKEN_2');
  });
  it('never hands out a name definitions may not read nor one starting with a digit', () => {
    const env = new EnvNameAllocator();
    expect(env.allocate('MAC_API_KEY')).toBe('ENV_MAC_API_KEY');
    expect(env.allocate('input-api', 'token')).toBe('ENV_INPUT_API_TOKEN');
    expect(env.allocate('runner', 'key')).toBe('ENV_RUNNER_KEY');
    expect(env.allocate('1password')).toBe('_1PASSWORD');
    expect(env.allocate('ops', 'webhookSecret')).toBe('OPS_WEBHOOK_SECRET');
  });
});
