import { describe, expect, it } from 'vitest';
import { parseKeysFile } from '../../../src/server/options.js';

describe('parseKeysFile (mac serve --keys FILE)', () => {
  it('reads keys, accounts and roles; role admin by default', () => {
    const text = JSON.stringify({ keys: [{ key: 'k-acme', account: 'acme' }, { key: 'k-ro', account: 'acme', role: 'read-only' }, { key: 'k-beta', account: 'beta', role: 'admin' }] });
    expect(parseKeysFile(text, 'keys.json')).toEqual([
      { key: 'k-acme', accountId: 'acme', role: 'admin' },
      { key: 'k-ro', accountId: 'acme', role: 'read-only' },
      { key: 'k-beta', accountId: 'beta', role: 'admin' },
    ]);
  });

  it('names the file and the field, never the key value', () => {
    const bad = (value: unknown) => () => parseKeysFile(typeof value === 'string' ? value : JSON.stringify(value), 'keys.json');
    expect(bad('{"keys": [')).toThrow(/^keys\.json: not valid JSON/);
    expect(bad({ keys: [] })).toThrow('keys.json: keys: must list at least one key');
    expect(bad({ keys: [{ key: 'secret one', account: 'a' }] })).toThrow('keys.json: keys.0.key: must be printable ASCII without spaces');
    expect(bad({ keys: [{ key: 'k', account: 'a', role: 'owner' }] })).toThrow(/^keys\.json: keys\.0\.role: /);
    expect(bad({ keys: [{ key: 'k', account: 'a b' }] })).toThrow('keys.json: keys.0.account: must be 1..64 of [A-Za-z0-9._-]');
    expect(bad({ keys: [{ key: 'k', account: 'a' }], extra: 1 })).toThrow(/^keys\.json: \(top level\): /);
    expect(bad({ keys: [{ key: 'dup-secret', account: 'a' }, { key: 'dup-secret', account: 'b' }] })).toThrow('keys.json: keys.1.key: repeats the key of an earlier item');
    try {
      bad({ keys: [{ key: 'top-secret', account: 'a', role: 'x' }] })();
    } catch (err) {
      expect((err as Error).message).not.toContain('top-secret');
    }
  });
});
