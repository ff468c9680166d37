import { describe, expect, it } from 'vitest';
import { createServer } from '../../../src/server/server.js';
import { runsOf } from '../../../src/server/runs/runs.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COLL } from '../../../src/server/kinds.js';
import type { CheckRecord } from '../../../src/server/runs/alerts.js';
import { RUN_COLL } from '../../../src/server/rundata/collections.js';
import { AGENT_COLL, type QueuedRun } from '../../../src/server/agents/queue.js';
import type { StoredSession } from '../../../src/server/rundata/types.js';

const AGENT = 'agent-0001';
const H = { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' };

/** A service in process with a clock of its own, its scheduler not started. */
async function service() {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const server = createServer({ runs: false, agentLeaseMs: 10_000, agentQueueMs: 60_000, now: () => clock });
  const json = async (path: string, method = 'GET', body?: unknown, headers: Record<string, string> = H) => {
    const res = await server.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const loc = (await json('/v1/private-locations', 'POST', { name: 'A', slugName: 'site-a' })).body;
  const check = (await json('/v1/checks/url', 'POST', { name: 'u', activated: true, privateLocations: ['site-a'], request: { url: 'http://127.0.0.1:9/' } })).body;
  const record = server.ctx.store.get<CheckRecord>('dev', COLL.checks, check.id)!;
  return { server, json, loc, check, record, key: loc.keys[0].rawKey as string, advance: (ms: number) => (clock += ms), now: () => clock };
}

const attempt = (at: string) => ({ resultType: 'FINAL', attempts: 0, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, responseTime: 3, startedAt: at, stoppedAt: at, apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null, errorMessage: null, networkError: false });

describe('the queue of private locations', () => {
  it('a run is claimed by one agent at a time; after the lease another takes it; a result lands once', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    agents.enqueue('dev', t.record, 'site-a', t.now());
    t.server.ctx.store.flush();
    const first = agents.claim('dev', t.loc.id, 10, AGENT);
    expect(first).toHaveLength(1);
    expect(agents.claim('dev', t.loc.id, 10, AGENT)).toHaveLength(0);
    t.advance(10_001);
    const second = agents.claim('dev', t.loc.id, 10, AGENT);
    expect(second).toHaveLength(1);
    // The first claim's token no longer holds the run; the second's does.
    expect(agents.holder('dev', t.loc.id, first[0].run.id, first[0].token, AGENT)).toEqual({ refused: 'gone' });
    const held = agents.holder('dev', t.loc.id, second[0].run.id, second[0].token, AGENT);
    expect('run' in held).toBe(true);
    const claimsBody = { runId: second[0].run.id, token: second[0].token, agentId: 'agent-0001', attempts: [attempt(new Date(t.now()).toISOString())] };
    const auth = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    expect((await t.json('/agent/v1/results', 'POST', claimsBody, auth)).status).toBe(200);
    expect((await t.json('/agent/v1/results', 'POST', claimsBody, auth)).status).toBe(409);
    const results = (await t.json(`/v1/check-results/${t.check.id}`)).body;
    expect(results.map((r: any) => [r.runLocation, r.resultType, r.hasErrors])).toEqual([['site-a', 'FINAL', false]]);
    await t.server.close();
  });

  it('a result too close to the end of its lease is refused (409)', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    agents.enqueue('dev', t.record, 'site-a', t.now());
    const [c] = agents.claim('dev', t.loc.id, 1, AGENT);
    t.advance(9_500);
    expect(agents.holder('dev', t.loc.id, c.run.id, c.token, AGENT)).toEqual({ refused: 'late' });
    await t.server.close();
  });

  it('a run no agent takes within the bound is recorded as not run, an error, never a pass', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    agents.enqueue('dev', t.record, 'site-a', t.now());
    t.advance(30_000);
    expect(agents.expire(t.now())).toBe(0);
    t.advance(31_000);
    expect(agents.expire(t.now())).toBe(1);
    await runsOf(t.server.ctx).engine.idle();
    // The not-run result is stamped with the machine's time, not the service's clock.
    const real = Math.floor(Date.now() / 1000);
    t.advance(Date.now() - t.now());
    const results = (await t.json(`/v1/check-results/${t.check.id}?from=${real - 600}&to=${real + 600}`)).body;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ runLocation: 'site-a', resultType: 'FINAL', hasErrors: true });
    expect(JSON.stringify(results[0])).toContain('not run: no agent of private location \\"site-a\\"');
    expect(agents.claim('dev', t.loc.id, 10, AGENT)).toHaveLength(0);
    await t.server.close();
  });

  it("a given-back run is claimable at once; another location's key cannot give it back", async () => {
    const t = await service();
    const other = (await t.json('/v1/private-locations', 'POST', { name: 'B', slugName: 'site-b' })).body;
    const { agents } = runsOf(t.server.ctx);
    agents.enqueue('dev', t.record, 'site-a', t.now());
    const [c] = agents.claim('dev', t.loc.id, 1, AGENT);
    expect(agents.release('dev', other.id, [{ runId: c.run.id, token: c.token }])).toBe(0);
    expect(agents.claim('dev', t.loc.id, 1, AGENT)).toHaveLength(0);
    expect(agents.release('dev', t.loc.id, [{ runId: c.run.id, token: c.token }])).toBe(1);
    expect(agents.claim('dev', t.loc.id, 1, AGENT)).toHaveLength(1);
    await t.server.close();
  });

  it('an agent running a long check extends its claim: no other agent takes the run; a silent agent loses it', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    const auth = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    agents.enqueue('dev', t.record, 'site-a', t.now());
    const [c] = agents.claim('dev', t.loc.id, 1, AGENT);
    // Half the lease gone: extended by a whole lease from now, with a new token.
    t.advance(5_000);
    const extended = await t.json('/agent/v1/leases', 'POST', { agentId: AGENT, runs: [{ runId: c.run.id, token: c.token }] }, auth);
    expect(extended.status).toBe(200);
    expect(extended.body.runs).toHaveLength(1);
    const next = extended.body.runs[0];
    expect(Date.parse(next.leaseUntil)).toBe(t.now() + 10_000);
    // Past the first lease, no other agent takes it; the old token no longer holds it.
    t.advance(6_000);
    expect(agents.claim('dev', t.loc.id, 1, 'agent-0002')).toHaveLength(0);
    expect(agents.holder('dev', t.loc.id, c.run.id, c.token, AGENT)).toEqual({ refused: 'gone' });
    // Another agent cannot extend it (the claim is not its own), nor can a stale token.
    expect((await t.json('/agent/v1/leases', 'POST', { agentId: 'agent-0002', runs: [{ runId: c.run.id, token: next.token }] }, auth)).body.runs).toEqual([]);
    expect((await t.json('/agent/v1/leases', 'POST', { agentId: AGENT, runs: [{ runId: c.run.id, token: c.token }] }, auth)).body.runs).toEqual([]);
    // The agent records its result with the new token.
    const result = { runId: c.run.id, token: next.token, agentId: AGENT, attempts: [attempt(new Date(t.now()).toISOString())] };
    expect((await t.json('/agent/v1/results', 'POST', result, auth)).status).toBe(200);
    // A silent agent: its claim ends and another agent takes the run.
    agents.enqueue('dev', t.record, 'site-a', t.now() + 1);
    t.advance(2);
    const [silent] = agents.claim('dev', t.loc.id, 1, AGENT);
    expect(silent).toBeDefined();
    t.advance(10_001);
    expect(agents.claim('dev', t.loc.id, 1, 'agent-0002')).toHaveLength(1);
    await t.server.close();
  });

  it('results are validated strictly: only the claiming agent, times within the claim, bounded objects, no unknown fields', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    const auth = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    agents.enqueue('dev', t.record, 'site-a', t.now());
    const [c] = agents.claim('dev', t.loc.id, 1, AGENT);
    const now = new Date(t.now()).toISOString();
    const post = (body: unknown) => t.json('/agent/v1/results', 'POST', body, auth);
    const base = { runId: c.run.id, token: c.token, agentId: AGENT };
    // Another agent of the same location, with the token it did not get: 409.
    expect((await post({ ...base, agentId: 'agent-0002', attempts: [attempt(now)] })).status).toBe(409);
    // Times outside the claim (a day before the run was due, or tomorrow), stopped before started.
    const dayAgo = new Date(t.now() - 86_400_000).toISOString();
    const tomorrow = new Date(t.now() + 86_400_000).toISOString();
    for (const a of [attempt(dayAgo), attempt(tomorrow), { ...attempt(now), stoppedAt: new Date(t.now() - 60_000).toISOString() }]) {
      const r = await post({ ...base, attempts: [a] });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(/startedAt|stoppedAt/);
    }
    // Attempt numbers out of order, a FINAL attempt before the last, unknown fields, wrong types.
    expect((await post({ ...base, attempts: [{ ...attempt(now), resultType: 'ATTEMPT' }, { ...attempt(now), attempts: 0 }] })).status).toBe(400);
    expect((await post({ ...base, attempts: [attempt(now), { ...attempt(now), attempts: 1 }] })).status).toBe(400);
    expect((await post({ ...base, attempts: [{ ...attempt(now), runLocation: 'site-b' }] })).status).toBe(400);
    expect((await post({ ...base, accountId: 'other', attempts: [attempt(now)] })).status).toBe(400);
    expect((await post({ ...base, attempts: [{ ...attempt(now), responseTime: '3' }] })).status).toBe(400);
    // A result object over the bound (within the body's bound): 400 naming it.
    const big = await post({ ...base, attempts: [{ ...attempt(now), apiCheckResult: { body: 'x'.repeat(1024 * 1024 + 1) } }] });
    expect(big.status).toBe(400);
    expect(JSON.stringify(big.body)).toContain('apiCheckResult');
    // Nothing of that was recorded; the valid result is.
    expect((await post({ ...base, attempts: [attempt(now)] })).status).toBe(200);
    const results = (await t.json(`/v1/check-results/${t.check.id}`)).body;
    expect(results).toHaveLength(1);
    await t.server.close();
  });

  it('a result batch records each result on its own: the valid one lands, a stale claim answers 409, an invalid one 400, in order', async () => {
    const t = await service();
    const { agents } = runsOf(t.server.ctx);
    const other = (await t.json('/v1/checks/url', 'POST', { name: 'v', activated: true, privateLocations: ['site-a'], request: { url: 'http://127.0.0.1:9/' } })).body;
    const third = (await t.json('/v1/checks/url', 'POST', { name: 'w', activated: true, privateLocations: ['site-a'], request: { url: 'http://127.0.0.1:9/' } })).body;
    for (const id of [t.check.id, other.id, third.id]) agents.enqueue('dev', t.server.ctx.store.get<CheckRecord>('dev', COLL.checks, id)!, 'site-a', t.now());
    const auth = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    const claimed = (await t.json('/agent/v1/claims', 'POST', { agent: { id: AGENT, version: 't', hostName: 'h' }, max: 10, waitSeconds: 0 }, auth)).body;
    expect(claimed.features).toContain('result-batches');
    expect(claimed.runs).toHaveLength(3);
    const [a, b, c] = claimed.runs;
    const at = new Date(t.now()).toISOString();
    const answer = await t.json(
      '/agent/v1/result-batches',
      'POST',
      {
        agentId: AGENT,
        results: [
          { runId: a.runId, token: a.token, attempts: [attempt(at)] },
          { runId: b.runId, token: `${Date.parse(b.leaseUntil) + 1}.${AGENT}`, attempts: [attempt(at)] },
          { runId: c.runId, token: c.token, attempts: [{ ...attempt(at), resultType: 'ATTEMPT' }] },
          { runId: 'x', token: 'y', attempts: [attempt(at)], extra: 1 },
        ],
      },
      auth,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: any) => [r.runId, r.status])).toEqual([
      [a.runId, 200],
      [b.runId, 409],
      [c.runId, 400],
      ['x', 400],
    ]);
    expect(answer.body.results[0].recorded).toBe(true);
    expect(answer.body.results[2].errors[0].path).toBe('attempts.0.resultType');
    // Recorded once: the same result again is a stale claim.
    const again = await t.json('/agent/v1/result-batches', 'POST', { agentId: AGENT, results: [{ runId: a.runId, token: a.token, attempts: [attempt(at)] }] }, auth);
    expect(again.body.results.map((r: any) => r.status)).toEqual([409]);
    expect((await t.json(`/v1/check-results/${t.check.id}`)).body).toHaveLength(1);
    // Bounded: at most 50 results, and an API key opens no agent route.
    const many = Array.from({ length: 51 }, () => ({ runId: a.runId, token: a.token, attempts: [attempt(at)] }));
    expect((await t.json('/agent/v1/result-batches', 'POST', { agentId: AGENT, results: many }, auth)).status).toBe(400);
    expect((await t.json('/agent/v1/result-batches', 'POST', { agentId: AGENT, results: [] }, H)).status).toBe(401);
    await t.server.close();
  });
});

describe('a joined session whose agent dies holding its part (SQLite, the writer thread)', () => {
  it('the part is recorded as not run once the lease and then the queue bound pass after the claim, not after the due time', async () => {
    // The bound counts from when the run was last available: an agent lagging behind (a loaded
    // machine) claims a run long after it was due, and if it dies then, the session stays open for
    // a whole lease and queue bound after that claim. A stop meanwhile leaves it open, its run
    // queued (agent-joined e2e: sessions left PROGRESS, their private part neither run nor marked
    // not run, when the service was stopped 3.6 s after a kill that followed such a claim).
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const file = join(mkdtempSync(join(tmpdir(), 'mac-agent-queue-')), 'state.db');
    const server = createServer({ runs: false, stateFile: file, agentLeaseMs: 10_000, agentQueueMs: 60_000, now: () => clock });
    try {
      const store = server.ctx.store;
      await store.writesStarted();
      const json = async (path: string, method = 'GET', body?: unknown) => {
        const res = await server.request(path, { method, headers: H, body: body === undefined ? undefined : JSON.stringify(body) });
        return (await res.json()) as any;
      };
      const loc = await json('/v1/private-locations', 'POST', { name: 'A', slugName: 'site-a' });
      const created = await json('/v1/checks/url', 'POST', { name: 'mixed', activated: true, runParallel: true, locations: ['eu-west-1'], privateLocations: ['site-a'], request: { url: 'http://127.0.0.1:9/' } });
      const check = store.get<CheckRecord>('dev', COLL.checks, created.id)!;
      const { engine, agents } = runsOf(server.ctx);
      const due = clock;
      const session = engine.startSession('dev', check, { dueMs: due })!;
      await engine.idle();
      const read = () => store.getLatest<StoredSession & Record<string, unknown>>('dev', RUN_COLL.checkSessions, session.checkSessionId)!;
      expect(read().finishedLocations).toEqual(['eu-west-1']);
      // The agent claims the run 50 s after it was due (it lagged), then dies without a result.
      clock += 50_000;
      const [claimed] = agents.claim('dev', loc.id, 10, AGENT);
      expect(claimed.run.sessionId).toBe(session.checkSessionId);
      // 61 s after the due time, past the queue bound counted from it: still the agent's.
      clock = due + 61_000;
      expect(agents.expire(clock)).toBe(0);
      // The lease ended (60 s after the due time): the queue bound counts from then.
      clock = due + 50_000 + 10_000 + 59_999;
      expect(agents.expire(clock)).toBe(0);
      await engine.idle();
      expect(read().completedAt).toBeNull();
      expect(store.getLatest<QueuedRun>('dev', AGENT_COLL.runs, claimed.run.id)?.availableAt).toBe(new Date(due + 60_000).toISOString());
      clock += 2;
      expect(agents.expire(clock)).toBe(1);
      // Recorded after a turn (the part's write is never inside the sweep's lease).
      for (let i = 0; i < 50 && !read().completedAt; i++) await new Promise((r) => setTimeout(r, 10));
      const done = read();
      expect(done.completedAt).not.toBeNull();
      expect(done.notRunLocations).toEqual(['site-a']);
      expect((done.agentRuns as Record<string, { agentId: string | null }>)['site-a'].agentId).toBeNull();
      expect(store.getLatest('dev', AGENT_COLL.runs, claimed.run.id)).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
