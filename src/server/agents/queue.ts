/**
 * The work of private locations: each due run of a check in a private location is a queued run
 * (a record of AGENT_COLL.runs, indexed by location and by when it may be taken), which one agent
 * of that location claims by lease (Store.lease: one taker across instances on one database), runs
 * and reports. A claim whose agent went silent is taken again once its lease ends; a run no agent
 * claimed within the queue bound is recorded as not run (a result with an error, never a pass).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import type { StoredRecord } from '../store/store.js';
import { notExecuted, type AttemptResult } from '../../runner/index.js';
import type { CheckRecord } from '../runs/alerts.js';
import type { RunEngine } from '../runs/engine.js';
import { DatabaseUnavailable } from '../store/errors.js';
import { AGENT_COLL } from '../rundata/collections.js';

export { AGENT_COLL };

/** The lease of a claim when the service is not told otherwise (the reference's 300 s). */
export const DEFAULT_LEASE_MS = 300_000;
/** How long a run may wait unclaimed before it is recorded as not run (the reference's 6 minutes). */
export const DEFAULT_QUEUE_MS = 360_000;
/** Runs one claim request takes at most. */
export const MAX_CLAIM_BATCH = 50;
/** How long a claim request waits for work at most (long poll). */
export const MAX_WAIT_MS = 30_000;
/**
 * A result is taken only while its claim has at least this much lease left (or a fifth of a short
 * lease): past that, another agent may be about to take the run, and the late result is refused
 * (409) rather than risk recording the run twice.
 */
export const RESULT_MARGIN_MS = 2_000;
/** An agent counts as connected while its last contact is this recent. */
export const CONNECTED_MS = 2 * MAX_WAIT_MS + 10_000;
/** Agents not heard from for this long are forgotten. */
export const FORGET_AGENT_MS = 24 * 3600_000;
/** Agents a location remembers at most (the most recently seen). */
export const MAX_AGENTS_PER_LOCATION = 200;
/** Real ms between two looks for runs waiting past the bound, in every location. */
export const SWEEP_MS = 1_000;
/** Width of a metrics sample (real ms). */
export const SAMPLE_MS = 60_000;

/** A queued run. `availableAt`: when it may be taken (its due time, or the end of its claim's lease). */
export interface QueuedRun extends StoredRecord {
  id: string;
  locationId: string;
  location: string;
  checkId: string;
  dueAt: string;
  availableAt: string;
  /** When it was last given back by an agent (or queued). */
  waitingSince: string;
  /** Claims given back so far (releases). */
  claims: number;
  /**
   * The session of the due time when the check runs in other locations too (a joined session,
   * RunEngine.startSession): the run's result, or its not-run result, is recorded into it.
   */
  sessionId?: string;
}

/** A private location as stored. */
export interface LocationRecord extends StoredRecord {
  id: string;
  slugName: string;
  keys: Array<{ id: string; maskedKey: string; keyHash?: string }>;
}

/** An agent as a location remembers it. */
export interface AgentRecord extends StoredRecord {
  id: string;
  locationId: string;
  version: string;
  hostName: string;
  firstContact: string;
  lastContact: string;
}

/** One claimed run handed to an agent. */
export interface Claimed {
  run: QueuedRun;
  token: string;
  account: string;
  check: CheckRecord;
  leaseUntilMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Leases configured for a service. */
export interface QueueTimes {
  leaseMs: number;
  queueMs: number;
}

/**
 * The queue of one service instance: enqueues due runs (from the scheduler), hands them to agents,
 * takes their results, and records the runs no agent took. What it holds in memory is only for
 * this instance's waiting agents and metrics; the queue itself is in the store.
 */
export class AgentQueue {
  /** `locationId` events: a run of that location was queued or released on this instance. */
  readonly wake = new EventEmitter();
  /** Locations whose waiting agents are woken once the current turn of the event loop ends. */
  private readonly toWake = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Per location: runs recorded (by agents / as not run) on this instance in the current sample. */
  private counts = new Map<string, { account: string; done: number; notRun: number }>();
  private sampleStart = 0;
  private readonly instance = randomUUID().slice(0, 8);
  /** Slug -> location id per account, refreshed when private locations change. */
  private slugs = new Map<string, Map<string, string>>();
  private slugsVersion = -1;

  constructor(
    private readonly ctx: ServerContext,
    private readonly engine: RunEngine,
  ) {
    this.wake.setMaxListeners(0);
  }

  get times(): QueueTimes {
    return { leaseMs: this.ctx.options.agentLeaseMs, queueMs: this.ctx.options.agentQueueMs };
  }

  /** The id of an account's private location by slug, or undefined. */
  locationId(account: string, slug: string): string | undefined {
    const version = this.ctx.store.version(COLL.privateLocations);
    if (version !== this.slugsVersion) {
      this.slugs = new Map();
      this.slugsVersion = version;
    }
    let of = this.slugs.get(account);
    if (!of) {
      of = new Map(this.ctx.store.list<LocationRecord>(account, COLL.privateLocations).map((l) => [l.slugName, l.id]));
      this.slugs.set(account, of);
    }
    return of.get(slug);
  }

  /**
   * Queues the run of `check` due at `dueMs` in private location `slug` (deferred: on a shared
   * database it lands with the scheduler's claim of the due time, Store.claimRuns). A location
   * that no longer exists gets a not-run result at once. `sessionId`: the joined session of the due
   * time, which the run's result joins.
   */
  enqueue(account: string, check: CheckRecord, slug: string, dueMs: number, sessionId?: string): void {
    const locationId = this.locationId(account, slug);
    if (!locationId) {
      this.recordNotRun(account, check, slug, `private location "${slug}" does not exist`, undefined, iso(dueMs), sessionId);
      return;
    }
    const at = iso(dueMs);
    const run: QueuedRun = {
      id: `${check.id}/${locationId}/${Math.round(dueMs)}`,
      locationId,
      location: slug,
      checkId: check.id,
      dueAt: at,
      availableAt: at,
      waitingSince: at,
      claims: 0,
      ...(sessionId ? { sessionId } : {}),
    };
    const tx = this.ctx.store.begin(account);
    tx.put(AGENT_COLL.runs, run.id, run);
    tx.commitDeferred();
    // Agents of this instance waiting for the location look at once (a lease lands pending writes
    // of the queue first), once per location for all the runs the scheduler queued in one go.
    this.toWake.add(locationId);
    if (this.toWake.size === 1) {
      setImmediate(() => {
        const woken = [...this.toWake];
        this.toWake.clear();
        for (const id of woken) this.wake.emit(id);
      }).unref();
    }
  }

  /**
   * Claims at most `max` runs of a location for agent `agentId`: leased for the lease (one write
   * for the batch). The claim's token is the lease's end and the agent's id: any later claim or
   * extension of the run changes it, and only that agent may use it. Runs whose check is gone,
   * deactivated or no longer in this location are dropped.
   */
  claim(account: string, locationId: string, max: number, agentId: string): Claimed[] {
    const now = this.ctx.options.now();
    const until = now + this.times.leaseMs;
    const taken = this.ctx.store.lease(AGENT_COLL.runs, now, until, Math.min(max, MAX_CLAIM_BATCH), locationId);
    const out: Claimed[] = [];
    for (const { account: owner, id, record } of taken) {
      const run = record as QueuedRun;
      // The filter is on a location id (a UUID): a run of another account cannot match it.
      if (owner !== account) continue;
      const check = this.ctx.store.get<CheckRecord>(account, COLL.checks, run.checkId);
      if (!check || check.activated === false || !(check.privateLocations ?? []).includes(run.location)) {
        const tx = this.ctx.store.begin(account);
        tx.delete(AGENT_COLL.runs, id);
        tx.commit();
        // A joined session still finishes: the slot is recorded as not run.
        if (check && run.sessionId) this.recordNotRun(account, check, run.location, `not run: the check no longer runs in private location "${run.location}"`, run.locationId, run.dueAt, run.sessionId);
        continue;
      }
      out.push({ run, account, check, leaseUntilMs: until, token: claimToken(until, agentId) });
    }
    return out;
  }

  /**
   * The claimed run `runId` of a location if `token` (of agent `agentId`) still holds it with
   * enough lease left to record its result; otherwise why not ('gone': nobody holds it, another
   * claim does, or the claim is another agent's; 'late').
   */
  holder(account: string, locationId: string, runId: string, token: string, agentId: string): { run: QueuedRun } | { refused: 'gone' | 'late' } {
    const run = this.ctx.store.getLatest<QueuedRun>(account, AGENT_COLL.runs, runId);
    const claim = parseToken(token);
    if (!run || !claim || run.locationId !== locationId || Date.parse(run.availableAt) !== claim.until || claim.agentId !== agentId) return { refused: 'gone' };
    const left = claim.until - this.ctx.options.now();
    if (left < Math.min(RESULT_MARGIN_MS, this.times.leaseMs / 5)) return { refused: 'late' };
    return { run };
  }

  /**
   * Extends the claims of agent `agentId` on runs it is still running, by a whole lease from now:
   * each claim its token still holds with enough lease left (as for a result) gets a new token;
   * the others are left out (their lease ended, or ends too soon: another agent may take them).
   */
  extend(account: string, locationId: string, agentId: string, runs: Array<{ runId: string; token: string }>): Array<{ runId: string; token: string; leaseUntilMs: number }> {
    const until = this.ctx.options.now() + this.times.leaseMs;
    const out: Array<{ runId: string; token: string; leaseUntilMs: number }> = [];
    for (const { runId, token } of runs) {
      const held = this.holder(account, locationId, runId, token, agentId);
      if (!('run' in held)) continue;
      const tx = this.ctx.store.begin(account);
      tx.put(AGENT_COLL.runs, runId, { ...held.run, availableAt: iso(until) });
      tx.commit();
      out.push({ runId, token: claimToken(until, agentId), leaseUntilMs: until });
    }
    return out;
  }

  /**
   * Records the result of a claimed run: the run leaves the queue and the location's session is
   * written from the agent's attempts, as the engine records its own, in one group commit (both
   * land or neither: then the run is due again when the lease ends, and runs once more).
   */
  async complete(account: string, run: QueuedRun, agentId: string, attempts: AttemptResult[]): Promise<{ checkSessionId: string } | undefined> {
    if (run.sessionId) {
      // A joined session's part: the run leaves the queue in the session's write (both or neither).
      const check = this.ctx.store.get<CheckRecord>(account, COLL.checks, run.checkId);
      if (!check) {
        const tx = this.ctx.store.begin(account);
        tx.delete(AGENT_COLL.runs, run.id);
        tx.commit();
        return undefined;
      }
      this.count(account, run.locationId, 'done');
      return this.engine.recordAgentRun(account, check, run.location, attempts, { dueAt: run.dueAt, agentId, claims: run.claims }, { sessionId: run.sessionId, with: (tx) => tx.delete(AGENT_COLL.runs, run.id) });
    }
    const tx = this.ctx.store.begin(account);
    tx.delete(AGENT_COLL.runs, run.id);
    tx.commitDeferred();
    const check = this.ctx.store.get<CheckRecord>(account, COLL.checks, run.checkId);
    if (!check) return undefined;
    this.count(account, run.locationId, 'done');
    return this.engine.recordAgentRun(account, check, run.location, attempts, { dueAt: run.dueAt, agentId, claims: run.claims });
  }

  /** Gives claimed runs back to the location at once (an agent stopping before it ran them). */
  release(account: string, locationId: string, runs: Array<{ runId: string; token: string }>): number {
    const now = this.ctx.options.now();
    let released = 0;
    for (const { runId, token } of runs) {
      const run = this.ctx.store.getLatest<QueuedRun>(account, AGENT_COLL.runs, runId);
      const claim = parseToken(token);
      if (!run || !claim || run.locationId !== locationId || Date.parse(run.availableAt) !== claim.until) continue;
      const tx = this.ctx.store.begin(account);
      tx.put(AGENT_COLL.runs, runId, { ...run, availableAt: iso(now), waitingSince: iso(now), claims: run.claims + 1 });
      tx.commit();
      released++;
    }
    if (released > 0) this.wake.emit(locationId);
    return released;
  }

  /** Starts looking for runs left waiting past the bound, in every location, and sampling metrics. */
  start(): void {
    this.sweepTimer ??= setInterval(() => {
      try {
        this.expire(this.ctx.options.now());
        this.sample(this.ctx.options.now());
      } catch (err) {
        if (!(err instanceof DatabaseUnavailable)) process.stderr.write(`mac serve: private-location sweep failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }, SWEEP_MS);
    this.sweepTimer.unref();
  }

  stop(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Records as not run the runs (of one location, or all) that waited past the bound; returns how many. */
  expire(now: number, locationId?: string): number {
    const { queueMs } = this.times;
    let n = 0;
    for (;;) {
      // Leased for a minute: if this instance dies in between, another records them.
      const taken = this.ctx.store.lease(AGENT_COLL.runs, now - queueMs, now + 60_000, 100, locationId);
      for (const { account, id, record } of taken) {
        const run = record as QueuedRun;
        const tx = this.ctx.store.begin(account);
        tx.delete(AGENT_COLL.runs, id);
        tx.commit();
        const check = this.ctx.store.get<CheckRecord>(account, COLL.checks, run.checkId);
        // A joined session is finished whatever became of the check since: its other parts wait for this one.
        if (check && (run.sessionId || (check.activated !== false && (check.privateLocations ?? []).includes(run.location)))) {
          this.recordNotRun(account, check, run.location, notRunReason(run, queueMs), run.locationId, run.dueAt, run.sessionId);
        }
        n++;
      }
      if (taken.length < 100) return n;
    }
  }

  private recordNotRun(account: string, check: CheckRecord, slug: string, reason: string, locationId?: string, dueAt?: string, sessionId?: string): void {
    if (locationId) this.count(account, locationId, 'notRun');
    this.ctx.log.event('agents.not-run', { account, checkId: check.id, location: slug, reason, ...(sessionId ? { checkSessionId: sessionId } : {}) }, 'warn');
    // Without a session (a location that does not exist) the old behaviour: no due time is kept.
    const agentRun = dueAt && (sessionId || locationId) ? { dueAt, agentId: null } : undefined;
    void this.engine.recordAgentRun(account, check, slug, [notExecuted(reason)], agentRun, sessionId ? { sessionId, notRun: true } : undefined).catch((err: unknown) => {
      if (!(err instanceof DatabaseUnavailable)) process.stderr.write(`mac serve: not-run result not recorded: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }

  private count(account: string, locationId: string, what: 'done' | 'notRun'): void {
    const c = this.counts.get(locationId) ?? { account, done: 0, notRun: 0 };
    c[what]++;
    this.counts.set(locationId, c);
  }

  /**
   * At each sample boundary, per private location of every account: the runs waiting, how long
   * the oldest has waited, agents connected, and what this instance recorded during the sample.
   */
  private sample(now: number): void {
    const start = now - (now % SAMPLE_MS);
    if (this.sampleStart === 0) this.sampleStart = start;
    if (start === this.sampleStart) return;
    const at = this.sampleStart;
    this.sampleStart = start;
    const counts = this.counts;
    this.counts = new Map();
    for (const account of this.ctx.store.accountIds()) {
      const locations = this.ctx.store.list<LocationRecord>(account, COLL.privateLocations);
      if (locations.length === 0) continue;
      const tx = this.ctx.store.begin(account);
      for (const location of locations) {
        const state = this.state(account, location.id, now);
        const c = counts.get(location.id);
        tx.put(AGENT_COLL.samples, `${location.id}/${at}/${this.instance}`, {
          locationId: location.id,
          at: iso(at),
          queueSize: state.waiting,
          oldestMs: state.oldestMs,
          agents: state.connected.length,
          runs: c?.done ?? 0,
          notRun: c?.notRun ?? 0,
        });
      }
      tx.commitDeferred();
    }
  }

  /** A location now: runs waiting for an agent, how long the oldest has waited (ms), agents connected. */
  state(account: string, locationId: string, now: number): { waiting: number; claimed: number; oldestMs: number; connected: AgentRecord[] } {
    // Counted in the database (a long queue is never read whole); the oldest waiting run is the
    // last of the waiting ones newest first.
    const store = this.ctx.store;
    const waiting = store.countQuery(account, AGENT_COLL.runs, { checkId: locationId, toMs: now });
    const claimed = store.countQuery(account, AGENT_COLL.runs, { checkId: locationId, fromMs: now + 1 });
    const [oldestRun] = waiting > 0 ? store.query<QueuedRun>(account, AGENT_COLL.runs, { checkId: locationId, toMs: now, order: 'time-desc', offset: waiting - 1, limit: 1 }) : [];
    const oldest = oldestRun ? Date.parse(oldestRun.availableAt) : now;
    const connected = this.agents(account, locationId).filter((a) => now - Date.parse(a.lastContact) <= CONNECTED_MS);
    return { waiting, claimed, oldestMs: waiting > 0 ? now - oldest : 0, connected };
  }

  /** The agents a location remembers, most recently seen first. */
  agents(account: string, locationId: string): AgentRecord[] {
    return this.ctx.store
      .list<AgentRecord>(account, AGENT_COLL.agents)
      .filter((a) => a.locationId === locationId)
      .sort((a, b) => Date.parse(b.lastContact) - Date.parse(a.lastContact));
  }

  /**
   * Notes an agent's contact: written when it is new, changed, or last written over 5 s ago (a
   * long poll is a contact every few seconds at most); agents long silent, or past the bound of a
   * location, are forgotten in the same write.
   */
  seen(account: string, locationId: string, agent: { id: string; version: string; hostName: string }): void {
    const now = this.ctx.options.now();
    const key = `${locationId}/${agent.id}`;
    const known = this.ctx.store.get<AgentRecord>(account, AGENT_COLL.agents, key);
    if (known && known.version === agent.version && known.hostName === agent.hostName && now - Date.parse(known.lastContact) < 5_000) return;
    const tx = this.ctx.store.begin(account);
    tx.put(AGENT_COLL.agents, key, {
      id: agent.id,
      locationId,
      version: agent.version,
      hostName: agent.hostName,
      firstContact: known?.firstContact ?? iso(now),
      lastContact: iso(now),
    } satisfies AgentRecord);
    if (!known) {
      const all = this.agents(account, locationId);
      all.forEach((a, i) => {
        if (now - Date.parse(a.lastContact) > FORGET_AGENT_MS || i >= MAX_AGENTS_PER_LOCATION - 1) tx.delete(AGENT_COLL.agents, `${locationId}/${a.id}`);
      });
    }
    tx.commit();
  }

  /** Drops what a deleted location leaves: its queued runs (recorded as not run) and its agents. */
  forget(account: string, locationId: string): void {
    const tx = this.ctx.store.begin(account);
    for (const a of this.agents(account, locationId)) tx.delete(AGENT_COLL.agents, `${locationId}/${a.id}`);
    tx.commit();
  }
}

function notRunReason(run: QueuedRun, queueMs: number): string {
  return `not run: no agent of private location "${run.location}" ran this run within ${Math.round(queueMs / 1000)} s of when it was due or last claimed`;
}

/** A claim's token: the end of its lease (ms) and the id of the agent holding it. */
function claimToken(untilMs: number, agentId: string): string {
  return `${untilMs}.${agentId}`;
}

function parseToken(token: string): { until: number; agentId: string } | undefined {
  const m = /^(\d{1,16})\.([A-Za-z0-9-]{8,64})$/.exec(token);
  return m ? { until: Number(m[1]), agentId: m[2] } : undefined;
}
