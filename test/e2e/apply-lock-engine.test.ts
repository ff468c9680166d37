import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/index.js';
import { acquireLock, parseLockRecord, readLock, withApplyLock, type LockHolder } from '../../src/apply/lock.js';
import { Refused } from '../../src/errors.js';
import { apiOk, callApi, startServe, type Served } from '../helpers/serve.js';

// The lock engine in process against a real `mac serve`: renewal, loss, and racing takeovers.
let served: Served | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await served?.stop();
  served = client = undefined;
});

const holder = (host: string, pid = 100): LockHolder => ({ user: 'u', host, pid, command: 'mac apply' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const KEY = 'MAC_LOCK_ENG';

async function setUp(): Promise<{ s: Served; c: ApiClient }> {
  served = await startServe(['--no-runs']);
  client = new ApiClient({ apiUrl: served.url, apiKey: served.apiKey });
  return { s: served, c: client };
}

describe('apply lock engine', () => {
  it('renews its lease while held, and releases it at the end (also when the work throws)', async () => {
    const { c } = await setUp();
    await expect(
      withApplyLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 2_000, renewMs: 250 }, async (lock) => {
        const first = lock.record.expires;
        await sleep(1_200);
        const live = await readLock(c, 'eng');
        expect(live?.record?.token).toBe(lock.record.token);
        expect(Date.parse(live!.record!.expires)).toBeGreaterThan(Date.parse(first));
        expect(lock.lost()).toBeUndefined();
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await readLock(c, 'eng')).toBeUndefined();
  }, 60_000);

  it('notices when the lock is taken from it: writes are refused and the thief\'s lock is left alone', async () => {
    const { s, c } = await setUp();
    const lock = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 5_000, renewMs: 200 });
    await expect(lock.guard(async () => 'written')).resolves.toBe('written');
    await apiOk(s, 'DELETE', `/v1/variables/${KEY}`);
    const thief = { v: 1, user: 'eve', host: 'b', pid: 7, command: 'mac apply', token: 'other', started: new Date().toISOString(), expires: new Date(Date.now() + 60_000).toISOString() };
    await apiOk(s, 'POST', '/v1/variables', { key: KEY, value: JSON.stringify(thief) });
    for (let i = 0; i < 50 && lock.lost() === undefined; i++) await sleep(100);
    expect(lock.lost()).toMatch(/taken by eve@b pid 7/);
    let wrote = false;
    await expect(lock.guard(async () => (wrote = true))).rejects.toThrow(/not written: the apply lock was taken by eve@b/);
    expect(wrote).toBe(false);
    await lock.release();
    expect((await readLock(c, 'eng'))?.record?.token).toBe('other');
  }, 60_000);

  it('refuses writes once its lease lapsed without a renewal', async () => {
    const { c } = await setUp();
    const lock = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 300, renewMs: 600_000 });
    await sleep(400);
    await expect(lock.guard(async () => 1)).rejects.toThrow(/lease expired/);
    await lock.release();
  }, 30_000);

  it('lets exactly one of several contenders take over an expired lock', async () => {
    const { s, c } = await setUp();
    const expired = { v: 1, user: 'old', host: 'gone', pid: 9, command: 'mac apply', token: 'old', started: '2026-01-01T00:00:00.000Z', expires: '2026-01-01T00:01:00.000Z' };
    await apiOk(s, 'POST', '/v1/variables', { key: KEY, value: JSON.stringify(expired) });
    const results = await Promise.allSettled(
      ['h1', 'h2', 'h3', 'h4', 'h5'].map((h) => acquireLock(c, 'eng', { holder: holder(h), timeoutMs: 0, leaseMs: 60_000, renewMs: 600_000, settleMs: 300 })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Refused);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>>).value;
    const live = await callApi(s, 'GET', `/v1/variables/${KEY}`);
    expect(parseLockRecord(live.body.value)?.token).toBe(winner.record.token);
    await winner.release();
    expect((await callApi(s, 'GET', `/v1/variables/${KEY}`)).status).toBe(404);
  }, 60_000);

  it('a contender acting on an old read of the expired lock never deletes the lock another has just taken', async () => {
    const { s, c } = await setUp();
    const expired = { v: 1, user: 'old', host: 'gone', pid: 9, command: 'mac apply', token: 'old', started: '2026-01-01T00:00:00.000Z', expires: '2026-01-01T00:01:00.000Z' };
    await apiOk(s, 'POST', '/v1/variables', { key: KEY, value: JSON.stringify(expired) });
    // The slow contender reads the expired record, then stalls before its next call until the
    // fast one holds the lock: every later call of its works on that old read.
    let fastHolds!: () => void;
    const held = new Promise<void>((r) => (fastHolds = r));
    let reads = 0;
    const slow = new Proxy(c, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function' || prop === 'close') return v;
        return async (...args: unknown[]) => {
          if (prop === 'get' && reads++ === 0) {
            const out = await v.apply(target, args);
            await held;
            return out;
          }
          return v.apply(target, args);
        };
      },
    });
    const late = acquireLock(slow, 'eng', { holder: holder('slow'), timeoutMs: 0, leaseMs: 60_000, renewMs: 600_000, settleMs: 50 });
    late.catch(() => undefined);
    await sleep(200);
    const fast = await acquireLock(c, 'eng', { holder: holder('fast'), timeoutMs: 0, leaseMs: 60_000, renewMs: 600_000, settleMs: 50 });
    fastHolds();
    await expect(late).rejects.toBeInstanceOf(Refused);
    expect((await readLock(c, 'eng'))?.record?.token).toBe(fast.record.token);
    expect(fast.lost()).toBeUndefined();
    await fast.release();
    // No claim of the takeover is left behind.
    const vars = (await callApi(s, 'GET', '/v1/variables')).body as Array<{ key: string }>;
    expect(vars.filter((v) => v.key.startsWith(KEY))).toEqual([]);
  }, 60_000);

  it('waits for a held lock up to its timeout, then takes it once released', async () => {
    const { c } = await setUp();
    const first = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0 });
    const notices: string[] = [];
    const started = Date.now();
    setTimeout(() => void first.release(), 800);
    const second = await acquireLock(c, 'eng', { holder: holder('b'), timeoutMs: 10_000, onNotice: (m) => notices.push(m) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(notices[0]).toMatch(/^waiting up to 10 s for the apply lock of project "eng", held by u@a pid 100/);
    await second.release();
    await expect(acquireLock(c, 'eng', { holder: holder('c'), timeoutMs: 0 })).resolves.toBeDefined();
  }, 30_000);
});
