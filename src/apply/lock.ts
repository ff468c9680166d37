import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, outcomeUnknown, type ApiClient } from '../api/index.js';
import { MacError, Refused } from '../errors.js';
import { isLockVariable, lockVariableKey } from '../schema/lock-key.js';
import type { ApplyAccount } from './apply.js';

export { isLockVariable, lockVariableKey };

/**
 * One apply at a time per project and account. The lock is the account variable
 * `MAC_LOCK_<PROJECT>`: POST /v1/variables answers 409 when the key exists (api-decisions §3.6),
 * which makes taking it atomic on the service. Its value (JSON) says who holds it and until when;
 * the holder renews the lease by PUT while it works and deletes the variable at the end.
 */

/** Who takes a lock: shown to whoever finds it taken. */
export interface LockHolder {
  user: string;
  host: string;
  pid: number;
  /** What runs under the lock, e.g. `mac apply`. */
  command: string;
}

/** The lock variable's value. */
export interface LockRecord extends LockHolder {
  v: 1;
  /** Random id of this holding: "still ours" means this token, not a pid that another host may share. */
  token: string;
  /** When it was taken (ISO). */
  started: string;
  /** End of the lease (ISO); renewed while the holder works. */
  expires: string;
}

/** The lock as found in the account: a record, or a value mac cannot read (written by hand). */
export type FoundLock = { record: LockRecord; raw: string } | { record?: undefined; raw: string };

/** Default lease: a holder that stops renewing loses the lock this long after its last renewal. */
export const DEFAULT_LEASE_MS = 60_000;
/** Default renewal period: three renewals per lease, so one lost request does not lose the lock. */
export const DEFAULT_RENEW_MS = 20_000;
/** Creates of the lock variable whose outcome was unknown before a run gives up (as for a resource's create). */
const LOCK_CREATE_ATTEMPTS = 4;

/** Options of taking a lock. */
export interface LockOptions {
  holder: LockHolder;
  /** How long to wait for a held lock; 0 refuses at once. */
  timeoutMs: number;
  leaseMs?: number;
  renewMs?: number;
  /**
   * After a takeover (delete, then create), how long to wait before reading the lock back: a
   * contender that read the same dead lock and deletes it late would have done so by then.
   */
  settleMs?: number;
  /** Whether a process of this host is alive (default: `process.kill(pid, 0)`). */
  isAlive?(pid: number): boolean;
  /** Told once when the lock is taken and we start waiting, and when a dead holder's lock is taken over. */
  onNotice?(message: string): void;
  now?(): number;
  sleep?(ms: number): Promise<void>;
  token?(): string;
}

/** A lock this process holds. */
export interface HeldLock {
  readonly key: string;
  readonly record: LockRecord;
  /** Why the lock is no longer ours (taken over, lease lapsed, released), or undefined while it is. */
  lost(): string | undefined;
  /** Runs one write only while the lock is held; refuses it otherwise. Tracks it so release waits for it. */
  guard<T>(write: () => Promise<T>): Promise<T>;
  /** Stops renewing, refuses further writes, waits (up to `drainMs`) for writes in flight, and deletes the lock if still ours. */
  release(drainMs?: number): Promise<void>;
}

/** The variable's value for a record. */
export function formatLockRecord(record: LockRecord): string {
  return JSON.stringify(record);
}

/** Reads a lock variable's value; undefined when it is not a record mac wrote. */
export function parseLockRecord(value: unknown): LockRecord | undefined {
  if (typeof value !== 'string') return undefined;
  let data: unknown;
  try {
    data = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const r = data as Record<string, unknown>;
  const str = (k: string) => typeof r[k] === 'string' && (r[k] as string).length > 0;
  if (r.v !== 1 || !str('user') || !str('host') || !str('command') || !str('token') || !str('started') || !str('expires')) return undefined;
  if (typeof r.pid !== 'number' || !Number.isInteger(r.pid) || r.pid <= 0) return undefined;
  if (Number.isNaN(Date.parse(r.started as string)) || Number.isNaN(Date.parse(r.expires as string))) return undefined;
  return { v: 1, user: r.user as string, host: r.host as string, pid: r.pid, command: r.command as string, token: r.token as string, started: r.started as string, expires: r.expires as string };
}

/** `alice@ci-7 pid 4242 since 2026-11-25T16:45:20.000Z (mac apply), lease until ...`: who holds a lock, for people. */
export function describeHolder(found: FoundLock): string {
  const r = found.record;
  if (!r) return `an unreadable lock record (${JSON.stringify(found.raw.slice(0, 80))})`;
  return `${r.user}@${r.host} pid ${r.pid} since ${r.started} (${r.command}), lease until ${r.expires}`;
}

/**
 * Why a found lock may be taken over, or undefined when its holder may still be working: its
 * holder is provably gone (same host, no such pid) or its lease has expired. An unreadable
 * record is never taken over (`mac unlock` removes it).
 */
export function takeoverReason(found: FoundLock, self: Pick<LockHolder, 'host' | 'pid'>, now: number, isAlive: (pid: number) => boolean): string | undefined {
  const r = found.record;
  if (!r) return undefined;
  // Our own pid on our host with another token is an earlier process that had it (pids are reused).
  if (r.host === self.host && (r.pid === self.pid || !isAlive(r.pid))) return `its holder (pid ${r.pid} on ${r.host}) is no longer running`;
  if (Date.parse(r.expires) <= now) return `its lease expired at ${r.expires}`;
  return undefined;
}

/** `process.kill(pid, 0)`: ESRCH = no such process; EPERM = it exists (another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The path of a project's lock variable. */
function lockPath(project: string): string {
  return `/v1/variables/${encodeURIComponent(lockVariableKey(project))}`;
}

/** Reads a project's lock; undefined when nobody holds it. */
export async function readLock(client: ApiClient, project: string): Promise<FoundLock | undefined> {
  try {
    const live = await client.get<{ value?: unknown }>(lockPath(project));
    const raw = typeof live.value === 'string' ? live.value : JSON.stringify(live.value ?? null);
    const record = parseLockRecord(live.value);
    return record ? { record, raw } : { raw };
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** Deletes a project's lock whoever holds it (`mac unlock`); returns what it removed, undefined when there was none. */
export async function removeLock(client: ApiClient, project: string): Promise<FoundLock | undefined> {
  const found = await readLock(client, project);
  if (!found) return undefined;
  try {
    await client.delete(lockPath(project));
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  return found;
}

/**
 * Takes the project's lock: creates the variable; when it exists, takes over a lock whose holder
 * is gone, or waits (polling with backoff) up to `timeoutMs`, then refuses naming the holder.
 */
export async function acquireLock(client: ApiClient, project: string, options: LockOptions): Promise<HeldLock> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const isAlive = options.isAlive ?? pidAlive;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const key = lockVariableKey(project);
  const path = lockPath(project);
  const deadline = now() + options.timeoutMs;
  const fresh = (): LockRecord => {
    const t = now();
    return { v: 1, ...options.holder, token: (options.token ?? randomUUID)(), started: new Date(t).toISOString(), expires: new Date(t + leaseMs).toISOString() };
  };

  // Creates whose outcome was unknown (a reset, a timeout, a 5xx: the client retries no POST), in
  // all: a flaky service fails one with some chance, and one failed create must not fail the run.
  let unknown = 0;
  /** One create; true when the variable is ours (also when the answer was lost but the write landed). */
  async function create(record: LockRecord): Promise<boolean> {
    try {
      await client.post('/v1/variables', { key, value: formatLockRecord(record), locked: false, secret: false });
      return true;
    } catch (err) {
      if (err instanceof ConflictError) return false;
      if (!outcomeUnknown(err)) throw err;
      if ((await readLock(client, project))?.record?.token === record.token) return true;
      // Not written (or written by someone else meanwhile): the caller's next turn tries again.
      if (++unknown >= LOCK_CREATE_ATTEMPTS) throw err;
      await sleep(250 * unknown);
      return false;
    }
  }

  /**
   * Takes over the lock record `stale` (found expired or left by a dead pid). Delete-then-create
   * alone lets a slow contender, still acting on its old read, delete the lock another contender
   * has just taken. So a takeover first claims the stale record itself: it creates the variable
   * `<lock key>:takeover:<stale token>` (409 for every other contender of the same record, and
   * no project's lock key holds a `:`), reads the lock back to check that it still holds the stale
   * record, and only then deletes and re-creates it. A claim older than a lease (its taker died
   * in between) is removed, and the next turn claims afresh.
   */
  async function takeOver(stale: LockRecord, record: LockRecord): Promise<boolean> {
    // The token is read from the account: hashed, so any token makes a valid key.
    const claimKey = `${key}:takeover:${createHash('sha256').update(stale.token).digest('hex').slice(0, 32)}`;
    const claimPath = `/v1/variables/${encodeURIComponent(claimKey)}`;
    try {
      await client.post('/v1/variables', { key: claimKey, value: formatLockRecord(record), locked: false, secret: false });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      const claim = parseLockRecord((await client.get<{ value?: unknown }>(claimPath).catch(() => undefined))?.value);
      if (claim && Date.parse(claim.expires) <= now()) await client.delete(claimPath).catch(() => undefined);
      return false;
    }
    try {
      if ((await readLock(client, project))?.record?.token !== stale.token) return false;
      try {
        await client.delete(path);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
      if (!(await create(record))) return false;
      await sleep(options.settleMs ?? 500);
      return (await readLock(client, project))?.record?.token === record.token;
    } finally {
      // The stale record is gone (or was never ours to take): its claim can go.
      await client.delete(claimPath).catch(() => undefined);
    }
  }

  let delay = 250;
  let announced = false;
  for (let turn = 0; ; turn++) {
    if (turn > 1_000) throw new MacError(`could not take the apply lock of project "${project}": it keeps appearing and disappearing`);
    const mine = fresh();
    if (await create(mine)) return holdLock(client, project, mine, options);
    const found = await readLock(client, project);
    if (!found) continue; // released between the create and the read: try again at once
    const reason = takeoverReason(found, options.holder, now(), isAlive);
    if (reason !== undefined) {
      const taker = fresh();
      if (found.record && (await takeOver(found.record, taker))) {
        options.onNotice?.(`took over the apply lock of project "${project}" from ${describeHolder(found)}: ${reason}`);
        return holdLock(client, project, taker, options);
      }
      // Another run is taking it over or took it first: its live lock is judged on the next turn.
      await sleep(100);
      continue;
    }
    const left = deadline - now();
    if (left <= 0) {
      throw new Refused(`the apply lock of project "${project}" is held by ${describeHolder(found)}; nothing was written`, {
        hint:
          options.timeoutMs > 0
            ? `it was not released within --lock-timeout ${Math.round(options.timeoutMs / 1000)}; if no apply is running, \`mac unlock\` removes it`
            : 'wait for it with --lock-timeout SECONDS; if no apply is running, `mac unlock` removes it',
      });
    }
    if (!announced) {
      options.onNotice?.(`waiting up to ${Math.ceil(left / 1000)} s for the apply lock of project "${project}", held by ${describeHolder(found)}`);
      announced = true;
    }
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 1.5, 3_000);
  }
}

/** A taken lock: renews its lease by PUT (after reading it back as ours) and guards writes. */
function holdLock(client: ApiClient, project: string, taken: LockRecord, options: LockOptions): HeldLock {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const path = lockPath(project);
  let record = taken;
  let lostReason: string | undefined;
  let renewing: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();

  async function renew(): Promise<void> {
    // A lease that has run out is never renewed: another run may take an expired lock at any
    // moment, and the API has no compare-and-set, so a renewal written after its read could put
    // this record back over the other run's. Checked before the read and again before the write.
    if (lost()) return;
    try {
      const found = await readLock(client, project);
      if (found?.record?.token !== record.token) {
        lostReason = found ? `the apply lock was taken by ${describeHolder(found)}` : 'the apply lock was removed (mac unlock?)';
        return;
      }
      if (lost()) return;
      const next = { ...record, expires: new Date(now() + leaseMs).toISOString() };
      await client.put(path, { key: lockVariableKey(project), value: formatLockRecord(next), locked: false, secret: false });
      record = next;
    } catch {
      // A failed renewal is retried at the next tick; the lease stays valid until it expires.
      if (Date.parse(record.expires) <= now()) lostReason = `the apply lock's lease expired at ${record.expires} and could not be renewed`;
    }
  }
  const timer = setInterval(() => {
    renewing ??= renew().finally(() => (renewing = undefined));
  }, options.renewMs ?? DEFAULT_RENEW_MS);
  timer.unref();

  function lost(): string | undefined {
    if (!lostReason && Date.parse(record.expires) <= now()) lostReason = `the apply lock's lease expired at ${record.expires} before it could be renewed`;
    return lostReason;
  }

  return {
    key: lockVariableKey(project),
    get record() {
      return record;
    },
    lost,
    async guard(write) {
      const reason = lost();
      if (reason) throw new MacError(`not written: ${reason}`, { hint: 'run mac apply again once the lock is free; the next plan starts from the live state' });
      const p = write();
      inFlight.add(p);
      try {
        return await p;
      } finally {
        inFlight.delete(p);
      }
    },
    async release(drainMs = 10_000) {
      clearInterval(timer);
      const wasLost = lost();
      lostReason ??= 'the apply lock was released';
      // Writes already sent still land; the lock stays until they have, so nobody plans around them.
      if (inFlight.size > 0) {
        let timeout: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => (timeout = setTimeout(r, drainMs)))]);
        clearTimeout(timeout);
      }
      await renewing;
      if (wasLost) return;
      try {
        const found = await readLock(client, project);
        if (found?.record?.token !== record.token) return;
        await client.delete(path);
      } catch (err) {
        if (err instanceof NotFoundError) return;
        // The work is done; a lock left behind expires with its lease (or `mac unlock` removes it).
        options.onNotice?.(`could not release the apply lock of project "${project}" (${err instanceof Error ? err.message : String(err)}); it expires at ${record.expires}, or \`mac unlock\` removes it`);
      }
    },
  };
}

/**
 * Runs `fn` holding the project's apply lock, and releases it afterwards, also when `fn` throws.
 * `fn` must send its writes through `lock.guard` (see `guardAccount`), so that none is sent once
 * the lock is lost.
 */
export async function withApplyLock<T>(client: ApiClient, project: string, options: LockOptions, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
  const lock = await acquireLock(client, project, options);
  try {
    return await fn(lock);
  } finally {
    await lock.release();
  }
}

/** The account with every write guarded by the lock. */
export function guardAccount(account: ApplyAccount, lock: HeldLock): ApplyAccount {
  const guarded: ApplyAccount = { ...account, perform: (change, input) => lock.guard(() => account.perform(change, input)) };
  const record = account.recordOwnership;
  if (record) guarded.recordOwnership = (outcomes) => lock.guard(() => record(outcomes));
  return guarded;
}
