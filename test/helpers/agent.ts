import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'libsql';
import { afterAll, beforeAll, expect } from 'vitest';
import { MAC_BIN, cleanEnv } from './cli.js';
import { apiOk, type Served } from './serve.js';

/**
 * What the e2e files of private locations share: `mac agent` processes (the built CLI), their
 * locations and checks, a local HTTP target, and the exactly-once assertion over recorded sessions
 * and queued runs. Simulated minutes each long scenario runs at --time-scale 60 (1 s each): the
 * acceptance's 3 hours is MAC_AGENT_E2E_MINUTES=180; the suite's default (20) leaves each
 * check a few due times, enough for every one to be recorded at least once on a loaded machine.
 */
export const MINUTES = Number(process.env.MAC_AGENT_E2E_MINUTES ?? 20);
/** Recorded runs per check and location after which a scenario of the suite's default length ends (MAC_AGENT_E2E_MINUTES unset). */
export const RECORDED = 3;

/**
 * Lets the agents of a scenario run: the whole MINUTES when MAC_AGENT_E2E_MINUTES asks for a
 * soak; else until every check has RECORDED runs recorded in each of `slugs` (a series with two
 * gaps for expectExactlyOnce to check), read every 250 ms from `sessions`: on a quiet machine
 * about half the MINUTES the fixed wait this replaces took. A loaded machine gets up to three
 * times MINUTES (it took over 20 s to record a first run of every check), then the assertions
 * judge what was recorded.
 */
export async function runScenario(sessions: () => SessionRow[] | Promise<SessionRow[]>, checks: string[], slugs: string[]): Promise<void> {
  const end = Date.now() + 3 * MINUTES * 1000;
  if (process.env.MAC_AGENT_E2E_MINUTES) return void (await delay(MINUTES * 1000));
  const enough = (rows: SessionRow[]) => {
    const runs = slotRuns(rows).filter((r) => r.run !== undefined);
    return checks.every((id) => slugs.every((slug) => runs.filter((r) => r.checkId === id && r.slot === slug).length >= RECORDED));
  };
  while (Date.now() < end && !enough(await sessions())) await delay(250);
}

/** Frequency (minutes) of the checks of the exactly-once scenarios. */
export const FREQUENCY = 5;
/** A test's timeout: three times its simulated minutes (runScenario) and two minutes for starting and stopping on a loaded machine. */
export const TIMEOUT_MS = 3 * MINUTES * 1000 + 120_000;

/** A local HTTP target: `ok` at once, or after `slowMs` on paths under /slow (`finishSlow` answers those under way at once). */
export async function startTarget(): Promise<{ url: string; setSlow(ms: number): void; slowStarted(): number[]; finishSlow(): void; close(): Promise<void> }> {
  let slowMs = 0;
  // The slow answers under way, each with when it began (ms since the epoch): two may begin in one millisecond.
  const slow = new Set<{ at: number; finish(): void }>();
  const target: Server = createServer((req, res) => {
    if (slowMs > 0 && req.url?.startsWith('/slow')) {
      const answer = {
        at: Date.now(),
        finish: () => {
          clearTimeout(timer);
          slow.delete(answer);
          res.end('ok');
        },
      };
      const timer = setTimeout(() => answer.finish(), slowMs);
      slow.add(answer);
    } else res.end('ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(target.address() as { port: number }).port}`,
    setSlow: (ms) => void (slowMs = ms),
    slowStarted: () => [...slow].map((x) => x.at),
    finishSlow: () => [...slow].forEach((x) => x.finish()),
    close: () => new Promise<void>((r) => target.close(() => r())),
  };
}

/** What a describe of agents shares: its target, and with `stateDir` a temporary folder for state files. */
export interface AgentFixture {
  target: Awaited<ReturnType<typeof startTarget>>;
  /** The temporary folder ('' without `stateDir`). */
  dir: string;
}

/** Starts the target (and makes the folder) before the describe's tests and removes both after them; call inside a describe. */
export function agentFixture(opts: { stateDir?: boolean } = {}): AgentFixture {
  const fx = { dir: '' } as AgentFixture;
  beforeAll(async () => {
    if (opts.stateDir) fx.dir = mkdtempSync(join(tmpdir(), 'mac-agent-'));
    fx.target = await startTarget();
  });
  afterAll(async () => {
    await fx.target.close();
    if (fx.dir) rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}

export interface Agent {
  pid: number;
  log(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startAgent(s: Served, key: string, extra: string[] = []): Agent {
  const child: ChildProcess = spawn(process.execPath, [MAC_BIN, 'agent', '--api-url', s.url, '--concurrency', '8', ...extra], {
    env: cleanEnv({ MAC_AGENT_KEY: key }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    pid: child.pid!,
    log: () => out,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      return exited;
    },
  };
}

/** A private location with its first key. */
export async function location(s: Served, slug: string): Promise<{ id: string; key: string; keyId: string }> {
  const created = await apiOk(s, 'POST', '/v1/private-locations', { name: slug, slugName: slug });
  return { id: created.id, key: created.keys[0].rawKey, keyId: created.keys[0].id };
}

export async function urlChecks(s: Served, n: number, url: string, privateLocations: string[], frequency = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = await apiOk(s, 'POST', '/v1/checks/url', { name: `u${i}`, frequency, activated: true, runParallel: true, privateLocations, request: { url: `${url}/c${i}` } });
    ids.push(c.id);
  }
  return ids;
}

export interface SessionRow {
  checkSessionId?: string;
  checkId: string;
  runLocations: string[];
  agentRun?: { dueAt: string; agentId: string | null; claims?: number };
  /** A session of several locations, some private (joined): per private slot, its run. */
  privateSlots?: string[];
  agentRuns?: Record<string, { dueAt: string; agentId: string | null; claims?: number }>;
  notRunLocations?: string[];
  completedAt?: string | null;
  finishedLocations?: string[];
  resultIds?: string[];
  status?: string;
}

/** One private location's run as recorded: its session, and the slot's due time and agent (undefined: the slot is not finished). */
export interface SlotRun {
  session: SessionRow;
  checkId: string;
  slot: string;
  run?: { dueAt: string; agentId: string | null };
}

/** The private slots' runs of recorded sessions: one per session of one location, one per private slot of a joined session. */
export function slotRuns(sessions: SessionRow[]): SlotRun[] {
  return sessions.flatMap((session) => {
    if (session.privateSlots) return session.privateSlots.map((slot) => ({ session, checkId: session.checkId, slot, run: session.agentRuns?.[slot] }));
    return session.agentRun ? [{ session, checkId: session.checkId, slot: session.runLocations[0], run: session.agentRun }] : [];
  });
}

/** The agents a location remembers, by id. */
export async function agentIds(s: Served, locationId: string): Promise<Set<string>> {
  const l = await apiOk(s, 'GET', `/v1/private-locations/${locationId}`);
  return new Set(l.agents.map((a: { id: string }) => a.id));
}

/**
 * Per check and location: each due time is recorded once, by an agent of that location, or still
 * waiting in the queue (not lost: the agents stopped, or a loaded machine had not reached it yet),
 * never both; together they form one series one period apart, with no due time missing but those
 * the scheduler passed over and counted (`shed`: mac_runs_shed_total of the service, read at
 * `shed.atMs`, which counts the due times before then; a check's due times are shed for all its
 * locations at once, so each counts once per check). At least `atLeast`
 * are recorded (a floor of progress only: how many a loaded machine gets through varies).
 * Sessions of these checks not run by an agent: none.
 */
export function expectExactlyOnce(sessions: SessionRow[], queued: QueuedRow[], checks: string[], locations: Record<string, Set<string>>, periodMs: number, atLeast: number, shed?: { count: number; atMs: number }): void {
  const mine = sessions.filter((s) => checks.includes(s.checkId));
  // Every session of these checks is of private locations only: recorded by agents, never run here.
  expect(mine.filter((s) => !s.agentRun && !s.privateSlots)).toEqual([]);
  expect(mine.filter((s) => s.privateSlots && s.privateSlots.length !== s.runLocations.length)).toEqual([]);
  // A joined session waits for its last slot (the agents stopped before running it): only its finished slots count.
  const runs = slotRuns(mine).filter((r) => r.run !== undefined);
  expect(runs.filter((r) => r.run!.agentId === null)).toEqual([]);
  // Due times missing, per check (the most of its locations'): at most what the scheduler shed.
  let missing = 0;
  for (const checkId of checks) {
    let missingOfCheck = 0;
    for (const [slug, agents] of Object.entries(locations)) {
      const ofSlot = runs.filter((r) => r.checkId === checkId && r.slot === slug);
      expect(ofSlot.every((r) => agents.has(r.run!.agentId!))).toBe(true);
      const due = ofSlot.map((r) => Date.parse(r.run!.dueAt));
      expect(new Set(due).size, `a due time of ${checkId} in ${slug} recorded twice`).toBe(due.length);
      const waiting = queued.filter((q) => q.checkId === checkId && q.location === slug).map((q) => Date.parse(q.dueAt));
      expect(waiting.filter((t) => due.includes(t)), `a due time of ${checkId} in ${slug} both recorded and queued`).toEqual([]);
      const all = [...due, ...waiting].sort((a, b) => a - b);
      const gaps = all.slice(1).map((t, i) => t - all[i]);
      if (!shed) expect(gaps.filter((g) => g !== periodMs), `due times of ${checkId} in ${slug} lost`).toEqual([]);
      else {
        expect(gaps.filter((g) => g % periodMs !== 0 || g === 0), `due times of ${checkId} in ${slug} off the grid`).toEqual([]);
        // Passed over before the count was read (the scheduler ran on until the stop): a due time
        // reached after a gap was planned within a period of it, and the gap counted then.
        const counted = all.filter((t) => t + periodMs <= shed.atMs);
        missingOfCheck = Math.max(missingOfCheck, counted.slice(1).reduce((n, t, i) => n + (t - counted[i]) / periodMs - 1, 0));
      }
      expect(due.length).toBeGreaterThanOrEqual(atLeast);
    }
    missing += missingOfCheck;
  }
  if (shed) expect(missing, `due times missing beyond the ${shed.count} the scheduler passed over`).toBeLessThanOrEqual(shed.count);
}

/** The runs a service passed over (mac_runs_shed_total), read from its metrics (`--metrics-port`). */
export async function runsShed(s: Served): Promise<number> {
  const url = /metrics: (http:\/\/\S+)/.exec(s.log())?.[1];
  if (!url) throw new Error('the service was started without --metrics-port');
  const text = await (await fetch(url)).text();
  const m = /^mac_runs_shed_total (\d+)/m.exec(text);
  if (!m) throw new Error('mac_runs_shed_total is not in the metrics');
  return Number(m[1]);
}

export interface QueuedRow {
  checkId: string;
  location: string;
  dueAt: string;
}

export function sqliteRows<T>(file: string, kind: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT data FROM records WHERE kind = ?').all(kind) as Array<{ data: string }>).map((r) => JSON.parse(r.data) as T);
  } finally {
    db.close();
  }
}

export function sqliteSessions(file: string): SessionRow[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT data FROM records WHERE kind = 'checkSessions'").all() as Array<{ data: string }>).map((r) => JSON.parse(r.data) as SessionRow);
  } finally {
    db.close();
  }
}
