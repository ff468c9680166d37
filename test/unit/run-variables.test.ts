import { describe, expect, it } from 'vitest';
import { runVariables } from '../../src/server/runs/engine.js';

describe('the variables a run sees', () => {
  it("are the account's, then the check's own, the check's winning for the same key; secret and locked kept", () => {
    const account = [
      { key: 'TOKEN', value: 'account-token', secret: true, locked: false },
      { key: 'BASE', value: 'https://account.example', secret: false, locked: true },
    ];
    const own = [
      { key: 'BASE', value: 'https://check.example', secret: false, locked: false },
      { key: 'ONLY_CHECK', value: 'x', secret: true },
    ];
    expect(runVariables(account, own)).toEqual([
      { key: 'TOKEN', value: 'account-token', secret: true, locked: false },
      { key: 'BASE', value: 'https://check.example', secret: false, locked: false },
      { key: 'ONLY_CHECK', value: 'x', secret: true, locked: false },
    ]);
  });

  it('leave out items that are not key and value strings, and a missing or malformed list of the check', () => {
    const account = [{ key: 'A', value: '1' }, null, { key: 'B' }, { key: 2, value: '3' }, 'C'];
    expect(runVariables(account, undefined)).toEqual([{ key: 'A', value: '1', secret: false, locked: false }]);
    expect(runVariables(account, { key: 'A', value: 'not a list' })).toEqual([{ key: 'A', value: '1', secret: false, locked: false }]);
    expect(runVariables([], [])).toEqual([]);
  });
});
