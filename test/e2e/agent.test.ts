import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAC_BIN, cleanEnv } from '../helpers/cli.js';
import { apiOk, callApi, startServe, waitFor, type Served } from '../helpers/serve.js';
import { pgDatabase, pgQuery } from '../helpers/pg-url.js';

/**
 * Private locations run on `mac agent` processes (real processes: the built CLI, a local HTTP
 * target). Simulated minutes each scenario runs at --time-scale 60 (1 s each): the acceptance's 3
 * hours is MAC_AGENT_E2E_MINUTES=180; the suite's default keeps the file well under a minute.
 */
const MINUTES = Number(process.env.MAC_AGENT_E2E_MINUTES ?? 30);
/** Frequency (minutes) of the checks of the exactly-once scenarios. */
const FREQUENCY = 5;

interface Agent {
  pid: number;
  log(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function startAgent(s: Served, key: string, extra: string[] = []): Agent {
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
async function location(s: Served, slug: string): Promise<{ id: string; key: string; keyId: string }> {
  const created = await apiOk(s, 'POST', '/v1/private-locations', { name: slug, slugName: slug });
  return { id: created.id, key: created.keys[0].rawKey, keyId: created.keys[0].id };
}

async function urlChecks(s: Served, n: number, url: string, privateLocations: string[], frequency = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = await apiOk(s, 'POST', '/v1/checks/url', { name: `u${i}`, frequency, activated: true, runParallel: true, privateLocations, request: { url: `${url}/c${i}` } });
    ids.push(c.id);
  }
  return ids;
}

interface SessionRow {
  checkId: string;
  runLocations: string[];
  agentRun?: { dueAt: string; agentId: string | null; claims?: number };
}

/** The agents a location remembers, by id. */
async function agentIds(s: Served, locationId: string): Promise<Set<string>> {
  const l = await apiOk(s, 'GET', `/v1/private-locations/${locationId}`);
  return new Set(l.agents.map((a: { id: string }) => a.id));
}

/**
 * Per check and location: each due time is recorded once, by an agent of that location, or still
 * waiting in the queue (not lost: the agents stopped, or a loaded machine had not reached it yet),
 * never both; together they form one unbroken series one period apart (none missing). At least
 * `atLeast` are recorded (a floor of progress only: how many a loaded machine gets through varies). Sessions of these checks not run by an agent: none.
 */
function expectExactlyOnce(sessions: SessionRow[], queued: QueuedRow[], checks: string[], locations: Record<string, Set<string>>, periodMs: number, atLeast: number): void {
  const mine = sessions.filter((s) => checks.includes(s.checkId));
  expect(mine.filter((s) => !s.agentRun || s.agentRun.agentId === null)).toEqual([]);
  for (const checkId of checks) {
    for (const [slug, agents] of Object.entries(locations)) {
      const runs = mine.filter((s) => s.checkId === checkId && s.runLocations[0] === slug);
      expect(runs.every((s) => s.runLocations.length === 1 && agents.has(s.agentRun!.agentId!))).toBe(true);
      const due = runs.map((s) => Date.parse(s.agentRun!.dueAt));
      expect(new Set(due).size, `a due time of ${checkId} in ${slug} recorded twice`).toBe(due.length);
      const waiting = queued.filter((q) => q.checkId === checkId && q.location === slug).map((q) => Date.parse(q.dueAt));
      expect(waiting.filter((t) => due.includes(t)), `a due time of ${checkId} in ${slug} both recorded and queued`).toEqual([]);
      const all = [...due, ...waiting].sort((a, b) => a - b);
      const gaps = all.slice(1).map((t, i) => t - all[i]);
      expect(gaps.filter((g) => g !== periodMs), `due times of ${checkId} in ${slug} lost`).toEqual([]);
      expect(due.length).toBeGreaterThanOrEqual(atLeast);
    }
  }
}

interface QueuedRow {
  checkId: string;
  location: string;
  dueAt: string;
}

function sqliteRows<T>(file: string, kind: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT data FROM records WHERE kind = ?').all(kind) as Array<{ data: string }>).map((r) => JSON.parse(r.data) as T);
  } finally {
    db.close();
  }
}

function sqliteSessions(file: string): SessionRow[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT data FROM records WHERE kind = 'checkSessions'").all() as Array<{ data: string }>).map((r) => JSON.parse(r.data) as SessionRow);
  } finally {
    db.close();
  }
}

describe('mac agent runs the checks of private locations (--time-scale 60)', { timeout: 180_000 }, () => {
  let target: Server;
  let targetUrl = '';
  let slowMs = 0;
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mac-agent-'));
    target = createServer((req, res) => {
      if (slowMs > 0 && req.url?.startsWith('/slow')) setTimeout(() => res.end('ok'), slowMs);
      else res.end('ok');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => target.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it(`two agents on A, one on B, 20 checks over ${MINUTES} simulated minutes: every due run once per location, by an agent of it; the service ran none`, async () => {
    const state = join(dir, 'once.db');
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60']);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const b = await location(s, 'site-b');
      agents.push(startAgent(s, a.key), startAgent(s, a.key), startAgent(s, b.key));
      const checks = await urlChecks(s, 20, targetUrl, ['site-a', 'site-b'], FREQUENCY);
      await new Promise((r) => setTimeout(r, MINUTES * 1000));
      // The agents stop cleanly (SIGTERM: runs under way finish or go back), then the service.
      expect(await Promise.all(agents.map((x) => x.stop()))).toEqual([0, 0, 0]);
      const ofA = await agentIds(s, a.id);
      const ofB = await agentIds(s, b.id);
      expect(ofA.size).toBe(2);
      expect(ofB.size).toBe(1);
      const view = await apiOk(s, 'GET', `/v1/private-locations/${a.id}`);
      expect(view.keys[0]).not.toHaveProperty('keyHash');
      expect(view.keys[0]).not.toHaveProperty('rawKey');
      expect(view.agents[0]).toMatchObject({ version: expect.any(String), hostName: expect.any(String), lastContact: expect.any(String) });
      await s.stop();
      expectExactlyOnce(sqliteSessions(state), sqliteRows<QueuedRow>(state, 'privateLocationRuns'), checks, { 'site-a': ofA, 'site-b': ofB }, FREQUENCY * 1000, 1);
      for (const x of agents) expect(x.log()).toContain('stopped after');
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });

  it('kill -9 of one of two agents mid-run: its claimed runs are run by the other after the lease; none lost, none twice', async () => {
    const state = join(dir, 'kill.db');
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60', '--agent-lease', '8', '--agent-queue-timeout', '120']);
    // Runs of 2.5 s: at the kill, the runs due in the 1.5 s before the second agent started are
    // still under way on the first (they finished before it with 1.5 s runs on a quiet machine).
    slowMs = 2500;
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const first = startAgent(s, a.key, ['--concurrency', '16']);
      agents.push(first);
      await waitFor(async () => ((await agentIds(s, a.id)).size === 1 ? true : undefined));
      const [killedId] = await agentIds(s, a.id);
      const checks = await urlChecks(s, 3, `${targetUrl}/slow`, ['site-a']);
      // The first agent alone for a few runs: each lasts 2.5 s, so some are always under way.
      await new Promise((r) => setTimeout(r, 4000));
      const secondStart = Date.now();
      const second = startAgent(s, a.key, ['--concurrency', '16']);
      agents.push(second);
      await new Promise((r) => setTimeout(r, 1000));
      await first.stop('SIGKILL');
      // The lease (8 s) ends, the second agent takes the killed one's runs, and runs on.
      await new Promise((r) => setTimeout(r, 14000));
      expect(await second.stop()).toBe(0);
      const all = await agentIds(s, a.id);
      await s.stop();
      const sessions = sqliteSessions(state);
      expectExactlyOnce(sessions, sqliteRows<QueuedRow>(state, 'privateLocationRuns'), checks, { 'site-a': all }, 1000, 1);
      // Runs due while the first agent was alone were claimed by it: those the second recorded are
      // the ones it took over once the killed agent's lease ended.
      const taken = sessions.filter((x) => checks.includes(x.checkId) && x.agentRun!.agentId !== killedId && Date.parse(x.agentRun!.dueAt) < secondStart - 500);
      expect(taken.length).toBeGreaterThan(0);
    } finally {
      slowMs = 0;
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });

  it("keys: a deleted key stops its agent (exit 1, naming the masked key); a location's key fetches only its work and opens no API route", async () => {
    const s = await startServe(['--time-scale', '60', '--rate-limit', '0/60']);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const b = await location(s, 'site-b');
      await urlChecks(s, 2, targetUrl, ['site-b']);
      await new Promise((r) => setTimeout(r, 1500));
      const claim = (key: string, body: unknown = { agent: { id: 'test-agent-1', version: '0', hostName: 'h' }, max: 10, waitSeconds: 0 }) =>
        fetch(`${s.url}/agent/v1/claims`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // A's key: none of B's waiting runs. B's key: them.
      const ofA = await claim(a.key);
      expect(ofA.status).toBe(200);
      expect(((await ofA.json()) as any).runs).toEqual([]);
      const ofB = (await (await claim(b.key)).json()) as any;
      expect(ofB.runs.length).toBeGreaterThan(0);
      // A's key cannot post B's result, nor release B's claim.
      const run = ofB.runs[0];
      const attempt = { resultType: 'FINAL', attempts: 0, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, responseTime: 1, startedAt: new Date().toISOString(), stoppedAt: new Date().toISOString(), apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null, errorMessage: null, networkError: false };
      const post = (key: string, path: string, body: unknown) => fetch(`${s.url}/agent/v1/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post(a.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(409);
      expect(await (await post(a.key, 'releases', { runs: [{ runId: run.runId, token: run.token }] })).json()).toEqual({ released: 0 });
      expect((await post(b.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(200);
      // Recorded once: the same result again is refused.
      expect((await post(b.key, 'results', { runId: run.runId, token: run.token, agentId: 'test-agent-1', attempts: [attempt] })).status).toBe(409);
      // A location's key opens no API route; an API key opens no agent route; a bad body is a 400.
      for (const path of ['/v1/checks', '/v1/private-locations', `/v1/private-locations/${a.id}`, '/v1/accounts/me']) {
        expect((await callApi(s, 'GET', path, undefined, a.key)).status).toBe(401);
      }
      expect((await claim(s.apiKey)).status).toBe(401);
      expect((await claim(b.key, { agent: { id: 'x', version: '0', hostName: 'h' }, max: 1000, waitSeconds: 600 })).status).toBe(400);
      expect((await fetch(`${s.url}/agent/v2/claims`, { method: 'POST', headers: { authorization: `Bearer ${b.key}` } })).status).toBe(404);
      // The key deleted: the agent's next request is refused and it exits 1 naming the masked key.
      const agent = startAgent(s, b.key);
      agents.push(agent);
      await waitFor(async () => ((await agentIds(s, b.id)).size > 1 ? true : undefined));
      expect((await callApi(s, 'DELETE', `/v1/private-locations/${b.id}/keys/${b.keyId}`)).status).toBe(204);
      expect(await agent.exited).toBe(1);
      expect(agent.log()).toContain(`private-location key ...${b.key.slice(-4)}`);
      expect(agent.log()).not.toContain(b.key);
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });

  it('two instances on one PostgreSQL, agents at different instances: every claimed due time recorded once per location', async () => {
    const db = pgDatabase();
    const args = ['--time-scale', '60', '--database', db, '--rate-limit', '0/60'];
    const one = await startServe(args);
    const two = await startServe(args);
    const agents: Agent[] = [];
    try {
      const a = await location(one, 'site-a');
      const b = await location(one, 'site-b');
      agents.push(startAgent(one, a.key), startAgent(two, a.key), startAgent(two, b.key));
      const checks = await urlChecks(one, 10, targetUrl, ['site-a', 'site-b'], FREQUENCY);
      await new Promise((r) => setTimeout(r, MINUTES * 1000));
      expect(await Promise.all(agents.map((x) => x.stop()))).toEqual([0, 0, 0]);
      const ofA = await agentIds(two, a.id);
      const ofB = await agentIds(two, b.id);
      await Promise.all([one.stop(), two.stop()]);
      const sessions = (await pgQuery<{ data: string }>(db, "SELECT data FROM records WHERE kind = 'checkSessions'")).map((r) => JSON.parse(r.data) as SessionRow);
      const queued = (await pgQuery<{ data: string }>(db, "SELECT data FROM records WHERE kind = 'privateLocationRuns'")).map((r) => JSON.parse(r.data) as QueuedRow);
      expectExactlyOnce(sessions, queued, checks, { 'site-a': ofA, 'site-b': ofB }, FREQUENCY * 1000, 1);
      // Both instances scheduled: every due time one of them claimed is recorded in both locations.
      const claims = await pgQuery<{ check_id: string; due_ms: string; instance: string }>(db, 'SELECT check_id, due_ms, instance FROM run_claims');
      const mine = claims.filter((c) => checks.includes(c.check_id));
      expect(new Set(mine.map((c) => c.instance)).size).toBe(2);
      for (const slug of ['site-a', 'site-b']) {
        const recorded = new Set(sessions.filter((x) => x.runLocations[0] === slug && x.agentRun).map((x) => `${x.checkId}/${Date.parse(x.agentRun!.dueAt)}`));
        // The last due times may still have been queued when the agents stopped.
        const waiting = new Set(queued.filter((q) => q.location === slug).map((q) => `${q.checkId}/${Date.parse(q.dueAt)}`));
        const missing = mine.filter((c) => !recorded.has(`${c.check_id}/${c.due_ms}`) && !waiting.has(`${c.check_id}/${c.due_ms}`));
        expect(missing).toEqual([]);
      }
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await Promise.all([one.stop('SIGKILL'), two.stop('SIGKILL')]);
    }
  });
});
