import { describe, expect, it } from 'vitest';
import { describeHolder, formatLockRecord, parseLockRecord, takeoverReason, type LockRecord } from '../../../src/apply/lock.js';
import { isLockVariable, lockVariableKey } from '../../../src/schema/lock-key.js';
import { kindSpec } from '../../../src/kinds/index.js';

const record: LockRecord = {
  v: 1,
  user: 'alice',
  host: 'ci-7',
  pid: 4242,
  command: 'mac apply',
  token: 'abc',
  started: '2026-11-25T16:45:20.000Z',
  expires: '2026-11-25T16:46:20.000Z',
};
const NOW_BEFORE = Date.parse('2026-11-25T16:46:00.000Z');
const NOW_AFTER = Date.parse('2026-11-25T16:46:20.000Z');

describe('lock record', () => {
  it('round-trips through the variable value', () => {
    expect(parseLockRecord(formatLockRecord(record))).toEqual(record);
  });

  it('reads only records mac wrote: anything else is unreadable, never a holder', () => {
    expect(parseLockRecord('held by bob')).toBeUndefined();
    expect(parseLockRecord(null)).toBeUndefined();
    expect(parseLockRecord(JSON.stringify({ ...record, v: 2 }))).toBeUndefined();
    expect(parseLockRecord(JSON.stringify({ ...record, pid: '4242' }))).toBeUndefined();
    expect(parseLockRecord(JSON.stringify({ ...record, pid: 0 }))).toBeUndefined();
    expect(parseLockRecord(JSON.stringify({ ...record, expires: 'soon' }))).toBeUndefined();
    expect(parseLockRecord(JSON.stringify({ ...record, host: '' }))).toBeUndefined();
    const { token: _t, ...noToken } = record;
    expect(parseLockRecord(JSON.stringify(noToken))).toBeUndefined();
  });

  it('names the holder: user@host pid N since T (command), lease', () => {
    expect(describeHolder({ record, raw: '' })).toBe('alice@ci-7 pid 4242 since 2026-11-25T16:45:20.000Z (mac apply), lease until 2026-11-25T16:46:20.000Z');
    expect(describeHolder({ raw: 'held by bob' })).toBe('an unreadable lock record ("held by bob")');
  });
});

describe('takeover', () => {
  const alive = () => true;
  const dead = () => false;
  it('takes over a dead pid of this host only', () => {
    expect(takeoverReason({ record, raw: '' }, { host: 'ci-7', pid: 1 }, NOW_BEFORE, dead)).toBe('its holder (pid 4242 on ci-7) is no longer running');
    expect(takeoverReason({ record, raw: '' }, { host: 'ci-7', pid: 1 }, NOW_BEFORE, alive)).toBeUndefined();
    // Another host's pid says nothing about that host's processes.
    expect(takeoverReason({ record, raw: '' }, { host: 'laptop', pid: 1 }, NOW_BEFORE, dead)).toBeUndefined();
    // Our own pid with another token: an earlier process that had it.
    expect(takeoverReason({ record, raw: '' }, { host: 'ci-7', pid: 4242 }, NOW_BEFORE, alive)).toMatch(/no longer running/);
  });

  it('takes over an expired lease from any host', () => {
    expect(takeoverReason({ record, raw: '' }, { host: 'laptop', pid: 1 }, NOW_AFTER, alive)).toBe('its lease expired at 2026-11-25T16:46:20.000Z');
  });

  it('never takes over an unreadable record', () => {
    expect(takeoverReason({ raw: 'x' }, { host: 'ci-7', pid: 1 }, NOW_AFTER, dead)).toBeUndefined();
  });
});

describe('lock variable key', () => {
  it('is MAC_LOCK_ and the project upper-cased, - as _', () => {
    expect(lockVariableKey('shop-eu-2')).toBe('MAC_LOCK_SHOP_EU_2');
    expect(isLockVariable('MAC_LOCK_SHOP')).toBe(true);
    expect(isLockVariable('MAC_LOCKED')).toBe(false);
    expect(isLockVariable('API_URL')).toBe(false);
    expect(isLockVariable(undefined)).toBe(false);
  });

  it('is filtered out of the variable kind\'s list (plans, re-reads and imports list through it)', () => {
    const spec = kindSpec('EnvironmentVariable');
    expect(spec.accepts({ key: 'MAC_LOCK_SHOP', value: '{}' })).toBe(false);
    expect(spec.accepts({ key: 'API_URL', value: 'x' })).toBe(true);
  });
});
