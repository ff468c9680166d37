import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe, waitFor } from '../helpers/serve.js';
import { TIMEOUT_MS, agentIds, expectExactlyOnce, runsShed, agentFixture, location, sqliteRows, sqliteSessions, startAgent, startTarget, urlChecks, type Agent, type QueuedRow, type SessionRow } from '../helpers/agent.js';

// The two cases share nothing but the state folder (each its service, its state file, its agents;
// the SIGTERM case its own slow target) and mostly wait on slow runs and the lease: they run at once.
describe.concurrent('mac agent: kill -9 of an agent mid-run (--time-scale 60)', { timeout: TIMEOUT_MS }, () => {
  const fx = agentFixture({ stateDir: true });

  it('kill -9 of one of two agents mid-run: its claimed runs are run by the other after the lease; none lost, none twice', async () => {
    const state = join(fx.dir, 'kill.db');
    // The metrics count the due times the scheduler passed over (a loaded machine holding the
    // event loop past a 1-second period): not lost, and not the agents' doing.
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60', '--agent-lease', '5', '--agent-queue-timeout', '120', '--metrics-port', '0']);
    // Runs of 2.5 s: at the kill, the runs due in the 1.5 s before the second agent started are
    // still under way on the first (they finished before it with 1.5 s runs on a quiet machine).
    fx.target.setSlow(2500);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const first = startAgent(s, a.key, ['--concurrency', '16']);
      agents.push(first);
      // The checks are made while the agent starts: their first due runs wait in the queue for it.
      const checks = await urlChecks(s, 3, `${fx.target.url}/slow`, ['site-a']);
      await waitFor(async () => ((await agentIds(s, a.id)).size === 1 ? true : undefined));
      const [killedId] = await agentIds(s, a.id);
      // The first agent alone until it has been running for 1.5 s (a run begun that long ago is
      // still under way): from then on it claims each due time as it comes, and every run lasts
      // 2.5 s, so some are always under way (a fixed 4 s from the checks' creation waited for the
      // same on a quiet machine, the agent's start-up included).
      await waitFor(async () => (fx.target.slowStarted().some((t) => Date.now() - t >= 1500) ? true : undefined), 60_000, 20);
      const secondStart = Date.now();
      const second = startAgent(s, a.key, ['--concurrency', '16']);
      agents.push(second);
      await new Promise((r) => setTimeout(r, 1000));
      await first.stop('SIGKILL');
      const killedAt = Date.now();
      // Slow runs were needed until the kill only (to be under way at it): from now on every run
      // answers at once, those under way too, so that the runs taken over are recorded as soon
      // as they are claimed and the stop (which waits for runs under way) does not wait 2.5 s.
      fx.target.setSlow(0);
      fx.target.finishSlow();
      // The lease (5 s) ends, the second agent takes the killed one's runs, and runs on: until it
      // has recorded one of them and a run due after the kill (at most 14 s, then the assertions
      // below judge what was recorded). The lease is no longer than needed: a run of 2.5 s ends
      // before its agent would extend it (at half the lease), and one slowed by load is extended.
      const tookOver = (rows: SessionRow[]) => {
        const second = rows.filter((x) => checks.includes(x.checkId) && x.agentRun && x.agentRun.agentId !== killedId);
        return second.some((x) => Date.parse(x.agentRun!.dueAt) < secondStart - 500) && second.some((x) => Date.parse(x.agentRun!.dueAt) > killedAt);
      };
      while (Date.now() - killedAt < 14_000 && !tookOver(sqliteSessions(state))) await new Promise((r) => setTimeout(r, 250));
      expect(await second.stop()).toBe(0);
      const all = await agentIds(s, a.id);
      // The due times passed over before this instant (the scheduler runs on until the stop).
      const shedAt = Date.now();
      const shed = { count: await runsShed(s), atMs: shedAt };
      await s.stop();
      const sessions = sqliteSessions(state);
      expectExactlyOnce(sessions, sqliteRows<QueuedRow>(state, 'privateLocationRuns'), checks, { 'site-a': all }, 1000, 1, shed);
      // Runs due while the first agent was alone were claimed by it: those the second recorded are
      // the ones it took over once the killed agent's lease ended.
      const taken = sessions.filter((x) => checks.includes(x.checkId) && x.agentRun!.agentId !== killedId && Date.parse(x.agentRun!.dueAt) < secondStart - 500);
      expect(taken.length).toBeGreaterThan(0);
    } finally {
      fx.target.setSlow(0);
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
    }
  });

  it('SIGTERM with runs under way: the agent exits once they finished and were recorded, not after the whole grace', { timeout: 180_000 }, async () => {
    const state = join(fx.dir, 'grace.db');
    const target = await startTarget();
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60']).catch(async (err: unknown) => {
      await target.close();
      throw err;
    });
    // Runs of 3 s, one due every second per check: some are always under way.
    target.setSlow(3000);
    let agent: Agent | undefined;
    try {
      const a = await location(s, 'site-a');
      // A grace far longer than the test: an agent that waited it out fails the test by its timeout.
      agent = startAgent(s, a.key, ['--stop-grace', '3600']);
      const checks = await urlChecks(s, 3, `${target.url}/slow`, ['site-a']);
      const recorded = () => sqliteSessions(state).filter((x) => checks.includes(x.checkId) && x.agentRun).length;
      await waitFor(async () => (recorded() > 0 ? true : undefined), 60_000);
      // The signal goes while a run began less than 1 s ago, so at least 2 s of it are left: on a
      // loaded machine the agent may be between runs at any other moment.
      await waitFor(async () => (target.slowStarted().some((t) => Date.now() - t < 1000) ? true : undefined), 60_000, 20);
      expect(await agent.stop()).toBe(0);
      // It stopped with runs under way, and they finished: recorded, none given back.
      expect(agent.log()).toMatch(/waiting up to 3600 s for \d+ runs? under way/);
      expect(agent.log()).not.toContain('gave back');
      expect(agent.log()).toContain('stopped after');
    } finally {
      target.setSlow(0);
      await agent?.stop('SIGKILL');
      await s.stop('SIGKILL');
      await target.close();
    }
  });
});
