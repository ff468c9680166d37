import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runApply, type ActionRun } from '../../src/action/run.js';
import { ApiClient } from '../../src/api/index.js';
import { acquireLock, parseLockRecord, readLock, withApplyLock, type LockHolder } from '../../src/apply/lock.js';
import { Refused } from '../../src/errors.js';
import { serviceAccounts } from '../helpers/accounts.js';
import { startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, callApi, type Served } from '../helpers/serve.js';
import { checksByTag, config, tcpChecks, writeProject } from '../e2e/apply-fixtures.js';

// The lock engine in process against one `mac serve` (in process too): renewal, loss, racing
// takeovers; and the Action's apply, which takes the same lock as `mac apply`. Each test works in
// an account of its own, with a client of its own, and the tests run at once.
const accounts = serviceAccounts('eng', 8);
let service: Served;
beforeAll(async () => {
  service = await startServeIn(['--no-runs', ...accounts.args]);
});
afterAll(async () => {
  await service?.stop();
});

const holder = (host: string, pid = 100): LockHolder => ({ user: 'u', host, pid, command: 'mac apply' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const KEY = 'MAC_LOCK_ENG';

/** A fresh account of the service, a client of it, and the client closed once `fn` has ended. */
async function inAccount(fn: (s: Served, c: ApiClient) => Promise<void>): Promise<void> {
  const s = accounts.next(service);
  const c = new ApiClient({ apiUrl: s.url, apiKey: s.apiKey });
  try {
    await fn(s, c);
  } finally {
    await c.close();
  }
}

describe.concurrent('apply lock engine', () => {
  it('renews its lease while held, and releases it at the end (also when the work throws)', () =>
    inAccount(async (_s, c) => {
      await expect(
        withApplyLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 30_000, renewMs: 250 }, async (lock) => {
          const first = lock.record.expires;
          // Renewed within a few of its 250 ms periods: read until the lease has moved on.
          let live = await readLock(c, 'eng');
          for (let i = 0; i < 200 && Date.parse(live?.record?.expires ?? first) <= Date.parse(first); i++) {
            await sleep(50);
            live = await readLock(c, 'eng');
          }
          expect(live?.record?.token).toBe(lock.record.token);
          expect(Date.parse(live!.record!.expires)).toBeGreaterThan(Date.parse(first));
          expect(lock.lost()).toBeUndefined();
          throw new Error('work failed');
        }),
      ).rejects.toThrow('work failed');
      expect(await readLock(c, 'eng')).toBeUndefined();
    }), 60_000);

  it('notices when the lock is taken from it: writes are refused and the thief\'s lock is left alone', () =>
    inAccount(async (s, c) => {
      const lock = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 5_000, renewMs: 200 });
      await expect(lock.guard(async () => 'written')).resolves.toBe('written');
      // Another holder's record replaces ours in one write (a delete then a create leaves a moment
      // without a lock, which a renewal falling in between reports as removed instead). A renewal
      // already between its read and its write puts our record back over it: then the thief
      // writes again, until a renewal has read its record.
      const thief = { v: 1, user: 'eve', host: 'b', pid: 7, command: 'mac apply', token: 'other', started: new Date().toISOString(), expires: new Date(Date.now() + 60_000).toISOString() };
      for (let i = 0; i < 200 && lock.lost() === undefined; i++) {
        if ((await readLock(c, 'eng'))?.record?.token !== 'other') await apiOk(s, 'PUT', `/v1/variables/${KEY}`, { value: JSON.stringify(thief) });
        await sleep(50);
      }
      expect(lock.lost()).toMatch(/taken by eve@b pid 7/);
      let wrote = false;
      await expect(lock.guard(async () => (wrote = true))).rejects.toThrow(/not written: the apply lock was taken by eve@b/);
      expect(wrote).toBe(false);
      await lock.release();
      expect((await readLock(c, 'eng'))?.record?.token).toBe('other');
    }), 60_000);

  it('never renews a lease that has run out: the expired record is left for another run to take', () =>
    inAccount(async (_s, c) => {
      // The first renewal comes at 500 ms, after the 300 ms lease: it must not write.
      const lock = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 300, renewMs: 500 });
      // Nothing here asks the lock whether it is lost before the renewals at 500 and 1,000 ms:
      // the renewal itself must see the lease ran out.
      const taken = lock.record.expires;
      await sleep(1_200);
      expect((await readLock(c, 'eng'))?.record?.expires).toBe(taken);
      expect(lock.lost()).toMatch(/lease expired/);
      await lock.release();
    }), 30_000);

  it('refuses writes once its lease lapsed without a renewal', () =>
    inAccount(async (_s, c) => {
      const lock = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0, leaseMs: 300, renewMs: 600_000 });
      await sleep(400);
      await expect(lock.guard(async () => 1)).rejects.toThrow(/lease expired/);
      await lock.release();
    }), 30_000);

  it('lets exactly one of several contenders take over an expired lock', () =>
    inAccount(async (s, c) => {
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
    }), 60_000);

  it('a contender acting on an old read of the expired lock never deletes the lock another has just taken', () =>
    inAccount(async (s, c) => {
      const expired = { v: 1, user: 'old', host: 'gone', pid: 9, command: 'mac apply', token: 'old', started: '2026-01-01T00:00:00.000Z', expires: '2026-01-01T00:01:00.000Z' };
      await apiOk(s, 'POST', '/v1/variables', { key: KEY, value: JSON.stringify(expired) });
      // The slow contender reads the expired record, then stalls before its next call until the
      // fast one holds the lock: every later call of its works on that old read.
      let fastHolds!: () => void;
      const held = new Promise<void>((r) => (fastHolds = r));
      let slowRead!: () => void;
      const readByTheSlow = new Promise<void>((r) => (slowRead = r));
      let reads = 0;
      const slow = new Proxy(c, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (typeof v !== 'function' || prop === 'close') return v;
          return async (...args: unknown[]) => {
            if (prop === 'get' && reads++ === 0) {
              const out = await v.apply(target, args);
              slowRead();
              await held;
              return out;
            }
            return v.apply(target, args);
          };
        },
      });
      const late = acquireLock(slow, 'eng', { holder: holder('slow'), timeoutMs: 0, leaseMs: 60_000, renewMs: 600_000, settleMs: 50 });
      late.catch(() => undefined);
      // The fast contender starts once the slow one has read the expired record.
      await readByTheSlow;
      const fast = await acquireLock(c, 'eng', { holder: holder('fast'), timeoutMs: 0, leaseMs: 60_000, renewMs: 600_000, settleMs: 50 });
      fastHolds();
      await expect(late).rejects.toBeInstanceOf(Refused);
      expect((await readLock(c, 'eng'))?.record?.token).toBe(fast.record.token);
      expect(fast.lost()).toBeUndefined();
      await fast.release();
      // No claim of the takeover is left behind.
      const vars = (await callApi(s, 'GET', '/v1/variables')).body as Array<{ key: string }>;
      expect(vars.filter((v) => v.key.startsWith(KEY))).toEqual([]);
    }), 60_000);

  it('waits for a held lock up to its timeout, then takes it once released', () =>
    inAccount(async (_s, c) => {
      const first = await acquireLock(c, 'eng', { holder: holder('a'), timeoutMs: 0 });
      const notices: string[] = [];
      const started = Date.now();
      setTimeout(() => void first.release(), 800);
      const second = await acquireLock(c, 'eng', { holder: holder('b'), timeoutMs: 10_000, onNotice: (m) => notices.push(m) });
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
      expect(notices[0]).toMatch(/^waiting up to 10 s for the apply lock of project "eng", held by u@a pid 100/);
      await second.release();
      await expect(acquireLock(c, 'eng', { holder: holder('c'), timeoutMs: 0 })).resolves.toBeDefined();
    }), 30_000);
});

// The Action's apply (on merge) takes the same lock as `mac apply`: two workflow runs, or a
// workflow and a terminal, never write at once.
describe.concurrent('Action apply and the apply lock', () => {
  it('waits while another apply holds the lock, writes nothing meanwhile, then applies and releases it', async () => {
    const served = accounts.next(service);
    const dir = writeProject({ 'mac.config.yaml': config('merge'), 'checks.yaml': tcpChecks(3) });
    const work = mkdtempSync(join(tmpdir(), 'mac-action-lock-'));
    const summary = join(work, 'summary.md');
    writeFileSync(summary, '');
    // The Action's summary and outputs files (the engine's tests beside it read no environment).
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    vi.stubEnv('GITHUB_OUTPUT', join(work, 'output'));
    writeFileSync(join(work, 'output'), '');
    // Another apply (another runner) holds the lock, until its lease ends (below).
    const other = { v: 1, user: 'octocat', host: 'runner-9', pid: 77, command: 'mac action apply', token: 't', started: new Date().toISOString(), expires: new Date(Date.now() + 600_000).toISOString() };
    await apiOk(served, 'POST', '/v1/variables', { key: 'MAC_LOCK_MERGE', value: JSON.stringify(other) });
    const expires = new Date(Date.now() - 1_000).toISOString();
    const waiting = /waiting up to \d+ s for the apply lock of project "merge", held by octocat@runner-9 pid 77/;

    const run: ActionRun = {
      dir,
      connection: { apiUrl: served.url, apiKey: served.apiKey },
      inputs: { dir: '.', comment: false, prune: false, maxDeletes: 10, typescript: 'allow', lockTimeout: 300 },
      typescript: true,
      target: { ctx: { eventName: 'push', owner: 'o', repo: 'r', headSha: 'abc', serverUrl: 'https://github.com', workspace: dir }, projectDir: '.', comment: false, planFile: join(work, 'plan.json') },
      env: {},
      runnerEnv: { GITHUB_ACTOR: 'hubot', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42' },
      lockTimeoutSeconds: 300,
    };
    const logged: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (logged.push(String(chunk)), true));
    try {
      const applying = runApply(run);
      applying.catch(() => undefined);
      // It found the lock held and waits for it...
      for (let i = 0; i < 1_200 && !waiting.test(logged.join('')); i++) await sleep(50);
      expect(logged.join('')).toMatch(waiting);
      // ...writing nothing meanwhile.
      expect((await checksByTag(served, 'merge')).size).toBe(0);
      // The other run stops renewing: its lease ends, and the waiting apply takes the lock over.
      await apiOk(served, 'PUT', '/v1/variables/MAC_LOCK_MERGE', { value: JSON.stringify({ ...other, expires }) });
      await applying;
    } finally {
      spy.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(logged.join('')).toContain(`its lease expired at ${expires}`);
    expect([...(await checksByTag(served, 'merge')).values()]).toEqual([1, 1, 1]);
    expect((await callApi(served, 'GET', '/v1/variables/MAC_LOCK_MERGE')).status).toBe(404);
  }, 60_000);
});
