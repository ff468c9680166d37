import { describe, expect, it } from 'vitest';
import { startServes } from '../helpers/serve.js';
import { pgDatabase, pgQuery } from '../helpers/pg-url.js';
import { FREQUENCY, TIMEOUT_MS, agentIds, expectExactlyOnce, agentFixture, location, runScenario, startAgent, urlChecks, type Agent, type QueuedRow, type SessionRow, slotRuns } from '../helpers/agent.js';

describe('mac agent: two instances on one PostgreSQL (--time-scale 60)', { timeout: TIMEOUT_MS }, () => {
  const fx = agentFixture();

  it('two instances on one PostgreSQL, agents at different instances: every claimed due time recorded once per location', async () => {
    const db = pgDatabase();
    const args = ['--time-scale', '60', '--database', db, '--rate-limit', '0/60'];
    const [one, two] = await startServes(args, args);
    const agents: Agent[] = [];
    try {
      const a = await location(one, 'site-a');
      const b = await location(one, 'site-b');
      agents.push(startAgent(one, a.key), startAgent(two, a.key), startAgent(two, b.key));
      const checks = await urlChecks(one, 10, fx.target.url, ['site-a', 'site-b'], FREQUENCY);
      const readSessions = async () => (await pgQuery<{ data: string }>(db, "SELECT data FROM records WHERE kind = 'checkSessions'")).map((r) => JSON.parse(r.data) as SessionRow);
      await runScenario(readSessions, checks, ['site-a', 'site-b']);
      expect(await Promise.all(agents.map((x) => x.stop()))).toEqual([0, 0, 0]);
      const ofA = await agentIds(two, a.id);
      const ofB = await agentIds(two, b.id);
      await Promise.all([one.stop(), two.stop()]);
      const sessions = await readSessions();
      const queued = (await pgQuery<{ data: string }>(db, "SELECT data FROM records WHERE kind = 'privateLocationRuns'")).map((r) => JSON.parse(r.data) as QueuedRow);
      expectExactlyOnce(sessions, queued, checks, { 'site-a': ofA, 'site-b': ofB }, FREQUENCY * 1000, 1);
      // Both instances scheduled: every due time one of them claimed is recorded in both locations.
      const claims = await pgQuery<{ check_id: string; due_ms: string; instance: string }>(db, 'SELECT check_id, due_ms, instance FROM run_claims');
      const mine = claims.filter((c) => checks.includes(c.check_id));
      expect(new Set(mine.map((c) => c.instance)).size).toBe(2);
      for (const slug of ['site-a', 'site-b']) {
        const recorded = new Set(slotRuns(sessions).filter((x) => x.slot === slug && x.run).map((x) => `${x.checkId}/${Date.parse(x.run!.dueAt)}`));
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
